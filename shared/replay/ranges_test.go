package replay

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/webkeep/webkeep/shared/httpmsg"
	"github.com/webkeep/webkeep/shared/httpmsg/nethttp"
	"github.com/webkeep/webkeep/shared/warc"
)

// askOpenRange asks ix for "bytes=first-" of url (a capture of body) from f, checks
// the answer is 206 with those bytes of body, and returns the range it holds: from
// its first byte to the byte after its last.
func askOpenRange(t *testing.T, ix *Index, f File, url string, body []byte, first int64) (from, end int64) {
	t.Helper()
	rec := httptest.NewRecorder()
	a, err := ix.Serve(nethttp.ResponseWriter(rec), &Request{Method: "GET", URL: url, Header: httpmsg.Header{"Range": {"bytes=" + strconv.FormatInt(first, 10) + "-"}}}, "", f)
	if err != nil || a.Status != 206 {
		t.Fatalf("bytes=%d-: %d %v", first, a.Status, err)
	}
	cr := fieldValue(a.Headers, "Content-Range")
	var to int64
	if _, err := fmt.Sscanf(cr, "bytes %d-%d/", &from, &to); err != nil || from != first {
		t.Fatalf("bytes=%d-: Content-Range %q", first, cr)
	}
	if !bytes.Equal(rec.Body.Bytes(), body[from:to+1]) {
		t.Fatalf("bytes=%d-: the body is not bytes %d-%d of the capture", first, from, to)
	}
	return from, to + 1
}

// countingReaderAt counts the bytes read from it.
type countingReaderAt struct {
	r *bytes.Reader
	n atomic.Int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

// A capture read for a range is kept where the range ended: playing it through
// reads its record once, and a seek forward reads on from where the last range
// ended. A seek of a record stored whole (a video's) reads only what it answers;
// of a compressed one, back, it reads the record from its start. Each answer is
// the bytes recorded.
func TestServeRangesReadOn(t *testing.T) {
	const mib = 1 << 20
	video := make([]byte, 12*mib)
	rand.NewChaCha8([32]byte{7}).Read(video) // gzip does not make it smaller: stored whole
	// Words in any order: gzip makes it about five times smaller.
	var text []byte
	words := strings.Fields("archive replay index payload record capture video range seek member gzip block header stored whole bytes")
	for i := 0; len(text) < len(video); i++ {
		text = append(append(text, words[video[i]%16]...), ' ')
	}
	text = text[:len(video)]
	for _, c := range []struct {
		name   string
		body   []byte
		stored bool
	}{{"a video", video, true}, {"text", text, false}} {
		ix, file := archive(t, warc.V11, []exchange{
			{at: "20240101000000", method: "GET", url: "http://example.com/film", resp: ok200("video/webm", string(c.body))},
		})
		ix.MaxBody = 1 << 30
		src := &countingReaderAt{r: bytes.NewReader(file)}
		f := NewFile(src, int64(len(file)))
		ask := func(first int64) (int64, int64) {
			return askOpenRange(t, ix, f, "http://example.com/film", c.body, first)
		}
		read := func() int64 { return src.n.Swap(0) }
		slack := int64(mib) // each answer's record header, and what the readers buffer ahead

		requests := 0
		for at := int64(0); at < int64(len(c.body)); requests++ {
			_, at = ask(at)
		}
		// Only the first answer opens the record (its WARC and HTTP headers); each
		// later one has its head kept with the body kept open, and reads on.
		if n := read(); n > int64(len(file))+slack {
			t.Errorf("%s: played through in %d requests, %d bytes were read of a file of %d: its start read again for each", c.name, requests, n, len(file))
		}
		// A seek back: read from the start again (the body kept at the end is no
		// more), or from where it lies.
		_, end := ask(6 * mib)
		n := read()
		if c.stored && n > RangeChunk+slack/4 || !c.stored && n < mib { // 6 MiB of text: over 1 MiB compressed
			t.Errorf("%s: a seek back to 6 MiB read %d bytes", c.name, n)
		}
		// A seek forward reads on from where the last answer ended, or from where
		// it lies.
		ask(10 * mib)
		want := 10*mib - end + RangeChunk
		if c.stored {
			want = RangeChunk
		}
		if n := read(); n > want+slack/4 {
			t.Errorf("%s: a seek forward from %d to %d read %d bytes, want about %d", c.name, end, 10*mib, n, want)
		}
	}
}

// A range answer keeps its response's head with its body, for the next range of
// the same record: that answer reads nothing of the record but the body (Resume).
// Ranges of a response and of its revisit asked in turn each get their own
// capture's status and header, and the bytes recorded.
func TestServeRangesKeepHead(t *testing.T) {
	const mib = 1 << 20
	video := make([]byte, 3*mib)
	rand.NewChaCha8([32]byte{5}).Read(video)
	withTag := func(tag string) string {
		return fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: video/webm\r\nX-Tag: %s\r\nContent-Length: %d\r\n\r\n%s", tag, len(video), video)
	}
	ix, file := archive(t, warc.V11, []exchange{
		{at: "20240101000000", method: "GET", url: "http://example.com/film.webm", resp: withTag("first")},
		{at: "20240301000000", method: "GET", url: "http://example.com/film.webm", resp: withTag("again")}, // a revisit
	})
	ix.MaxBody = 1 << 30
	src := &countingReaderAt{r: bytes.NewReader(file)}
	f := NewFile(src, int64(len(file)))
	next := map[string]int64{}
	for i := range 2 * int(3*mib/RangeChunk) {
		at := []string{"20240101000000", "20240301000000"}[i%2]
		first := next[at]
		src.n.Store(0)
		req := &Request{Method: "GET", URL: "http://example.com/film.webm", Header: httpmsg.Header{"Range": {fmt.Sprintf("bytes=%d-", first)}}}
		rec := httptest.NewRecorder()
		a, err := ix.Serve(nethttp.ResponseWriter(rec), req, at, f)
		if err != nil || a.Status != 206 || a.Timestamp != at || !bytes.Equal(rec.Body.Bytes(), video[first:first+RangeChunk]) {
			t.Fatalf("%s bytes=%d-: %d %s %v, not the bytes recorded", at, first, a.Status, a.Timestamp, err)
		}
		tag := map[string]string{"20240101000000": "first", "20240301000000": "again"}[at]
		if got := fieldValue(a.Headers, "X-Tag"); got != tag {
			t.Errorf("%s bytes=%d-: X-Tag %q, want %q (its own capture's header)", at, first, got, tag)
		}
		// After each capture's first answer, the bytes of the range alone (the
		// revisit's body is its original's, kept open by either).
		if n := src.n.Load(); i >= 2 && n > RangeChunk+32<<10 {
			t.Errorf("%s bytes=%d-: %d bytes of the file read for %d answered: the record opened again", at, first, n, RangeChunk)
		}
		next[at] = first + RangeChunk
	}
}

// fieldValue returns the value of the field name in fs, "" if there is none.
func fieldValue(fs []HeaderField, name string) string {
	for _, h := range fs {
		if strings.EqualFold(h.Name, name) {
			return h.Value
		}
	}
	return ""
}

// A record in segments (as the extension writes a body over 8 MiB): a seek skips
// the segments before it by their lengths, reads a segment stored whole from where
// the range lies and a compressed one from its start, and goes on into the
// segments after; each answer the bytes recorded.
func TestServeRangesSeekSegments(t *testing.T) {
	const mib = 1 << 20
	body := make([]byte, 5*mib)
	rand.NewChaCha8([32]byte{9}).Read(body)
	// A tail that compresses: its segment is compressed.
	body = append(body, strings.Repeat("a tail that compresses ", mib/2/23+1)[:mib/2]...)
	for _, v := range []warc.Version{warc.V09, warc.V11} {
		ix, file := archiveWith(t, warc.WriterOptions{Version: v, Gzip: true, MaxBuffer: mib}, []exchange{
			{at: "20240101000000", method: "GET", url: "http://example.com/film", resp: ok200("video/webm", string(body)), stream: true},
		})
		ix.MaxBody = 1 << 30
		src := &countingReaderAt{r: bytes.NewReader(file)}
		f := NewFile(src, int64(len(file)))
		for i, c := range []struct {
			at, most int64
		}{
			{4*mib + 1234, RangeChunk + 6*16<<10}, // the heads of the segments before it read too
			{mib + 7, RangeChunk},
			{3*mib - 1000, RangeChunk},                  // on into the next segment
			{5*mib + 100<<10, 5*mib/2 - 100<<10 + 4096}, // in the compressed tail: inflated from its start
		} {
			src.n.Store(0)
			askOpenRange(t, ix, f, "http://example.com/film", body, c.at)
			// Each answer also opens the record for its header (64 KiB read
			// ahead), the seek's reader buffers ahead 32 KiB, and a reader of
			// the segments after the one sought in reads ahead 64 KiB and more.
			if n, most := src.n.Load(), c.most+256<<10; n > most {
				t.Errorf("%v, seek %d to %d: read %d bytes of the file (at most %d)", v, i, c.at, n, most)
			}
		}
	}
}

// A record of many segments alike (a long video's, stored whole): a seek far into it
// reads the segment where the lengths of the first two say it lies, not every head
// before it, across segment numbers of more digits; a seek to a segment placed so
// reads its head there. Segments that are not alike (compressed) are read one by one.
func TestServeRangesSeekManySegments(t *testing.T) {
	const seg = 64 << 10
	for _, tt := range []struct {
		name     string
		compress bool
		most     int64 // bytes of the file a seek far in reads, at most
	}{
		{"stored whole", false, 600 << 10},
		{"compressed", true, 0},
	} {
		body := make([]byte, 130*seg+1000) // segments numbered up to 132
		rand.NewChaCha8([32]byte{7}).Read(body)
		if tt.compress {
			for i := range body {
				body[i] &= 0x0f
			}
		}
		ix, file := archiveWith(t, warc.WriterOptions{Version: warc.V11, Gzip: true, MaxBuffer: seg}, []exchange{
			{at: "20240101000000", method: "GET", url: "http://example.com/long", resp: ok200("video/webm", string(body)), stream: true},
		})
		ix.MaxBody = 1 << 30
		src := &countingReaderAt{r: bytes.NewReader(file)}
		f := NewFile(src, int64(len(file)))
		for i, at := range []int64{120*seg + 77, 50*seg + 5, 9*seg + 1, 99*seg + seg - 10, 130*seg + 500, 3*seg + 9} {
			src.n.Store(0)
			askOpenRange(t, ix, f, "http://example.com/long", body, at)
			if n := src.n.Load(); i == 0 && tt.most > 0 && n > tt.most {
				t.Errorf("%s: a seek to %d read %d bytes of the file (at most %d)", tt.name, at, n, tt.most)
			}
		}
	}
}

// Bodies kept past MaxKeptBodies are closed, the one kept longest first; take finds
// a body of the payload asked for that has not read past the range.
func TestKeptBodies(t *testing.T) {
	var k keptBodies
	closed := make([]bool, MaxKeptBodies+2)
	for i := range closed {
		k.keep(keptBody{payload: fmt.Sprint("payload ", i), body: closer{func() { closed[i] = true }}, at: 100})
	}
	for i, c := range closed {
		if want := i < 2; c != want {
			t.Errorf("body %d closed: %v, want %v", i, c, want)
		}
	}
	if _, ok := k.take("payload 3", 99); ok {
		t.Error("a body read to 100 was taken for a range from 99")
	}
	if _, ok := k.take("", 100); ok {
		t.Error("a body was taken for no payload")
	}
	if b, ok := k.take("payload 3", 200); !ok || b.at != 100 {
		t.Errorf("take(payload 3, 200) = %+v, %v", b, ok)
	}
	if _, ok := k.take("payload 3", 200); ok {
		t.Error("a body was taken twice")
	}
	// Of two bodies of one payload (played on, then a seek back), the one that has
	// read furthest without passing the range.
	var two keptBodies
	two.keep(keptBody{payload: "film", body: closer{func() {}}, at: 20 << 20})
	two.keep(keptBody{payload: "film", body: closer{func() {}}, at: 4 << 20})
	for _, c := range []struct{ first, want int64 }{{25 << 20, 20 << 20}, {12 << 20, 4 << 20}} {
		if b, ok := two.take("film", c.first); !ok || b.at != c.want {
			t.Errorf("take(film, %d) = %d, %v; want the body at %d", c.first, b.at, ok, c.want)
		}
	}
}

// closer is an io.ReadCloser that reads nothing and calls close when closed.
type closer struct{ close func() }

func (c closer) Read([]byte) (int, error) { return 0, io.EOF }
func (c closer) Close() error             { c.close(); return nil }

// videoArchive returns an index of one capture of a video of size random bytes
// (stored whole, as webkeep stores a video), its file counting the bytes read, and
// the video.
func videoArchive(b *testing.B, size int) (*Index, *countingReaderAt, File, []byte) {
	body := make([]byte, size)
	rand.NewChaCha8([32]byte{7}).Read(body)
	ix, file := archive(b, warc.V11, []exchange{
		{at: "20240101000000", method: "GET", url: "http://example.com/film.webm", resp: ok200("video/webm", string(body))},
	})
	ix.MaxBody = 1 << 30
	src := &countingReaderAt{r: bytes.NewReader(file)}
	return ix, src, NewFile(src, int64(len(file))), body
}

// Playing a 64 MiB capture through in open ranges, as a player does: the bytes read
// from the file for each byte played (1 when each range reads on from the last).
func BenchmarkServeRangesPlayThrough(b *testing.B) {
	ix, src, f, body := videoArchive(b, 64<<20)
	req := &Request{Method: "GET", URL: "http://example.com/film.webm", Header: httpmsg.Header{}}
	b.SetBytes(int64(len(body)))
	b.ResetTimer()
	requests := 0
	for b.Loop() {
		for at := int64(0); at < int64(len(body)); requests++ {
			req.Header.Set("Range", "bytes="+strconv.FormatInt(at, 10)+"-")
			rec := httptest.NewRecorder()
			if a, err := ix.Serve(nethttp.ResponseWriter(rec), req, "", f); err != nil || a.Status != 206 {
				b.Fatalf("bytes=%d-: %d %v", at, a.Status, err)
			}
			at += int64(rec.Body.Len())
		}
	}
	b.ReportMetric(float64(src.n.Load())/float64(b.N)/float64(len(body)), "read/played")
	b.ReportMetric(float64(requests)/float64(b.N), "requests")
}

// Seeks in a 64 MiB capture, as a player makes them: open ranges at eight places
// back and forth, each answered with RangeChunk. The time and the bytes read
// from the file for each seek.
func BenchmarkServeRangesSeek(b *testing.B) {
	const mib = 1 << 20
	ix, src, f, _ := videoArchive(b, 64*mib)
	req := &Request{Method: "GET", URL: "http://example.com/film.webm", Header: httpmsg.Header{}}
	seeks := []int64{60 * mib, 5 * mib, 40 * mib, 20 * mib, 55 * mib, 10 * mib, 30 * mib, 2 * mib}
	b.ResetTimer()
	for b.Loop() {
		for _, at := range seeks {
			req.Header.Set("Range", "bytes="+strconv.FormatInt(at, 10)+"-")
			rec := httptest.NewRecorder()
			if a, err := ix.Serve(nethttp.ResponseWriter(rec), req, "", f); err != nil || a.Status != 206 {
				b.Fatalf("bytes=%d-: %d %v", at, a.Status, err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e6/float64(b.N*len(seeks)), "ms/seek")
	b.ReportMetric(float64(src.n.Load())/float64(b.N*len(seeks))/mib, "MiB-read/seek")
}
