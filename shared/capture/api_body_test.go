package capture

import (
	"bytes"
	"compress/gzip"
	"net/url"
	"strings"
	"testing"

	"github.com/webkeep/webkeep/shared/httpmsg/nethttp"
)

func TestReadJSONSaysWhatIsWrongWithABody(t *testing.T) {
	type body struct {
		Name   string   `json:"name"`
		Offset int64    `json:"offset"`
		List   []string `json:"list"`
	}
	for _, tc := range []struct {
		in, err string // err: "" when the body is taken
	}{
		{`{"name":"x","offset":3}`, ""},
		{` {"list":["a"]} ` + "\n", ""},
		{``, "not valid JSON: unexpected EOF"},
		{`null`, "want an object"},
		{`[1]`, "want an object"},
		{`"x"`, "want an object"},
		{`{"name":"x"} {"name":"y"}`, "more data after the object"},
		{`{"name":"x"}]`, "not valid JSON"},
		{`{"offset":"3"}`, "offset: want a whole number, got string"},
		{`{"offset":1e400}`, "offset: want a whole number"},
		{`{"list":"a"}`, "list: want a list, got string"},
		{`{"name":`, "not valid JSON: unexpected EOF"},
		{`{"name":"` + strings.Repeat("x", 100) + `"}`, "larger than 64 bytes"},
	} {
		var v body
		err := readJSON(strings.NewReader(tc.in), 64, &v)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%.40q: %v", tc.in, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%.40q: %v, want an error saying %q", tc.in, err, tc.err)
		}
	}
}

func TestImportRefusesWhatHoldsNoRecordsOrABadName(t *testing.T) {
	svc, _ := NewService(NewMemStore(), newFakeHost())
	h := nethttp.Handler(svc.Handler())
	var empty bytes.Buffer
	gzip.NewWriter(&empty).Close()
	for _, tc := range []struct {
		what, name string
		body       []byte
		err        string
	}{
		{"an empty file", "a.warc", nil, "the file is empty"},
		{"a gzip of nothing", "a.warc.gz", empty.Bytes(), "holds no WARC records"},
		{"blank lines", "a.warc", []byte("\r\n\r\n"), "holds no WARC records"},
		{"a name of 201 characters", strings.Repeat("n", 201), []byte("x"), "name: a session name must have 1 to 200 characters"},
		{"a name with a line break", "a\nb", []byte("x"), "control character"},
	} {
		// Refused at once (400), or by the import's job once it has read the file.
		j := runJob(t, h, "POST", "/api/import?name="+url.QueryEscape(tc.name), "", tc.body, nil)
		if j.State != "failed" || !strings.Contains(j.Error, tc.err) {
			t.Errorf("%s: %s %s, want a failure saying %q", tc.what, j.State, j.Error, tc.err)
		}
	}
	if list, _ := svc.sessions.list(); len(list) != 0 {
		t.Errorf("refused imports left %d sessions: %+v", len(list), list)
	}
}
