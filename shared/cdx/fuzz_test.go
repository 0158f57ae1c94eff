package cdx

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/webkeep/webkeep/shared/httpmsg"
)

// FuzzEncodeRequest checks that no body panics or hangs the encoder, that
// the output is deterministic, capped, and an extension of the URL.
func FuzzEncodeRequest(f *testing.F) {
	for _, v := range readJSONL[requestVector](f, "testdata/pywb-requests.jsonl") {
		body, _ := base64.StdEncoding.DecodeString(v.Body)
		ct := ""
		for _, kv := range v.Headers {
			if kv[0] == "Content-Type" {
				ct = kv[1]
			}
		}
		f.Add(v.Method, ct, body)
	}
	f.Fuzz(func(t *testing.T, method, ctype string, body []byte) {
		h := httpmsg.Header{"Content-Type": {ctype}, "Content-Length": {strconv.Itoa(len(body))}}
		r := &Request{Method: method, URL: "http://example.com/p", Header: h, Body: body}
		for _, d := range []Dialect{Pywb267, Pywb28} {
			u1, q1 := d.EncodeRequest(r)
			u2, q2 := d.EncodeRequest(r)
			if u1 != u2 || q1 != q2 {
				t.Fatalf("not deterministic: %q %q / %q %q", u1, q1, u2, q2)
			}
			if len([]rune(q1)) > MaxQueryLength {
				t.Fatalf("query of %d characters", len([]rune(q1)))
			}
			if len(u1) < len(r.URL) || u1[:len(r.URL)] != r.URL {
				t.Fatalf("url %q does not extend %q", u1, r.URL)
			}
		}
	})
}

// FuzzSURT checks that SURT never panics and is deterministic, and that a
// fragment never changes a key: the canonicalization drops it, so a URL with
// "#..." appended has the key of the URL without it.
func FuzzSURT(f *testing.F) {
	for _, v := range readJSONL[surtVector](f, "testdata/surt.jsonl") {
		f.Add(v.URL, "frag")
	}
	f.Fuzz(func(t *testing.T, url, fragment string) {
		k1, err1 := SURT(url)
		k2, err2 := SURT(url)
		if k1 != k2 || (err1 == nil) != (err2 == nil) {
			t.Fatalf("not deterministic: %q %v / %q %v", k1, err1, k2, err2)
		}
		if err1 != nil || url == "" || strings.ContainsRune(url, '#') || strings.TrimSpace(url) != url ||
			strings.HasPrefix(url, "filedesc") || strings.HasPrefix(url, "urn:") {
			return
		}
		k3, err3 := SURT(url + "#" + fragment)
		if err3 != nil || k3 != k1 {
			t.Fatalf("the fragment %q changed the key of %q: %q %v, without it %q", fragment, url, k3, err3, k1)
		}
	})
}

// FuzzIndex: indexing any bytes never panics or hangs, and every entry lies inside
// the file: its offset and length within the data, the length never negative.
func FuzzIndex(f *testing.F) {
	for _, name := range []string{"vectors.warc", "vectors.warc.gz", "vectors-0.9.warc", "vectors-0.9.warc.gz"} {
		data, err := os.ReadFile(filepath.Join(pywbIndexDir, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(data[:len(data)/2])
	}
	f.Add([]byte("WARC/1.1\r\nWARC-Type: response\r\nContent-Length: -5\r\n\r\n"))
	f.Add([]byte("WARC/1.0\r\nWARC-Type: request\r\nWARC-Target-URI: http://a/\r\nWARC-Date: 2024-01-01T00:00:00Z\r\n" +
		"Content-Length: 60\r\n\r\nPOST / HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 99\r\n\r\n{\"a\":1}\r\n\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ix := &Indexer{Workers: 1, Problems: func(error) {}}
		ix.Index(bytes.NewReader(data), "f", func(e *Entry) error {
			if e.Offset < 0 || e.Length < 0 || e.Offset+e.Length > int64(len(data)) {
				t.Fatalf("entry at %d, length %d, outside a file of %d bytes", e.Offset, e.Length, len(data))
			}
			return nil
		})
	})
}
