package replay

import (
	"bytes"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/webkeep/webkeep/shared/httpmsg"
	"github.com/webkeep/webkeep/shared/httpmsg/nethttp"
	"github.com/webkeep/webkeep/shared/warc"
)

// FuzzLookup replays arbitrary requests, and arbitrary index lines, against a small
// archive: nothing may panic or hang, a GET's exact answer is its recorded one, an
// answer is either archived or the "not archived" page, and each answer of the URL's
// batch is what its own request gets.
func FuzzLookup(f *testing.F) {
	ix, file := archive(f, warc.V09, exchanges)
	f.Add("GET", "http://example.com/", "", "", "")
	f.Add("POST", "http://example.com/api/search", "application/json", `{"q":"beta"}`, "20240101")
	f.Add("POST", "http://example.com/form", "application/x-www-form-urlencoded", "name=x&city=Oslo", "")
	f.Add("GET", "http://example.com/data.js?_=1&v=2", "", "", "2024")
	f.Add("PUT", "http://EXAMPLE.com:80/item/1#x", "multipart/form-data; boundary=b", "--b\r\n\r\n--b--", "99999999999999")
	f.Add("GET", "http://[::1/%zz", "", "", "x")
	f.Fuzz(func(t *testing.T, method, url, ctype, body, at string) {
		r := &Request{Method: method, URL: url, Header: httpmsg.Header{"Content-Type": {ctype}}, Body: []byte(body)}
		rec := httptest.NewRecorder()
		src := NewFile(bytes.NewReader(file), int64(len(file)))
		a, err := ix.Serve(nethttp.ResponseWriter(rec), r, at, src)
		if err != nil {
			t.Fatalf("a small archive cut an answer: %v", err)
		}
		if !a.Archived && (a.Status != 404 || !strings.Contains(rec.Body.String(), "Not archived")) {
			t.Fatalf("unarchived answer %+v", a)
		}
		if a.Archived && a.Status < 100 {
			t.Fatalf("archived answer with status %d", a.Status)
		}
		if method == "GET" && url == "http://example.com/a.css" && rec.Body.String() != "body{color:red}" {
			t.Fatalf("a.css answered %q", rec.Body.String())
		}
		// The batch of the URL as a page: each answer is what its own request gets.
		rec = httptest.NewRecorder()
		ix.ServeBatch(nethttp.ResponseWriter(rec), url, at, src, func(u string) bool { return u == "http://example.com/wire" })
		answers, bodies, err := ReadBatch(rec.Body)
		if err != nil {
			t.Fatalf("batch: %v", err)
		}
		for i, b := range answers {
			one := httptest.NewRecorder()
			want, err := ix.Serve(nethttp.ResponseWriter(one), &Request{Method: "GET", URL: b.URL, Header: httpmsg.Header{}}, at, src)
			if err != nil {
				t.Fatal(err)
			}
			if b.Answer.Status != want.Status || b.Answer.Approximate || !bytes.Equal(bodies[i], one.Body.Bytes()) {
				t.Fatalf("batch answer %+v %q, on its own %+v %q", b.Answer, bodies[i], want, one.Body)
			}
		}
	})
}

// FuzzReadIndex reads arbitrary index text: lines are captures or problems, never
// a panic, and every capture can be looked up by its own key.
func FuzzReadIndex(f *testing.F) {
	f.Add("com,example)/ 20240101000000 {\"url\": \"http://example.com/\", \"mime\": \"text/html\", \"status\": \"200\", \"offset\": \"0\", \"length\": \"10\"}\n")
	f.Add("com,example)/x?__wb_method=post&a=b 2024 {\"mime\": \"warc/revisit\", \"digest\": \"sha1:AB\", \"offset\": \"1\"}\r\nbad\n")
	f.Add("a 1 {\"offset\": \"99999999999999999999\"}")
	f.Add("com,example)/ 2024 {\"url\": \"http://example.com/\", \"mime\": \"text/html\", \"status\": \"200\", \"offset\": \"0\", \"filename\": \"a.warc\"}\ncom,example)/ 2024 {\"mime\": \"text/html\", \"status\": \"200\", \"offset\": \"0\", \"filename\": \"b.warc\"}\n")
	f.Fuzz(func(t *testing.T, text string) {
		ix, err := ReadIndex(strings.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range ix.captures {
			if got := ix.exact(c.URLKey); len(got) == 0 {
				t.Fatalf("capture %q not found under its key", c.URLKey)
			}
			ix.Open(NewFile(strings.NewReader(text), int64(len(text))), c)
		}
		// A bundle's index of one file holds those of the whole that name it.
		fix, pages, err := ReadFileIndex(strings.NewReader(text), "a.warc")
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range fix.captures {
			if c.Filename != "a.warc" {
				t.Fatalf("capture of %q in the index of a.warc", c.Filename)
			}
		}
		if fix.Len() > ix.Len() || len(pages) > strings.Count(text, "\n")+1 {
			t.Fatalf("%d captures and %d pages of a.warc, of %d captures in all", fix.Len(), len(pages), ix.Len())
		}
	})
}

// FuzzRange: no Range or Content-Range header crashes the parsers, and a range they
// accept lies within the representation.
func FuzzRange(f *testing.F) {
	for _, s := range []string{"bytes=0-9", "bytes=10-", "bytes=-5", "bytes=0-1,5-6", "bytes=9-3", "bytes 100-199/1000", "bytes 0-0/*", "bytes=-0", "bytes=99999999999999999999-"} {
		f.Add(s, int64(1000))
	}
	f.Fuzz(func(t *testing.T, h string, size int64) {
		if size < 0 {
			size = -size
		}
		if r, ok, sat := parseRange(h, size); ok && sat && (r.first < 0 || r.first > r.last || r.last >= size) {
			t.Errorf("parseRange(%q, %d) = %v", h, size, r)
		}
		if r, total, ok := contentRange(h); ok && (r.first > r.last || total >= 0 && r.last >= total) {
			t.Errorf("contentRange(%q) = %v/%d", h, r, total)
		}
	})
}
