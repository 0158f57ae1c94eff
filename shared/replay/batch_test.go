package replay

import (
	"bytes"
	"io"
	"maps"
	"net/http/httptest"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/webkeep/webkeep/shared/httpmsg"
	"github.com/webkeep/webkeep/shared/httpmsg/nethttp"
	"github.com/webkeep/webkeep/shared/warc"
)

// TestServeBatch: a page's batch holds its own answer and those of the GET captures
// recorded around it, up to other pages, each the answer and body that Serve gives
// its own request; large bodies and requests of other methods are left out.
func TestServeBatch(t *testing.T) {
	const (
		home = "http://example.com/"
		wire = "http://example.com/wire"
		old  = "http://example.com/old"
		css  = "http://example.com/a.css"
		cp   = "http://example.com/copy.css"
		js   = "http://example.com/data.js?v=2&_=1700000000"
	)
	tests := []struct {
		name, page, at string
		pages          []string
		want           []string
	}{
		{name: "up to the next page", page: home, pages: []string{home, wire}, want: []string{home, old, css, cp, js}},
		{name: "to the end", page: home, pages: []string{home}, want: []string{home, old, css, cp, js, wire}},
		// The morning capture is first in the file; the noon one, a page, ends it.
		{name: "the capture nearest to at", page: home, at: "20240101010000", pages: []string{home}, want: []string{home}},
		{name: "backwards from a page", page: wire, pages: []string{home, wire}, want: []string{wire, js, cp, css, old}},
		{name: "a page too large", page: "http://example.com/big.bin", pages: []string{home, wire}, want: []string{js, cp, css, old}},
		{name: "no capture of the page", page: "http://example.com/nowhere", pages: nil, want: nil},
	}
	for _, v := range []warc.Version{warc.V09, warc.V11} {
		ix, file := archive(t, v, exchanges)
		for _, tt := range tests {
			t.Run(v.String()+"/"+tt.name, func(t *testing.T) {
				f := &offsetsFile{File: NewFile(bytes.NewReader(file), int64(len(file))), read: map[int64]bool{}}
				isPage := func(u string) bool { return slices.Contains(tt.pages, u) }
				rec := httptest.NewRecorder()
				got := ix.ServeBatch(nethttp.ResponseWriter(rec), tt.page, tt.at, f, isPage)
				// BatchRecords names, from the index alone, the records the batch read:
				// a revisit's original too.
				var named []int64
				for _, e := range ix.BatchRecords(tt.page, tt.at, isPage) {
					named = append(named, e.Offset)
				}
				read := slices.Sorted(maps.Keys(f.read))
				if slices.Sort(named); !slices.Equal(named, read) {
					t.Errorf("BatchRecords named the records at %v, the batch read those at %v", named, read)
				}
				answers, bodies, err := ReadBatch(rec.Body)
				if err != nil || !reflect.DeepEqual(answers, got) {
					t.Fatalf("read back %v (%v), want %v", answers, err, got)
				}
				var urls []string
				for i, a := range answers {
					urls = append(urls, a.URL)
					one := httptest.NewRecorder()
					want, err := ix.Serve(nethttp.ResponseWriter(one), &Request{Method: "GET", URL: a.URL, Header: httpmsg.Header{}}, tt.at, f)
					if err != nil {
						t.Fatal(err)
					}
					if !reflect.DeepEqual(a.Answer, want) || !bytes.Equal(bodies[i], one.Body.Bytes()) {
						t.Errorf("%s: batch %+v %q, on its own %+v %q", a.URL, a.Answer, bodies[i], want, one.Body)
					}
				}
				if !slices.Equal(urls, tt.want) {
					t.Errorf("batch of %s: %q, want %q", tt.page, urls, tt.want)
				}
			})
		}
	}
}

// TestBatchLateRecords: a resource whose record was written after the next page's
// (its body asked for once the tab had gone on) is in the batch of the page it was
// answered with, and one answered much later is not.
func TestBatchLateRecords(t *testing.T) {
	const (
		home  = "http://example.com/"
		forms = "http://example.com/forms"
	)
	ix, _ := archive(t, warc.V09, []exchange{
		{at: "20240101000000", method: "GET", url: home, resp: ok200("text/html", "home")},
		{at: "20240101000000", method: "GET", url: "http://example.com/style.css", resp: ok200("text/css", "p{}")},
		{at: "20240101000001", method: "GET", url: forms, resp: ok200("text/html", "forms")},
		{at: "20240101000001", method: "GET", url: "http://example.com/forms.css", resp: ok200("text/css", "form{}")},
		{at: "20240101000001", method: "POST", url: "http://example.com/api", ctype: "text/plain", body: "x", resp: ok200("text/plain", "y")},
		{at: "20240101000000", method: "GET", url: "http://example.com/app.js", resp: ok200("text/javascript", "1")},
		{at: "20240101000009", method: "GET", url: "http://example.com/later.js", resp: ok200("text/javascript", "2")},
		{at: "20240101000100", method: "GET", url: "http://example.com/stop.js", resp: ok200("text/javascript", "3")},
		{at: "20240101000000", method: "GET", url: "http://example.com/past.js", resp: ok200("text/javascript", "4")},
	})
	isPage := func(u string) bool { return u == home || u == forms }
	for _, tt := range []struct {
		page string
		want []string
	}{
		// app.js, written after the forms page, was answered with the home page;
		// forms.css, within the same seconds, may be too; later.js came seconds after,
		// and past.js is behind a capture a minute later.
		{home, []string{home, "http://example.com/style.css", "http://example.com/forms.css", "http://example.com/app.js"}},
		// The last page's batch runs to the end of the file, as before.
		{forms, []string{forms, "http://example.com/forms.css", "http://example.com/app.js", "http://example.com/later.js",
			"http://example.com/stop.js", "http://example.com/past.js", "http://example.com/style.css"}},
	} {
		if got := ix.batchURLs(tt.page, "", isPage); !slices.Equal(got, tt.want) {
			t.Errorf("batch of %s: %q, want %q", tt.page, got, tt.want)
		}
	}
}

// offsetsFile is a File that notes the offsets it is read from.
type offsetsFile struct {
	File
	mu   sync.Mutex
	read map[int64]bool
}

func (f *offsetsFile) Reader(off int64) io.Reader {
	f.mu.Lock()
	f.read[off] = true
	f.mu.Unlock()
	return f.File.Reader(off)
}

// At finds a capture by the offset of its record, as ReadIndex read it, and none
// between records.
func TestIndexAt(t *testing.T) {
	ix, _ := archive(t, warc.V11, exchanges)
	for _, c := range ix.captures {
		got, ok := ix.At(c.Offset)
		if !ok || got.Offset != c.Offset || got.Length != c.Length {
			t.Errorf("At(%d) = %+v, %v; want the capture of %s", c.Offset, got, ok, c.URL)
		}
		if got, ok := ix.At(c.Offset + 1); ok {
			t.Errorf("At(%d), a byte into a record: %+v", c.Offset+1, got)
		}
	}
}
