package replay

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http/httptest"
	"strconv"
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
	var cr string
	for _, h := range a.Headers {
		if h.Name == "Content-Range" {
			cr = h.Value
		}
	}
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
// reads its record once, a seek forward reads on from where the last range ended,
// and a seek back reads it again from its start, each answer the bytes recorded.
func TestServeRangesReadOn(t *testing.T) {
	const mib = 1 << 20
	body := make([]byte, 12*mib)
	rnd := rand.NewChaCha8([32]byte{7})
	rnd.Read(body) // as a video: gzip does not make it smaller
	ix, file := archive(t, warc.V11, []exchange{
		{at: "20240101000000", method: "GET", url: "http://example.com/film.webm", resp: ok200("video/webm", string(body))},
	})
	ix.MaxBody = 1 << 30
	src := &countingReaderAt{r: bytes.NewReader(file)}
	f := NewFile(src, int64(len(file)))
	ask := func(first int64) (int64, int64) {
		return askOpenRange(t, ix, f, "http://example.com/film.webm", body, first)
	}
	read := func() int64 { return src.n.Swap(0) }
	slack := int64(mib) // each answer's record header, and what the readers buffer ahead

	requests := 0
	for at := int64(0); at < int64(len(body)); requests++ {
		_, at = ask(at)
	}
	if n := read(); n > int64(len(file))+slack {
		t.Errorf("played through in %d requests, %d bytes were read of a file of %d: its start read again for each", requests, n, len(file))
	}
	// A seek back: read from the start again (the body kept at the end is no more).
	_, end := ask(2 * mib)
	if n := read(); n < 2*mib || n > 2*mib+MinRangeChunk+slack {
		t.Errorf("a seek back to 2 MiB read %d bytes", n)
	}
	// A seek forward reads on from where the last answer ended, not from the start.
	ask(9 * mib)
	if n, want := read(), 9*mib-end+MinRangeChunk; n > want+slack {
		t.Errorf("a seek forward from %d to %d read %d bytes, want about %d", end, 9*mib, n, want)
	}
}

// Bodies kept past MaxKeptBodies are closed, the one kept longest first; take finds
// a body of the payload asked for that has not read past the range.
func TestKeptBodies(t *testing.T) {
	var k keptBodies
	closed := make([]bool, MaxKeptBodies+2)
	for i := range closed {
		k.keep(fmt.Sprint("payload ", i), closer{func() { closed[i] = true }}, 100)
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
	two.keep("film", closer{func() {}}, 20<<20)
	two.keep("film", closer{func() {}}, 4<<20)
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

// Playing a 64 MiB capture through in open ranges, as a player does: the bytes read
// from the file for each byte played (1 when each range reads on from the last).
func BenchmarkServeRangesPlayThrough(b *testing.B) {
	body := make([]byte, 64<<20)
	rand.NewChaCha8([32]byte{7}).Read(body)
	ix, file := archive(b, warc.V11, []exchange{
		{at: "20240101000000", method: "GET", url: "http://example.com/film.webm", resp: ok200("video/webm", string(body))},
	})
	ix.MaxBody = 1 << 30
	src := &countingReaderAt{r: bytes.NewReader(file)}
	f := NewFile(src, int64(len(file)))
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
