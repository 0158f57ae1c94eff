package teamarchive

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// BenchmarkUpload stores and indexes the sample bundle (its own CDXJ is used).
func BenchmarkUpload(b *testing.B) {
	s, _ := newTestServer(b, Config{})
	bundle := readTestdata(b, "sample-bundle.zip")
	b.SetBytes(int64(len(bundle)))
	for i := 0; b.Loop(); i++ {
		if w := do(b, s, req{method: "PUT", path: fmt.Sprintf("/api/bundles/b%d.zip", i), token: "-", body: bundle}); w.Code != http.StatusCreated {
			b.Fatal(w.Body.String())
		}
	}
}

// BenchmarkUploadWARC indexes a bare WARC with shared/cdx on upload.
func BenchmarkUploadWARC(b *testing.B) {
	s, _ := newTestServer(b, Config{})
	data := readTestdata(b, "sample-2025.warc.gz")
	b.SetBytes(int64(len(data)))
	for i := 0; b.Loop(); i++ {
		if w := do(b, s, req{method: "PUT", path: fmt.Sprintf("/api/bundles/w%d.warc.gz", i), token: "-", body: data}); w.Code != http.StatusCreated {
			b.Fatal(w.Body.String())
		}
	}
}

// BenchmarkCDXDomain queries a domain across 200 bundles (1200 index lines).
func BenchmarkCDXDomain(b *testing.B) {
	s, _ := newTestServer(b, Config{})
	bundle := readTestdata(b, "sample-bundle.zip")
	for i := range 200 {
		do(b, s, req{method: "PUT", path: fmt.Sprintf("/api/bundles/b%03d.zip", i), token: "-", body: bundle})
	}
	for b.Loop() {
		w := do(b, s, req{method: "GET", path: "/api/cdx?url=*.example.com&limit=10000", token: "-"})
		if strings.Count(w.Body.String(), "\n") != 1000 {
			b.Fatal(w.Body.String())
		}
	}
}
