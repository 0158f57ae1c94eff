package cdx

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/warc"
)

// noise returns n pseudo-random (incompressible) bytes.
func noise(n int, seed uint32) []byte {
	b := make([]byte, n)
	for i := range b {
		seed ^= seed << 13
		seed ^= seed >> 17
		seed ^= seed << 5
		b[i] = byte(seed)
	}
	return b
}

// bigWARC writes request/response pairs with incompressible payloads of the given
// sizes; a payload of size -1 is a small gzip WARC file (a member that inflates
// to a WARC record) between 300,000 and 100,000 random bytes, which a deflate
// encoder stores as it is.
func bigWARC(t *testing.T, v warc.Version, sizes ...int) []byte {
	t.Helper()
	var inner bytes.Buffer
	iw := warc.NewWriter(&inner, warc.WriterOptions{Version: warc.V11, Gzip: true})
	iw.WriteRecord(&warc.Record{Type: warc.TypeResource, TargetURI: "http://inner.example/", ContentType: "text/plain",
		Block: bytes.NewReader([]byte("inner")), BlockLength: 5})
	var buf bytes.Buffer
	n := 0
	w := warc.NewWriter(&buf, warc.WriterOptions{Version: v, Gzip: true, NewID: func() string { n++; return "urn:uuid:" + strconv.Itoa(n) }})
	for i, size := range sizes {
		var payload []byte
		if size < 0 {
			payload = append(append(noise(300000, 1), inner.Bytes()...), noise(100000, 2)...)
		} else {
			payload = noise(size, uint32(i+3))
		}
		url := fmt.Sprintf("http://example.com/%d", i)
		req := "GET /" + strconv.Itoa(i) + " HTTP/1.1\r\nHost: example.com\r\n\r\n"
		if i%2 == 1 {
			req = "POST /" + strconv.Itoa(i) + " HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 3\r\n\r\na=" + strconv.Itoa(i%10)
		}
		resp := append([]byte("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n\r\n"), payload...)
		date := time.Date(2024, 1, 1, 0, 0, i, 0, time.UTC)
		ri, err := w.WriteRecord(&warc.Record{Type: warc.TypeRequest, TargetURI: url, Date: date, ContentType: "application/http;msgtype=request",
			Block: bytes.NewReader([]byte(req)), BlockLength: int64(len(req))})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.WriteRecord(&warc.Record{Type: warc.TypeResponse, TargetURI: url, Date: date, ContentType: "application/http;msgtype=response",
			Header: warc.Header{{Name: warc.FieldRelatedRecordID, Value: ri.ID}}, Block: bytes.NewReader(resp), BlockLength: int64(len(resp))}); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// indexWith indexes data with the given number of workers.
func indexWith(t *testing.T, data []byte, workers int) (string, []error) {
	t.Helper()
	var out bytes.Buffer
	var problems []error
	w := NewWriter(&out, Pywb267)
	ix := &Indexer{Workers: workers, Problems: func(err error) { problems = append(problems, err) }}
	if err := ix.Index(bytes.NewReader(data), "big.warc.gz", w.Write); err != nil {
		t.Fatal(err)
	}
	w.Close()
	return out.String(), problems
}

// TestIndexParallel: indexing a file in sections at once gives the index of
// indexing it record by record, damage and false member starts included.
func TestIndexParallel(t *testing.T) {
	sizes := []int{700000, 10, 500000, 2000, 900000, 30, 600000, 100}
	for _, v := range []warc.Version{warc.V09, warc.V11} {
		data := bigWARC(t, v, sizes...)
		want, problems := indexWith(t, data, 1)
		if len(problems) > 0 || len(want) == 0 {
			t.Fatalf("%v: serial index: %v", v, problems)
		}
		if c, ok := nextMember(bytes.NewReader(data), int64(len(data)), int64(len(data))/3); !ok || c <= int64(len(data))/3 {
			t.Fatalf("%v: no member start found after a third of the file", v)
		}
		for _, workers := range []int{2, 3, 4} {
			if got, problems := indexWith(t, data, workers); got != want || len(problems) > 0 {
				t.Errorf("%v, %d workers: index differs (%v):\n%s\nwant\n%s", v, workers, problems, got, want)
			}
		}
		// Damage in the second half: the file is indexed again serially, which
		// reports it once.
		bad := bytes.Clone(data)
		at := recordOffsets(t, data)[12] // the request of the 7th pair, after 3/4 of the file
		if at < int64(len(data))*3/4 {
			t.Fatalf("record 12 at %d", at)
		}
		copy(bad[at:], "no gzip member here")
		want, wantProblems := indexWith(t, bad, 1)
		got, problems := indexWith(t, bad, 2)
		if len(wantProblems) != 1 || got != want || fmt.Sprint(problems) != fmt.Sprint(wantProblems) {
			t.Errorf("%v damaged: %v, want %v; index\n%s\nwant\n%s", v, problems, wantProblems, got, want)
		}
	}
	// A gzip WARC file stored inside a record's block looks like a member start
	// (sizes put it just after the middle of the file): the section before it
	// then ends inside a member, and the file is indexed serially.
	data := bigWARC(t, warc.V11, 1100000, 20, -1, 20, 1000000)
	mid := int64(len(data)) / 2
	c, ok := nextMember(bytes.NewReader(data), int64(len(data)), mid)
	starts := map[int64]bool{}
	for _, off := range recordOffsets(t, data) {
		starts[off] = true
	}
	if !ok || starts[c] {
		t.Fatalf("the first member start after the middle (%d, %v) is a record's", c, ok)
	}
	want, _ := indexWith(t, data, 1)
	if got, problems := indexWith(t, data, 2); got != want || len(problems) > 0 {
		t.Errorf("false member start: index differs (%v):\n%s\nwant\n%s", problems, got, want)
	}
}

// recordOffsets returns the offsets of the records of a file.
func recordOffsets(t *testing.T, data []byte) []int64 {
	t.Helper()
	r, err := warc.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var offs []int64
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return offs
		}
		if err != nil {
			t.Fatal(err)
		}
		offs = append(offs, rec.Offset)
	}
}
