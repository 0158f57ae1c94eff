package capture

import (
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/cdx"
)

// Pages are listed at the time of the capture they were made from, and a page that
// answered a POST under the key ReplayWeb.page looks that POST up under.
func TestWACZPageCaptures(t *testing.T) {
	c := pageCaptures{}
	for _, e := range []cdx.Entry{
		{URL: "http://a/", Timestamp: "20240101000010", Status: "200"},
		{URL: "http://a/", Timestamp: "20240101000020", Mime: "warc/revisit"},
		{URL: "http://a/", Timestamp: "20240101000030", Status: "200"},
		{URL: "http://a/big", Timestamp: "20240101000039", Status: "200"},
		{URL: "http://a/form", Timestamp: "20240101000050", Status: "200", Method: "POST", RequestBody: "name=ada+lovelace&note=café"},
		{URL: "http://a/form", Timestamp: "20240101000055", Status: "200"},
	} {
		c.add(&e)
	}
	at := func(s string) time.Time { ts, _ := time.Parse("20060102150405.000", s); return ts }
	for _, tc := range []struct {
		url, ts       string
		wantURL, want string
	}{
		{"http://a/", "20240101000020.500", "http://a/", "20240101000020"},
		{"http://a/", "20240101000019.400", "http://a/", "20240101000020"}, // its record's second is later
		{"http://a/", "20240101000005.000", "http://a/", "20240101000010"}, // before every capture: the first
		{"http://a/#top", "20240101000031.000", "http://a/", "20240101000030"},
		{"http://a/big", "20240101000041.000", "http://a/big", "20240101000039"},
		{"http://a/form", "20240101000050.900", "http://a/form?__wb_method=POST&name=ada+lovelace&note=café", "20240101000050"},
		{"http://a/form", "20240101000056.000", "http://a/form", "20240101000055"},
		{"http://b/", "20240101000001.250", "http://b/", "20240101000001.250"}, // no capture: as visited
	} {
		u, ts := c.of(tc.url, at(tc.ts))
		want := at(tc.want + ".000")
		if len(tc.want) > 14 {
			want = at(tc.want)
		}
		if u != tc.wantURL || !ts.Equal(want) {
			t.Errorf("of(%q, %s) = %q, %s; want %q, %s", tc.url, tc.ts, u, ts.Format(time.RFC3339Nano), tc.wantURL, want.Format(time.RFC3339Nano))
		}
	}
}
