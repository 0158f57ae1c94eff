package replay

import (
	"encoding/binary"
	"errors"
	"io"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/webkeep/webkeep/shared/cdx"
	"github.com/webkeep/webkeep/shared/httpmsg"
)

// A bundle's index, as a WACZ holds it: the lines of its WARC files, sorted by key.
const bundleIndex = `com,example)/ 20240101000000 {"url": "http://example.com/", "mime": "text/html", "status": "200", "offset": "0", "length": "300", "filename": "a.warc"}
com,example)/ 20240202000000 {"url": "http://example.com/", "mime": "text/html", "status": "200", "offset": "0", "length": "310", "filename": "b.warc"}
com,example)/about 20240101000005 {"url": "http://example.com/about", "mime": "text/html; charset=utf-8", "status": "200", "offset": "900", "length": "200", "filename": "a.warc"}
com,example)/b-only 20240202000000 {"url": "http://example.com/b-only", "mime": "text/html", "status": "200", "offset": "400", "length": "200", "filename": "b.warc"}
com,example)/old 20240101000001 {"url": "http://example.com/old", "mime": "text/html", "status": "304", "offset": "1100", "length": "90", "filename": "a.warc"}
com,example)/style.css 20240101000001 {"url": "http://example.com/style.css", "mime": "text/css", "status": "200", "offset": "300", "length": "250", "filename": "a.warc"}
com,example)/style.css 20240101000002 {"url": "http://example.com/style.css", "mime": "warc/revisit", "offset": "550", "length": "350", "filename": "a.warc"}
com,example)/x 2024XX {"offset": "0", "filename": "a.warc"}
`

func TestReadFileIndex(t *testing.T) {
	for _, tt := range []struct {
		file     string
		captures []int64 // the offsets of its captures, in the order of the file
		pages    []string
		problems int
	}{
		// A 304 is a page's URL but no capture; a line it cannot read is a problem,
		// whichever file it names.
		{"a.warc", []int64{0, 300, 550, 900}, []string{"http://example.com/", "http://example.com/about", "http://example.com/old"}, 1},
		{"b.warc", []int64{0, 400}, []string{"http://example.com/", "http://example.com/b-only"}, 1},
		{"c.warc", nil, nil, 1},
	} {
		ix, pages, err := ReadFileIndex(strings.NewReader(bundleIndex), tt.file)
		if err != nil {
			t.Fatalf("%s: %v", tt.file, err)
		}
		var offsets []int64
		for _, i := range ix.byOffset {
			if c := ix.captures[i]; c.Filename == tt.file {
				offsets = append(offsets, c.Offset)
			}
		}
		if !slices.Equal(offsets, tt.captures) || ix.Len() != len(tt.captures) {
			t.Errorf("%s: captures at %v (%d in all), want %v", tt.file, offsets, ix.Len(), tt.captures)
		}
		if got := slices.Sorted(maps.Keys(pages)); !slices.Equal(got, tt.pages) {
			t.Errorf("%s: pages %v, want %v", tt.file, got, tt.pages)
		}
		if len(ix.Problems) != tt.problems {
			t.Errorf("%s: problems %v, want %d", tt.file, ix.Problems, tt.problems)
		}
	}
}

// An index over MaxFileIndex bytes is refused, not cut short; a failed read fails.
func TestReadFileIndexErrors(t *testing.T) {
	line := "com,example)/ 20240101000000 {\"url\": \"http://example.com/\", \"offset\": \"0\", \"filename\": \"a.warc\"}\n"
	big := io.MultiReader(strings.NewReader(strings.Repeat(line, MaxFileIndex/len(line))), strings.NewReader(line))
	if _, _, err := ReadFileIndex(big, "a.warc"); err == nil || !strings.Contains(err.Error(), "over 32 MB") {
		t.Errorf("an index over the bound: %v", err)
	}
	at := strings.Repeat(line, MaxFileIndex/len(line)-1)
	if _, _, err := ReadFileIndex(strings.NewReader(at), "a.warc"); err != nil {
		t.Errorf("an index within the bound: %v", err)
	}
	broken := errors.New("connection reset")
	if _, _, err := ReadFileIndex(io.MultiReader(strings.NewReader(line), &failing{broken}), "a.warc"); !errors.Is(err, broken) {
		t.Errorf("a failed read: %v", err)
	}
}

type failing struct{ err error }

func (f *failing) Read([]byte) (int, error) { return 0, f.err }

// LookupAmong finds what Lookup finds in an index of the same lines, and its place
// among them: lines that answer nothing (a 304) do not shift the places.
func TestLookupAmong(t *testing.T) {
	parse := func(s string) cdx.Entry {
		e, err := ParseLine([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	captures := []cdx.Entry{
		parse(`com,example)/ 20240101000001 {"url": "http://example.com/", "status": "304", "offset": "5", "filename": "one.warc"}`),
		parse(`com,example)/ 2024 {"url": "http://example.com/", "status": "200", "offset": "10", "filename": "one.warc"}`),
		parse(`com,example)/ 2025 {"url": "http://example.com/", "status": "200", "offset": "20", "filename": "two.warc"}`),
		parse(`com,example)/?q=1 2025 {"url": "http://example.com/?q=1", "status": "200", "offset": "30", "filename": "two.warc"}`),
	}
	get := func(u string) *Request { return &Request{Method: httpmsg.MethodGet, URL: u} }
	for _, tt := range []struct {
		r           *Request
		at          string
		place       int
		approximate bool
	}{
		{get("http://example.com/"), "2024", 1, false},
		{get("http://example.com/"), "", 2, false}, // the latest
		{get("http://example.com/"), "20241231", 2, false},
		{get("http://example.com/?q=1&_=99"), "2025", 3, true},
		{get("http://example.org/"), "", -1, false},
	} {
		m, place, ok := LookupAmong(captures, tt.r, tt.at)
		if place != tt.place || ok != (tt.place >= 0) || m.Approximate != tt.approximate {
			t.Errorf("%s at %q: place %d (%v, approximate %v), want %d", tt.r.URL, tt.at, place, ok, m.Approximate, tt.place)
			continue
		}
		if ok && m.Capture != captures[place] {
			t.Errorf("%s at %q: capture %+v, want the line's own %+v", tt.r.URL, tt.at, m.Capture, captures[place])
		}
		ix, _ := ReadIndex(strings.NewReader(lines(captures)))
		if want, _ := ix.Lookup(tt.r, tt.at); ok && (want.Capture != m.Capture || want.Why != m.Why) {
			t.Errorf("%s at %q: %+v, an index of the lines finds %+v", tt.r.URL, tt.at, m, want)
		}
	}
}

func lines(captures []cdx.Entry) string {
	var b []byte
	for _, e := range captures {
		b = e.AppendLine(b, cdx.Pywb267)
	}
	return string(b)
}

func TestValidTimestamp(t *testing.T) {
	for ts, want := range map[string]bool{
		"": true, "2024": true, "20240101000000": true,
		"202401010000001": false, "2024-01": false, "x": false, " 2024": false,
	} {
		if ValidTimestamp(ts) != want {
			t.Errorf("ValidTimestamp(%q) = %v", ts, !want)
		}
	}
}

// The empty batch is a batch of no answers, which a replay's page reads as a list.
func TestEmptyBatch(t *testing.T) {
	b := EmptyBatch()
	if n := binary.BigEndian.Uint32(b); string(b[4:4+n]) != "[]" || len(b) != 4+int(n) {
		t.Errorf("empty batch %q, want the list [] and nothing after it", b)
	}
	answers, bodies, err := ReadBatch(strings.NewReader(string(b)))
	if err != nil || len(answers) != 0 || len(bodies) != 0 {
		t.Errorf("ReadBatch: %v, %v, %v", answers, bodies, err)
	}
	ix, _ := ReadIndex(strings.NewReader(bundleIndex))
	if got, _ := ix.Batch("http://example.org/", "", nil, nil); string(got) != string(b) {
		t.Errorf("the batch of a page with no capture is %q, want %q", got, b)
	}
}
