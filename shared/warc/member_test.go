package warc

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// httpRecords returns a response with a long compressible body, a GET request
// (its block is only an HTTP header) and a resource (not HTTP).
func httpRecords() []*Record {
	body := strings.Repeat("archive replay index payload ", 400)
	resp := "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
	req := "GET /a HTTP/1.1\r\nHost: example.com\r\n\r\n"
	date := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	return []*Record{
		{Type: TypeResponse, ID: "urn:uuid:r1", TargetURI: "http://example.com/a", Date: date, ContentType: "application/http; msgtype=response", Block: strings.NewReader(resp), BlockLength: int64(len(resp))},
		{Type: TypeRequest, ID: "urn:uuid:q1", TargetURI: "http://example.com/a", Date: date, ContentType: "application/http; msgtype=request", Block: strings.NewReader(req), BlockLength: int64(len(req))},
		{Type: TypeResource, ID: "urn:uuid:s1", TargetURI: "http://example.com/t", Date: date, ContentType: "text/plain", Block: strings.NewReader(body), BlockLength: int64(len(body))},
	}
}

// TestStoredHead: each member opens with its record's head in stored deflate
// blocks (the header, and the HTTP header of an HTTP block), then compressed
// blocks, and the standard library's gzip reader inflates it to the record.
func TestStoredHead(t *testing.T) {
	for _, v := range []Version{V09, V11} {
		recs := httpRecords()
		file, infos := writeAll(t, WriterOptions{Version: v, Gzip: true}, recs...)
		for i, info := range infos {
			m := file[info.Offset : info.Offset+info.Length]
			zr, err := gzip.NewReader(bytes.NewReader(m))
			if err != nil {
				t.Fatal(err)
			}
			zr.Multistream(false)
			whole, err := io.ReadAll(zr)
			if err != nil {
				t.Fatalf("%v record %d: stdlib gzip: %v", v, i, err)
			}
			extra, at, ok := parseGzipHeader(m)
			c, u, slOK := parseSL(extra)
			if !ok || !slOK || int(c) != len(m) || int(u) != len(whole) {
				t.Fatalf("%v record %d: header ok=%v sl=%v %d/%d, member %d/%d", v, i, ok, slOK, c, u, len(m), len(whole))
			}
			got, _ := io.ReadAll(&storedReader{p: m[at:]})
			wantHead := whole[:bytes.Index(whole, crlf2)+4]
			if isHTTP(recs[i].ContentType) {
				rest := whole[len(wantHead):]
				wantHead = whole[:len(wantHead)+bytes.Index(rest, crlf2)+4]
			}
			// The compressor may store a short rest too: the head is at least there.
			if len(got) < len(wantHead) || !bytes.HasPrefix(whole, got) {
				t.Errorf("%v record %d: stored head\n%q\nwant\n%q", v, i, got, wantHead)
			}
			if i == 0 && len(m) >= len(whole)/2 {
				t.Errorf("%v record %d: the rest is not compressed: member %d bytes, record %d", v, i, len(m), len(whole))
			}
		}
	}
}

// TestLazyReadsStoredHeadOnly: a lazy Reader reads headers and HTTP headers of
// members whose compressed part is broken without meeting the damage, because
// it never inflates that part; reading a block through does meet it.
func TestLazyReadsStoredHeadOnly(t *testing.T) {
	file, infos := writeAll(t, WriterOptions{Version: V09, Gzip: true}, httpRecords()...)
	bad := bytes.Clone(file)
	for _, info := range infos[:1] {
		end := info.Offset + info.Length
		for i := end - 40; i < end-20; i++ {
			bad[i] ^= 0x5a
		}
	}
	r, err := NewReader(bytes.NewReader(bad))
	if err != nil {
		t.Fatal(err)
	}
	r.Lazy(true)
	rec, err := r.Next()
	if err != nil || rec.ID != "urn:uuid:r1" {
		t.Fatalf("%v %v", rec, err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(rec.Block), nil)
	if err != nil || resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/html" {
		t.Fatalf("HTTP header from the stored head: %v %v", resp, err)
	}
	for _, id := range []string{"urn:uuid:q1", "urn:uuid:s1"} {
		if rec, err = r.Next(); err != nil || rec.ID != id {
			t.Fatalf("next after a skipped broken member: %v %v", rec, err)
		}
	}
	// Read through, the same file shows its damage.
	r, _ = NewReader(bytes.NewReader(bad))
	r.Lazy(true)
	rec, _ = r.Next()
	if _, err := io.ReadAll(rec.Block); err == nil {
		t.Error("reading the broken block through: no error")
	}
}
