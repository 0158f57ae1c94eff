package replay

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/webkeep/webkeep/shared/httpmsg"
	"github.com/webkeep/webkeep/shared/httpmsg/nethttp"
	"github.com/webkeep/webkeep/shared/warc"
)

// TestServeLoader: a script the page runs, too large for one answer, gets webkeep's
// loader in its place (a script that names its URL, capture, length, chunk and
// charset), of a capture found exactly of a type the browser runs; the loader's Range
// reads get the bytes, with the page's origin let read them when they say they are
// the loader's; anything else is withheld as before.
func TestServeLoader(t *testing.T) {
	const max = 1000
	over := strings.Repeat("v", max+1)
	resp := func(header string) string {
		return "HTTP/1.1 200 OK\r\n" + header + "Content-Length: " + strconv.Itoa(len(over)) + "\r\n\r\n" + over
	}
	ix, file := archive(t, warc.V11, []exchange{
		{at: "20240101000001", method: "GET", url: "http://example.com/data.js", resp: resp("Content-Type: text/javascript; charset=iso-8859-1\r\n")},
		{at: "20240101000002", method: "GET", url: "http://cdn.example/lib.js", resp: resp("Content-Type: application/x-javascript\r\nAccess-Control-Allow-Origin: *\r\nX-Content-Type-Options: nosniff\r\n")},
		{at: "20240101000003", method: "GET", url: "http://example.com/plain.txt", resp: resp("Content-Type: text/plain\r\n")},
		{at: "20240101000004", method: "GET", url: "http://example.com/typed.txt", resp: resp("Content-Type: text/plain\r\nX-Content-Type-Options: nosniff\r\n")},
		{at: "20240101000005", method: "GET", url: "http://example.com/photo.png", resp: resp("Content-Type: image/png\r\n")},
		{at: "20240101000006", method: "GET", url: "http://example.com/table.csv", resp: resp("Content-Type: text/csv\r\n")},
	})
	ix.MaxBody = max
	f := NewFile(bytes.NewReader(file), int64(len(file)))
	for _, tt := range []struct {
		url, resourceType string
		loader            bool
		charset           string
		cors              string // the loader's Access-Control-Allow-Origin
	}{
		{"http://example.com/data.js", "Script", true, "iso-8859-1", ""},
		{"http://cdn.example/lib.js", "Script", true, "", "*"},
		{"http://example.com/plain.txt", "Script", true, "", ""}, // run as live, its type sniffed
		{"http://example.com/typed.txt", "Script", false, "", ""},
		{"http://example.com/photo.png", "Script", false, "", ""},
		{"http://example.com/table.csv", "Script", false, "", ""},
		{"http://example.com/data.js?_=5", "Script", false, "", ""}, // found approximately
		{"http://example.com/data.js", "Other", false, "", ""},
		{"http://example.com/data.js", "Stylesheet", false, "", ""},
	} {
		r, err := (&PausedRequest{Method: "GET", URL: tt.url, ResourceType: tt.resourceType, Headers: map[string]string{}}).Request()
		if err != nil {
			t.Fatal(err)
		}
		rec := httptest.NewRecorder()
		a, err := ix.Serve(nethttp.ResponseWriter(rec), r, "", f)
		if err != nil {
			t.Fatalf("%s %s: %v", tt.resourceType, tt.url, err)
		}
		if !tt.loader {
			if a.Loader || a.Status != 404 || !a.Withheld && a.Stream == nil {
				t.Errorf("%s %s: status %d loader %v withheld %v, want it not replayed", tt.resourceType, tt.url, a.Status, a.Loader, a.Withheld)
			}
			continue
		}
		want := []HeaderField{{"Cache-Control", "no-store"}, {"Content-Type", "text/javascript; charset=utf-8"}}
		if tt.cors != "" {
			want = append(want, HeaderField{"Access-Control-Allow-Origin", tt.cors})
		}
		if !a.Loader || a.Withheld || a.Status != 200 || !slices.Equal(a.Headers, want) {
			t.Errorf("%s: status %d loader %v withheld %v headers %v, want the loader with %v", tt.url, a.Status, a.Loader, a.Withheld, a.Headers, want)
			continue
		}
		body := rec.Body.String()
		args, _ := json.Marshal([]any{tt.url, a.Timestamp, max + 1, max, tt.charset, LoaderAccept})
		if !strings.HasPrefix(body, "((url, timestamp, size, chunk, charset, accept) => {") || !strings.HasSuffix(body, ")(..."+string(args)+");\n") {
			t.Errorf("%s: the loader's call %q, want its arguments %s", tt.url, body[len(body)-min(len(body), 200):], args)
		}
	}
	// The loader reads by Range: a read of another origin's script that says it is
	// the loader's is let read by that origin; the browser's own is answered as the
	// capture says.
	for _, tt := range []struct {
		accept, origin, cors string
	}{
		{LoaderAccept, "http://example.com", "http://example.com"},
		{"*/*", "http://example.com", "*"},
		{LoaderAccept, "", "*"},
	} {
		h := httpmsg.Header{"Range": {"bytes=10-19"}, "Accept": {tt.accept}}
		if tt.origin != "" {
			h.Set("Origin", tt.origin)
		}
		rec := httptest.NewRecorder()
		a, err := ix.Serve(nethttp.ResponseWriter(rec), &Request{Method: "GET", URL: "http://cdn.example/lib.js", Header: h, Script: true}, "", f)
		if err != nil || a.Status != 206 || rec.Body.String() != over[10:20] {
			t.Errorf("Accept %q: status %d, %q, err %v", tt.accept, a.Status, rec.Body, err)
		}
		if got := fieldValue(a.Headers, "Access-Control-Allow-Origin"); got != tt.cors {
			t.Errorf("Accept %q, Origin %q: Access-Control-Allow-Origin %q, want %q", tt.accept, tt.origin, got, tt.cors)
		}
	}
}
