package main

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/warc"
)

// searchWARC writes a WARC of pages for the search tests: an HTML page, the same
// words gzip-encoded and chunked, a POST answered with JSON, an image, a page in
// Japanese.
func searchWARC(t *testing.T, dir string, gz bool) (string, map[string]int64) {
	t.Helper()
	var zbuf bytes.Buffer
	zw := gzip.NewWriter(&zbuf)
	zw.Write([]byte("<html><head><title>Lakes</title></head><body><p>Boats on the lake of Zürich</p></body></html>"))
	zw.Close()
	chunked := "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n" +
		strconv.FormatInt(int64(zbuf.Len()), 16) + "\r\n" + zbuf.String() + "\r\n0\r\n\r\n"
	records := []struct {
		typ, uri, id, related, block string
	}{
		{warc.TypeResponse, "https://zuerich.example/", "urn:uuid:1", "",
			"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<html><head><title>Zürich, the city</title><script>var zurich=1</script></head><body><h1>Welcome to Zürich</h1><p>The city on the lake.</p></body></html>"},
		{warc.TypeResponse, "https://lakes.example/boats", "urn:uuid:2", "", chunked},
		{warc.TypeRequest, "https://api.example/search", "urn:uuid:3", "urn:uuid:4", "POST /search HTTP/1.1\r\nHost: api.example\r\n\r\nq=zurich"},
		{warc.TypeResponse, "https://api.example/search", "urn:uuid:4", "", "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\n\r\n{\"result\":\"Zurich weather: sunny\",\"id\":7}"},
		{warc.TypeResponse, "https://img.example/zurich.png", "urn:uuid:5", "", "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n\r\nZurich\x89PNG"},
		{warc.TypeResponse, "https://tokyo.example/", "urn:uuid:6", "", "HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\n\r\n<title>東京都庁</title><p>東京都庁の展望室</p>"},
	}
	name := "pages.warc"
	if gz {
		name += ".gz"
	}
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := warc.NewWriter(f, warc.WriterOptions{Version: warc.V11, Gzip: gz})
	offsets := map[string]int64{}
	for i, r := range records {
		rec := &warc.Record{Type: r.typ, TargetURI: r.uri, ID: r.id, ContentType: "application/http; msgtype=" + r.typ,
			Date: time.Date(2024, 1, 2+i, 3, 4, 5, 0, time.UTC), Block: strings.NewReader(r.block), BlockLength: int64(len(r.block))}
		if r.related != "" {
			rec.Header = warc.Header{{Name: warc.FieldRelatedRecordID, Value: r.related}}
		}
		info, err := w.WriteRecord(rec)
		if err != nil {
			t.Fatal(err)
		}
		offsets[r.uri] = info.Offset
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path, offsets
}

func runSearchCmd(t *testing.T, args ...string) ([]searchLine, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"search"}, args...), &out, &errb)
	var lines []searchLine
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if l == "" {
			continue
		}
		var sl searchLine
		if err := json.Unmarshal([]byte(l), &sl); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		lines = append(lines, sl)
	}
	return lines, errb.String(), code
}

func TestSearchCommand(t *testing.T) {
	dir := t.TempDir()
	path, offsets := searchWARC(t, dir, true)
	lines, stderr, code := runSearchCmd(t, path, "zurich")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var urls []string
	for _, l := range lines {
		urls = append(urls, l.URL)
	}
	// The page with Zürich in its title and text first; the image not at all.
	want := []string{"https://zuerich.example/", "https://api.example/search", "https://lakes.example/boats"}
	if strings.Join(urls, " ") != strings.Join(want, " ") {
		t.Fatalf("urls %q, want %q", urls, want)
	}
	first := lines[0]
	if first.Title != "Zürich, the city" || first.TS != "20240102030405" || first.File != path || first.Offset != offsets[first.URL] ||
		first.Snippet != "Welcome to «Zürich» The city on the lake." {
		t.Errorf("first line %+v", first)
	}
	if lines[2].Snippet != "Boats on the lake of «Zürich»" {
		t.Errorf("gzip, chunked page: %+v", lines[2])
	}

	for _, tt := range []struct {
		args []string
		urls []string
		code int
	}{
		{[]string{path, "--limit", "1", "zurich"}, []string{"https://zuerich.example/"}, 0},
		{[]string{"--limit=1", path, "zurich -lake"}, []string{"https://api.example/search"}, 0},
		{[]string{path, "--", "-lake", "zurich"}, []string{"https://api.example/search"}, 0},
		{[]string{path, "zurich method:post"}, []string{"https://api.example/search"}, 0},
		{[]string{path, "東京都 status:404"}, []string{"https://tokyo.example/"}, 0},
		{[]string{path, `"lake of zurich"`}, []string{"https://lakes.example/boats"}, 0},
		{[]string{path, "zurich from:2024-01-03 to:2024-01-04"}, []string{"https://lakes.example/boats"}, 0},
		{[]string{path, "png"}, nil, 1},
		{[]string{path, "nowhere"}, nil, 1},
		{[]string{path, `"unclosed`}, nil, 2},
		{[]string{path, "colour:red"}, nil, 2},
		{[]string{path}, nil, 2},
		{[]string{"zurich"}, nil, 2},
		{[]string{path, "--limit", "x", "zurich"}, nil, 2},
		{[]string{filepath.Join(dir, "missing.warc"), "zurich"}, nil, 1},
	} {
		lines, stderr, code := runSearchCmd(t, tt.args...)
		var urls []string
		for _, l := range lines {
			urls = append(urls, l.URL)
		}
		if code != tt.code || strings.Join(urls, " ") != strings.Join(tt.urls, " ") {
			t.Errorf("%q: exit %d, %q; want exit %d, %q\n%s", tt.args, code, urls, tt.code, tt.urls, stderr)
		}
	}
}

// TestSearchWACZ: the WARC files in a WACZ are searched, named by the WACZ and
// their path in it; plain and gzip WARCs both.
func TestSearchWACZ(t *testing.T) {
	dir := t.TempDir()
	plain, offsets := searchWARC(t, dir, false)
	data, err := os.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	waczPath := filepath.Join(dir, "pages.wacz")
	f, err := os.Create(waczPath)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	w, _ := zw.CreateHeader(&zip.FileHeader{Name: "archive/data.warc", Method: zip.Store})
	w.Write(data)
	w, _ = zw.Create("pages/pages.jsonl")
	w.Write([]byte(`{"format":"json-pages-1.0"}` + "\n"))
	zw.Close()
	f.Close()
	lines, stderr, code := runSearchCmd(t, waczPath, "city")
	if code != 0 || len(lines) != 1 {
		t.Fatalf("exit %d, %+v: %s", code, lines, stderr)
	}
	if l := lines[0]; l.File != waczPath+"#archive/data.warc" || l.Offset != offsets[l.URL] || l.URL != "https://zuerich.example/" {
		t.Errorf("%+v", l)
	}
}
