package datatxt

import (
	"net/http"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/httpmsg"
)

func TestExpiry(t *testing.T) {
	now := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	date := now.Add(-time.Hour).Format(http.TimeFormat) // server clock an hour behind
	tests := []struct {
		name   string
		header httpmsg.Header
		want   time.Time
	}{
		{"none: the draft's 7 days", httpmsg.Header{}, now.Add(7 * 24 * time.Hour)},
		{"max-age", httpmsg.Header{"Cache-Control": {"public, max-age=3600"}}, now.Add(time.Hour)},
		{"max-age less Age", httpmsg.Header{"Cache-Control": {"max-age=3600"}, "Age": {"600"}}, now.Add(50 * time.Minute)},
		{"max-age in a second header", httpmsg.Header{"Cache-Control": {"public", "max-age=60"}}, now.Add(time.Minute)},
		{"quoted max-age", httpmsg.Header{"Cache-Control": {`max-age="60"`}}, now.Add(time.Minute)},
		{"no-cache", httpmsg.Header{"Cache-Control": {"no-cache"}}, now},
		{"no-store wins over max-age", httpmsg.Header{"Cache-Control": {"max-age=60, no-store"}}, now},
		{"bad max-age is stale", httpmsg.Header{"Cache-Control": {"max-age=soon"}}, now},
		{"Cache-Control wins over Expires", httpmsg.Header{
			"Cache-Control": {"max-age=60"},
			"Expires":       {now.Add(48 * time.Hour).Format(http.TimeFormat)},
		}, now.Add(time.Minute)},
		{"Cache-Control without max-age leaves Expires", httpmsg.Header{
			"Cache-Control": {"public"},
			"Expires":       {now.Add(48 * time.Hour).Format(http.TimeFormat)},
		}, now.Add(48 * time.Hour)},
		{"Expires relative to Date", httpmsg.Header{
			"Date":    {date},
			"Expires": {now.Add(time.Hour).Format(http.TimeFormat)}, // two hours after Date
		}, now.Add(2 * time.Hour)},
		{"Expires in the past", httpmsg.Header{"Expires": {now.Add(-time.Hour).Format(http.TimeFormat)}}, now},
		{"Expires: 0", httpmsg.Header{"Expires": {"0"}}, now},
		{"Pragma: no-cache", httpmsg.Header{"Pragma": {"no-cache"}}, now},
	}
	for _, tt := range tests {
		if got := Expiry(tt.header, now); !got.Equal(tt.want) {
			t.Errorf("%s: Expiry = %v, want %v", tt.name, got, tt.want)
		}
	}
}
