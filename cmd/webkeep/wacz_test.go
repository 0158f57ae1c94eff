package main

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/warc"
)

const (
	warc09gz = "../../shared/warc/testdata/appendix-b-0.9.warc.gz"
	warc11   = "../../shared/warc/testdata/appendix-b-1.1.warc"
	warc11gz = "../../shared/warc/testdata/appendix-b-1.1.warc.gz"
)

// readWACZ returns the files of a WACZ by path.
func readWACZ(t *testing.T, name string) map[string][]byte {
	t.Helper()
	zr, err := zip.OpenReader(name)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	files := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		files[f.Name], err = io.ReadAll(rc)
		if err != nil {
			t.Fatal(err)
		}
	}
	return files
}

func TestWACZCreate(t *testing.T) {
	dir := t.TempDir()
	pages := filepath.Join(dir, "pages.jsonl")
	os.WriteFile(pages, []byte(`{"format": "json-pages-1.0", "id": "pages", "title": "All Pages"}
{"url": "http://www.archive.org/images/logo.jpg", "ts": "2005-07-08T01:01:01Z", "title": "Logo"}

{"url": "file://webserver/htdoc/images/logo.jpg", "timestamp": "20050710010101", "id": "p2"}
`), 0o644)
	tests := []struct {
		name      string
		args      []string
		archive   []string // names under archive/
		converted string   // an archive file converted from WARC 0.9
		pages     int
		title     string
	}{
		{"0.9 converted and 1.1 plain", []string{"--title", "Appendix B", warc09gz, warc11}, []string{"appendix-b-0.9.warc.gz", "appendix-b-1.1.warc"}, "appendix-b-0.9.warc.gz", 0, "Appendix B"},
		{"1.1 gzip with pages, flags after files", []string{warc11gz, "--pages", pages}, []string{"appendix-b-1.1.warc.gz"}, "", 2, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.wacz")
			var stdout, stderr bytes.Buffer
			if code := runWACZ(append([]string{"create", "-o", out}, tt.args...), &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			if stderr.Len() > 0 {
				t.Errorf("stderr: %s", stderr.String())
			}
			files := readWACZ(t, out)
			var archive []string
			for name := range files {
				if a, ok := strings.CutPrefix(name, "archive/"); ok {
					archive = append(archive, a)
				}
			}
			if fmt.Sprint(slices.Sorted(slices.Values(archive))) != fmt.Sprint(tt.archive) {
				t.Errorf("archive/ holds %v, want %v", archive, tt.archive)
			}
			for _, a := range tt.archive {
				in := filepath.Join("../../shared/warc/testdata", a)
				if a == tt.converted {
					checkVersion(t, files["archive/"+a], warc.V11)
				} else if b, _ := os.ReadFile(in); !bytes.Equal(files["archive/"+a], b) {
					t.Errorf("archive/%s is not a copy of %s", a, in)
				}
			}
			checkIndexOffsets(t, files)

			var dp struct {
				Title       string `json:"title"`
				Version     string `json:"wacz_version"`
				MainPageURL string `json:"mainPageUrl"`
				Resources   []struct{ Path string }
			}
			if err := json.Unmarshal(files["datapackage.json"], &dp); err != nil {
				t.Fatal(err)
			}
			if dp.Title != tt.title || dp.Version != "1.1.1" || len(dp.Resources) != len(files)-2 {
				t.Errorf("datapackage.json: %+v", dp)
			}
			lines := strings.Split(strings.TrimSpace(string(files["pages/pages.jsonl"])), "\n")
			if len(lines)-1 != tt.pages {
				t.Errorf("%d pages, want %d:\n%s", len(lines)-1, tt.pages, files["pages/pages.jsonl"])
			}
			if tt.pages == 2 && (lines[2] != `{"id":"p2","url":"file://webserver/htdoc/images/logo.jpg","ts":"2005-07-10T01:01:01Z"}` || dp.MainPageURL != "http://www.archive.org/images/logo.jpg") {
				t.Errorf("pages: %s, main page %s", lines[1:], dp.MainPageURL)
			}
			want := fmt.Sprintf("%s: %d WARC files", out, len(tt.archive))
			if !strings.HasPrefix(stdout.String(), want) {
				t.Errorf("stdout %q, want %q...", stdout.String(), want)
			}
		})
	}
}

// checkVersion checks that every record of a WARC file is of version v.
func checkVersion(t *testing.T, file []byte, v warc.Version) {
	t.Helper()
	r, err := warc.NewReader(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for ; ; n++ {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.Version != v {
			t.Errorf("record %d: version %s, want %s", n, rec.Version, v)
		}
	}
	if n == 0 {
		t.Error("no records")
	}
}

// checkIndexOffsets checks that every line of the WACZ's index points at a record
// of its URL in the WARC file it names.
func checkIndexOffsets(t *testing.T, files map[string][]byte) {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(files["indexes/index.cdx.gz"]))
	if err != nil {
		t.Fatal(err)
	}
	cdxj, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(cdxj), "\n"), "\n")
	for i, line := range lines {
		var e struct{ URL, Filename, Offset, Length string }
		if err := json.Unmarshal([]byte(line[strings.Index(line, "{"):]), &e); err != nil {
			t.Fatal(err)
		}
		off, _ := strconv.ParseInt(e.Offset, 10, 64)
		n, _ := strconv.ParseInt(e.Length, 10, 64)
		file := files["archive/"+e.Filename]
		if n <= 0 || off+n > int64(len(file)) {
			t.Errorf("line %d: %s %d+%d outside the file", i+1, e.Filename, off, n)
			continue
		}
		r, err := warc.NewReader(bytes.NewReader(file[off : off+n]))
		if err != nil {
			t.Fatal(err)
		}
		rec, err := r.Next()
		if err != nil || rec.TargetURI != e.URL || rec.Version != warc.V11 {
			t.Errorf("line %d: %s at %d: %v %v", i+1, e.Filename, off, rec, err)
		}
	}
	if len(lines) < 6 {
		t.Errorf("%d index lines", len(lines))
	}
}

func TestWACZCreateErrors(t *testing.T) {
	dir := t.TempDir()
	notWARC := filepath.Join(dir, "x.warc")
	os.WriteFile(notWARC, []byte("hello"), 0o644)
	badPages := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(badPages, []byte("{\"url\": \"http://a/\", \"ts\": \"2024-01-01T00:00:00Z\"}\n{\"url\": \"http://b/\"}\n"), 0o644)
	out := filepath.Join(dir, "out.wacz")
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no subcommand", nil, 2, "usage: webkeep wacz create"},
		{"unknown subcommand", []string{"make"}, 2, `unknown subcommand "make"`},
		{"no -o", []string{"create", warc11gz}, 2, "need -o OUT.wacz"},
		{"-o not .wacz", []string{"create", "-o", filepath.Join(dir, "out.zip"), warc11gz}, 2, "need -o OUT.wacz"},
		{"no files", []string{"create", "-o", out}, 2, "need -o OUT.wacz"},
		{"bad flag", []string{"create", "--bogus", "-o", out, warc11gz}, 2, "flag provided but not defined"},
		{"bad dialect", []string{"create", "--dialect", "pywb-3", "-o", out, warc11gz}, 2, `unknown dialect "pywb-3"`},
		{"missing file", []string{"create", "-o", out, filepath.Join(dir, "none.warc")}, 1, "none.warc: no such file"},
		{"not a WARC", []string{"create", "-o", out, notWARC}, 1, "x.warc"},
		{"same name twice", []string{"create", "-o", out, warc11gz, warc11gz}, 1, "would both be archive/appendix-b-1.1.warc.gz"},
		{"page without ts", []string{"create", "-o", out, "--pages", badPages, warc11gz}, 1, "bad.jsonl:2: ts: no ts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := runWACZ(tt.args, &stdout, &stderr)
			if code != tt.code || !strings.Contains(stderr.String(), tt.msg) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr.String(), tt.code, tt.msg)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s was written", out)
			}
			if leftovers, _ := filepath.Glob(filepath.Join(dir, ".wacz-*")); len(leftovers) > 0 {
				t.Errorf("temporary files left: %v", leftovers)
			}
		})
	}
	var stdout, stderr bytes.Buffer
	if code := runWACZ([]string{"-h"}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "usage: webkeep wacz create") {
		t.Errorf("-h: exit %d, %q", code, stdout.String())
	}
	if code := runWACZ([]string{"create", "-h"}, &stdout, &stderr); code != 0 || !strings.Contains(stderr.String(), "-detect-pages") {
		t.Errorf("create -h: exit %d, %q", code, stderr.String())
	}
}

// TestWACZDetectPages writes a WARC with an HTML page, an image, a redirect and an
// HTML answer to a POST; only the page becomes a page of the WACZ, and the main
// page.
func TestWACZDetectPages(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "site.warc.gz")
	var file bytes.Buffer
	w := warc.NewWriter(&file, warc.WriterOptions{Version: warc.V11, Gzip: true})
	date := time.Date(2024, 3, 4, 5, 6, 7, 0, time.UTC)
	// The POST's response names its request (WARC-Concurrent-To), as the indexer
	// pairs them.
	for i, r := range []struct{ typ, url, block string }{
		{warc.TypeResponse, "https://example.com/", "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<html></html>"},
		{warc.TypeResponse, "https://example.com/logo.png", "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n\r\nPNG"},
		{warc.TypeResponse, "https://example.com/old", "HTTP/1.1 301 Moved\r\nContent-Type: text/html\r\nLocation: /\r\n\r\n"},
		{warc.TypeRequest, "https://example.com/form", "POST /form HTTP/1.1\r\nHost: example.com\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 3\r\n\r\na=1"},
		{warc.TypeResponse, "https://example.com/form", "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<html>thanks</html>"},
	} {
		ct := "application/http;msgtype=response"
		if r.typ == warc.TypeRequest {
			ct = "application/http;msgtype=request"
		}
		rec := &warc.Record{Type: r.typ, TargetURI: r.url, Date: date, ContentType: ct,
			ID:    fmt.Sprintf("urn:uuid:00000000-0000-4000-8000-%012d", i),
			Block: strings.NewReader(r.block), BlockLength: int64(len(r.block))}
		if i == 4 {
			rec.Header = warc.Header{{Name: warc.FieldRelatedRecordID, Value: "urn:uuid:00000000-0000-4000-8000-000000000003"}}
		}
		if _, err := w.WriteRecord(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(in, file.Bytes(), 0o644)
	for _, tt := range []struct {
		flags []string
		pages string
		main  string
	}{
		// id: python3 -c "import hashlib; print(hashlib.sha256(b'2024-03-04T05:06:07Z https://example.com/').hexdigest()[:16])"
		{nil, `{"format":"json-pages-1.0","id":"pages","title":"All Pages"}
{"id":"135f19f1c6c8d931","url":"https://example.com/","ts":"2024-03-04T05:06:07Z"}
`, "https://example.com/"},
		{[]string{"--detect-pages=false"}, `{"format":"json-pages-1.0","id":"pages","title":"All Pages"}
`, ""},
	} {
		out := filepath.Join(dir, "out.wacz")
		var stdout, stderr bytes.Buffer
		if code := runWACZ(append(append([]string{"create", "-o", out}, tt.flags...), in), &stdout, &stderr); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		files := readWACZ(t, out)
		if got := string(files["pages/pages.jsonl"]); got != tt.pages {
			t.Errorf("%v: pages.jsonl\n%s\nwant\n%s", tt.flags, got, tt.pages)
		}
		var dp struct {
			MainPageURL string `json:"mainPageUrl"`
		}
		json.Unmarshal(files["datapackage.json"], &dp)
		if dp.MainPageURL != tt.main {
			t.Errorf("%v: mainPageUrl %q, want %q", tt.flags, dp.MainPageURL, tt.main)
		}
	}
}
