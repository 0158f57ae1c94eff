package api_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/shared/cdx"
)

// A Record's fields are a CDXJ line's JSON as the core passes it on: every field the
// cdx package writes must have its place in RecordFields.
func TestRecordFieldsHoldACDXJLine(t *testing.T) {
	for _, tc := range []struct {
		name  string
		entry cdx.Entry
		want  api.RecordFields
	}{
		{"a PUT", cdx.Entry{
			URLKey: "org,example)/api/item?__wb_method=put&a=1", Timestamp: "20250601100005",
			URL: "https://example.org/api/item", Mime: "application/json", Status: "201",
			Digest: "ABCDEF", Length: 812, Offset: 40960, Method: "PUT", RequestBody: "a=1", Filename: "s.warc.gz",
		}, api.RecordFields{URL: "https://example.org/api/item", Mime: "application/json", Status: "201",
			Digest: "ABCDEF", Length: "812", Offset: "40960", Filename: "s.warc.gz", Method: "PUT", RequestBody: "a=1"}},
		{"a revisit", cdx.Entry{
			URLKey: "org,example)/", Timestamp: "20250601100005", URL: "https://example.org/", Mime: "warc/revisit",
			Digest: "ABCDEF", Length: 300, Offset: 0, Filename: "s.warc.gz",
		}, api.RecordFields{URL: "https://example.org/", Mime: "warc/revisit",
			Digest: "ABCDEF", Length: "300", Offset: "0", Filename: "s.warc.gz"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			line := strings.TrimSuffix(string(tc.entry.AppendLine(nil, cdx.Pywb267)), "\n")
			_, fields, _ := strings.Cut(line, " {")
			dec := json.NewDecoder(strings.NewReader("{" + fields))
			dec.DisallowUnknownFields()
			var got api.RecordFields
			if err := dec.Decode(&got); err != nil {
				t.Fatalf("decoding %s: %v", line, err)
			}
			if got != tc.want {
				t.Errorf("decoded %+v\nwant    %+v", got, tc.want)
			}
		})
	}
}

func TestJobFinished(t *testing.T) {
	for state, want := range map[string]bool{"": false, api.JobRunning: false, api.JobDone: true, api.JobCancelled: true, api.JobFailed: true} {
		if got := (api.Job{State: state}).Finished(); got != want {
			t.Errorf("Job{State: %q}.Finished() = %v", state, got)
		}
	}
}

// The pages send back the settings they read: a token they did not change, and no
// wish to clear it, must not be sent.
func TestSettingsSentBackKeepTheToken(t *testing.T) {
	read := api.Settings{HeaderPolicy: "redact", TeamEndpoint: "https://team.example", TeamTokenSet: true}
	b, err := json.Marshal(read)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte(`"teamToken"`)) || bytes.Contains(b, []byte("clearTeamToken")) {
		t.Errorf("an unchanged token is sent: %s", b)
	}
	var back api.Settings
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, read) {
		t.Errorf("sent %s, read back %+v (%v)", b, back, err)
	}
}
