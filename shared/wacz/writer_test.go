package wacz_test

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/cdx"
	"github.com/webkeep/webkeep/shared/wacz"
	"github.com/webkeep/webkeep/shared/warc"
)

var created = time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)

// readTestdata returns the bytes of testdata/name.
func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// index returns the sorted CDXJ index of the named WARC files, as the cdx
// package computes it for pywb.
func index(t testing.TB, files map[string][]byte) []byte {
	t.Helper()
	var out bytes.Buffer
	w := cdx.NewWriter(&out, cdx.Pywb267)
	ix := &cdx.Indexer{Problems: func(err error) { t.Errorf("indexing: %v", err) }}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := ix.Index(bytes.NewReader(files[name]), name, w.Write); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func TestWriter(t *testing.T) {
	gz := readTestdata(t, "appendix-b-1.1.warc.gz")
	plain := readTestdata(t, "appendix-b-1.1.warc")
	// The first page's id is derived from its time and URL:
	// python3 -c "import hashlib; print(hashlib.sha256(b'2005-07-08T01:01:01Z http://www.archive.org/images/logo.jpg').hexdigest()[:16])"
	pages := []wacz.Page{
		{URL: "http://www.archive.org/images/logo.jpg", TS: time.Date(2005, 7, 8, 1, 1, 1, 0, time.UTC), Title: "Logo"},
		{ID: "p2", URL: "file://webserver/htdoc/images/logo.jpg", TS: time.Date(2005, 7, 10, 3, 1, 1, 500e6, time.FixedZone("", 2*3600)), Text: "a <logo> & more", Size: 6958},
	}
	tests := []struct {
		name       string
		opts       wacz.Options
		warcs      map[string][]byte
		pages      []wacz.Page
		wantBlocks int
		wantPages  []string // lines of pages.jsonl after the header
		wantHeader string
	}{{
		name:       "gzip WARC, pages, 2-line blocks",
		opts:       wacz.Options{Title: "Appendix B", Description: "The *draft's* records", Created: created, BlockLines: 2},
		warcs:      map[string][]byte{"appendix-b-1.1.warc.gz": gz},
		pages:      pages,
		wantBlocks: 3, // 6 lines
		wantHeader: `{"format":"json-pages-1.0","id":"pages","title":"All Pages","hasText":true}`,
		wantPages: []string{
			`{"id":"562e8c4a43b52b2d","url":"http://www.archive.org/images/logo.jpg","ts":"2005-07-08T01:01:01Z","title":"Logo"}`,
			`{"id":"p2","url":"file://webserver/htdoc/images/logo.jpg","ts":"2005-07-10T01:01:01.5Z","text":"a <logo> & more","size":6958}`,
		},
	}, {
		name:       "plain WARC, no pages",
		opts:       wacz.Options{Created: created},
		warcs:      map[string][]byte{"appendix-b-1.1.warc": plain},
		wantBlocks: 1,
		wantHeader: `{"format":"json-pages-1.0","id":"pages","title":"All Pages"}`,
	}, {
		name:       "two WARCs, one index, 5-line blocks",
		opts:       wacz.Options{Created: created, BlockLines: 5, Software: "test 1.0"},
		warcs:      map[string][]byte{"a.warc.gz": gz, "b.warc": plain},
		pages:      pages[:1],
		wantBlocks: 3, // 12 lines
		wantHeader: `{"format":"json-pages-1.0","id":"pages","title":"All Pages"}`,
		wantPages:  []string{`{"id":"562e8c4a43b52b2d","url":"http://www.archive.org/images/logo.jpg","ts":"2005-07-08T01:01:01Z","title":"Logo"}`},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cdxj := index(t, tt.warcs)
			build := func() []byte {
				var out bytes.Buffer
				w := wacz.NewWriter(&out, tt.opts)
				if err := w.AddIndex(cdxj); err != nil {
					t.Fatal(err)
				}
				names := make([]string, 0, len(tt.warcs))
				for name := range tt.warcs {
					names = append(names, name)
				}
				sort.Strings(names)
				for _, name := range names {
					if err := w.AddWARC(name, bytes.NewReader(tt.warcs[name])); err != nil {
						t.Fatal(err)
					}
				}
				if tt.pages != nil {
					if err := w.AddPages(tt.pages); err != nil {
						t.Fatal(err)
					}
				}
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				return out.Bytes()
			}
			data := build()
			if again := build(); !bytes.Equal(data, again) {
				t.Error("the same input gave two different files")
			}
			files := check(t, data)

			// datapackage.json: the required and recommended properties.
			var dp struct {
				Profile, WACZVersion, Title, Description, Created, Modified, Software string
				MainPageURL, MainPageDate                                             string
			}
			var raw map[string]json.RawMessage
			if err := json.Unmarshal(files[wacz.DatapackagePath], &raw); err != nil {
				t.Fatal(err)
			}
			for key, dst := range map[string]*string{
				"profile": &dp.Profile, "wacz_version": &dp.WACZVersion, "title": &dp.Title,
				"description": &dp.Description, "created": &dp.Created, "modified": &dp.Modified,
				"software": &dp.Software, "mainPageUrl": &dp.MainPageURL, "mainPageDate": &dp.MainPageDate,
			} {
				if v, ok := raw[key]; ok {
					if err := json.Unmarshal(v, dst); err != nil {
						t.Fatalf("%s: %v", key, err)
					}
				}
			}
			software := tt.opts.Software
			if software == "" {
				software = "webkeep"
			}
			want := dp
			want.Profile, want.WACZVersion, want.Title, want.Description = "data-package", "1.1.1", tt.opts.Title, tt.opts.Description
			want.Created, want.Modified, want.Software = "2024-05-06T07:08:09Z", "2024-05-06T07:08:09Z", software
			want.MainPageURL, want.MainPageDate = "", ""
			if len(tt.pages) > 0 {
				want.MainPageURL, want.MainPageDate = tt.pages[0].URL, tt.pages[0].TS.UTC().Format(time.RFC3339Nano)
			}
			if dp != want {
				t.Errorf("datapackage.json:\n got %+v\nwant %+v", dp, want)
			}

			// pages.jsonl: the header line, then the pages.
			lines := strings.Split(strings.TrimSuffix(string(files[wacz.PagesPath]), "\n"), "\n")
			if lines[0] != tt.wantHeader {
				t.Errorf("pages header:\n got %s\nwant %s", lines[0], tt.wantHeader)
			}
			if got := lines[1:]; strings.Join(got, "\n") != strings.Join(tt.wantPages, "\n") {
				t.Errorf("pages:\n got %q\nwant %q", got, tt.wantPages)
			}

			// The WARC files are stored byte for byte.
			for name, b := range tt.warcs {
				if !bytes.Equal(files[wacz.ArchiveDir+name], b) {
					t.Errorf("%s differs from its input", name)
				}
			}

			// index.idx and index.cdx.gz give back the index.
			blocks := checkZipNum(t, files)
			if blocks != tt.wantBlocks {
				t.Errorf("%d index blocks, want %d", blocks, tt.wantBlocks)
			}
			if got := unzipAll(t, files[wacz.IndexPath]); !bytes.Equal(got, cdxj) {
				t.Errorf("index.cdx.gz holds\n%s\nwant\n%s", got, cdxj)
			}
			checkOffsets(t, files)
		})
	}
}

// check reads a WACZ back with archive/zip, checks the layout, the storage
// method of each file, and every size and hash in datapackage.json and
// datapackage-digest.json, and returns the files' contents by path.
func check(t *testing.T, data []byte) map[string][]byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, f := range zr.File {
		stored := strings.HasPrefix(f.Name, wacz.ArchiveDir) || f.Name == wacz.IndexPath
		if stored != (f.Method == zip.Store) {
			t.Errorf("%s: method %d", f.Name, f.Method)
		}
		if !f.Modified.Equal(created) {
			t.Errorf("%s: modified %v, want %v", f.Name, f.Modified, created)
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		if _, dup := files[f.Name]; dup {
			t.Errorf("%s twice", f.Name)
		}
		files[f.Name] = b
	}
	for _, p := range []string{wacz.IndexPath, wacz.IndexIDXPath, wacz.PagesPath, wacz.DatapackagePath, wacz.DigestPath} {
		if _, ok := files[p]; !ok {
			t.Errorf("no %s", p)
		}
	}
	if last := zr.File[len(zr.File)-1].Name; last != wacz.DigestPath {
		t.Errorf("last file %s, want %s", last, wacz.DigestPath)
	}

	var dp struct {
		Resources []struct {
			Name, Path, Hash string
			Bytes            int64
		}
	}
	if err := json.Unmarshal(files[wacz.DatapackagePath], &dp); err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, r := range dp.Resources {
		b, ok := files[r.Path]
		switch {
		case !ok:
			t.Errorf("resource %s: no such file", r.Path)
		case listed[r.Path]:
			t.Errorf("resource %s listed twice", r.Path)
		case r.Name != strings.ToLower(path.Base(r.Path)):
			t.Errorf("resource %s: name %q", r.Path, r.Name)
		case r.Bytes != int64(len(b)):
			t.Errorf("resource %s: bytes %d, file has %d", r.Path, r.Bytes, len(b))
		case r.Hash != sha256Hex(b):
			t.Errorf("resource %s: hash %s, file's is %s", r.Path, r.Hash, sha256Hex(b))
		}
		listed[r.Path] = true
	}
	for p := range files {
		if !listed[p] && p != wacz.DatapackagePath && p != wacz.DigestPath {
			t.Errorf("%s is not listed in datapackage.json", p)
		}
	}
	var digest map[string]string
	if err := json.Unmarshal(files[wacz.DigestPath], &digest); err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"path": "datapackage.json", "hash": sha256Hex(files[wacz.DatapackagePath])}; fmt.Sprint(digest) != fmt.Sprint(want) {
		t.Errorf("datapackage-digest.json: %v, want %v", digest, want)
	}
	return files
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// checkZipNum checks that every line of index.idx names one whole gzip member of
// index.cdx.gz, with its SHA-256, whose first line begins with the line's key,
// that the members follow each other from offset 0 to the end, and returns how
// many there are. The "!meta" line is cdxj-indexer's (CompressedWriter).
func checkZipNum(t *testing.T, files map[string][]byte) int {
	t.Helper()
	cdxgz := files[wacz.IndexPath]
	lines := strings.Split(strings.TrimSuffix(string(files[wacz.IndexIDXPath]), "\n"), "\n")
	if want := `!meta 0 {"format": "cdxj-gzip-1.0", "filename": "index.cdx.gz"}`; lines[0] != want {
		t.Errorf("index.idx begins %q, want %q", lines[0], want)
	}
	next := int64(0)
	for i, line := range lines[1:] {
		brace := strings.Index(line, " {")
		key := line[:brace]
		var block struct {
			Offset, Length int64
			Digest         string
		}
		if err := json.Unmarshal([]byte(line[brace+1:]), &block); err != nil {
			t.Fatalf("index.idx line %d: %v", i+2, err)
		}
		if block.Offset != next || block.Length <= 0 || block.Offset+block.Length > int64(len(cdxgz)) {
			t.Fatalf("index.idx line %d: block at %d+%d, want at %d in %d bytes", i+2, block.Offset, block.Length, next, len(cdxgz))
		}
		member := cdxgz[block.Offset : block.Offset+block.Length]
		if got := sha256Hex(member); block.Digest != got {
			t.Errorf("index.idx line %d: digest %s, block's is %s", i+2, block.Digest, got)
		}
		zr, err := gzip.NewReader(bytes.NewReader(member))
		if err != nil {
			t.Fatal(err)
		}
		zr.Multistream(false)
		text, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("index.idx line %d: block: %v", i+2, err)
		}
		if !strings.HasPrefix(string(text), key+" {") || strings.Count(key, " ") != 1 {
			t.Errorf("index.idx line %d: key %q, block begins %.80q", i+2, key, text)
		}
		next += block.Length
	}
	if next != int64(len(cdxgz)) {
		t.Errorf("blocks end at %d, index.cdx.gz has %d bytes", next, len(cdxgz))
	}
	return len(lines) - 1
}

func unzipAll(t *testing.T, b []byte) []byte {
	t.Helper()
	if len(b) == 0 {
		return nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkOffsets checks that the offset and length of every CDXJ line delimit one
// whole record of the WARC file it names inside the WACZ, a WARC/1.1 record of
// the line's URL and time.
func checkOffsets(t *testing.T, files map[string][]byte) {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(unzipAll(t, files[wacz.IndexPath])))
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		fields := strings.SplitN(line, " ", 3)
		var e map[string]any
		if err := json.Unmarshal([]byte(fields[2]), &e); err != nil {
			t.Fatal(err)
		}
		num := func(k string) int64 { // pywb writes numbers as strings, warcio.js as numbers
			v, _ := strconv.ParseInt(fmt.Sprint(e[k]), 10, 64)
			return v
		}
		file, ok := files[wacz.ArchiveDir+fmt.Sprint(e["filename"])]
		off, length := num("offset"), num("length")
		if !ok || length <= 0 || off+length > int64(len(file)) {
			t.Errorf("line %d: %s %d+%d is outside the WACZ's WARC files", n, e["filename"], off, length)
			continue
		}
		r, err := warc.NewReader(bytes.NewReader(file[off : off+length]))
		if err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		rec, err := r.Next()
		if err != nil {
			t.Errorf("line %d: no record at %d: %v", n, off, err)
			continue
		}
		if rec.Version != warc.V11 || rec.TargetURI != e["url"] || rec.Date.Format("20060102150405") != fields[1] {
			t.Errorf("line %d: record %s %s %v at %d, want %s %s", n, rec.Version, rec.TargetURI, rec.Date, off, e["url"], fields[1])
		}
		io.Copy(io.Discard, rec.Block)
		if _, err := r.Next(); err != io.EOF {
			t.Errorf("line %d: %d+%d holds more than one record (%v)", n, off, length, err)
		}
	}
	if n == 0 {
		t.Error("empty index")
	}
}

// failingReader returns its data, then an error.
type failingReader struct {
	data []byte
	err  error
}

func (r *failingReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestErrors(t *testing.T) {
	gz := readTestdata(t, "appendix-b-1.1.warc.gz")
	plain := readTestdata(t, "appendix-b-1.1.warc")
	big := bigWARC(t, 300<<10)
	cdxj := index(t, map[string][]byte{"a.warc.gz": gz})
	lines := strings.SplitAfter(string(cdxj), "\n")
	ts := time.Date(2005, 7, 8, 1, 1, 1, 0, time.UTC)
	warcA := func(w *wacz.Writer) error { return w.AddWARC("a.warc.gz", bytes.NewReader(gz)) }
	indexA := func(w *wacz.Writer) error { return w.AddIndex(cdxj) }
	addIndex := func(s string) func(w *wacz.Writer) error {
		return func(w *wacz.Writer) error { return w.AddIndex([]byte(s)) }
	}
	addWARC := func(name string, data []byte) func(w *wacz.Writer) error {
		return func(w *wacz.Writer) error { return w.AddWARC(name, bytes.NewReader(data)) }
	}
	closeW := func(w *wacz.Writer) error { return w.Close() }
	tests := []struct {
		name   string
		steps  []func(*wacz.Writer) error
		want   error
		substr string
		sticky bool // the writer is broken afterwards
	}{
		{"name with a slash", []func(*wacz.Writer) error{addWARC("x/a.warc.gz", gz)}, wacz.ErrName, `"x/a.warc.gz"`, false},
		{"name with ..", []func(*wacz.Writer) error{addWARC("../a.warc.gz", gz)}, wacz.ErrName, "", false},
		{"name with a space", []func(*wacz.Writer) error{addWARC("a b.warc.gz", gz)}, wacz.ErrName, "", false},
		{"name not .warc", []func(*wacz.Writer) error{addWARC("a.warc.gzip", gz)}, wacz.ErrName, "", false},
		{"hidden name", []func(*wacz.Writer) error{addWARC(".warc", plain)}, wacz.ErrName, "", false},
		{"WARC 0.9", []func(*wacz.Writer) error{addWARC("old.warc.gz", readTestdata(t, "appendix-b-0.9.warc.gz"))}, wacz.ErrWARC, "archive/old.warc.gz: WARC 0.9", false},
		{"gzip named .warc", []func(*wacz.Writer) error{addWARC("a.warc", gz)}, wacz.ErrWARC, "gzip data in a file not named .warc.gz", false},
		{"plain named .warc.gz", []func(*wacz.Writer) error{addWARC("a.warc.gz", plain)}, wacz.ErrWARC, "not gzip data", false},
		{"not a WARC", []func(*wacz.Writer) error{addWARC("a.warc", []byte("<html>hello</html>"))}, wacz.ErrWARC, `begins with "<html>hell"`, false},
		{"empty file", []func(*wacz.Writer) error{addWARC("a.warc", nil)}, wacz.ErrWARC, "empty file", false},
		{"corrupt gzip", []func(*wacz.Writer) error{addWARC("a.warc.gz", append(gz[:12:12], bytes.Repeat([]byte{0xff}, 40)...))}, wacz.ErrWARC, "first gzip member", false},
		{"same WARC twice", []func(*wacz.Writer) error{warcA, warcA}, wacz.ErrDuplicate, "archive/a.warc.gz", false},
		{"index twice", []func(*wacz.Writer) error{indexA, indexA}, wacz.ErrDuplicate, "indexes/index.cdx.gz", false},
		{"pages twice", []func(*wacz.Writer) error{
			func(w *wacz.Writer) error { return w.AddPages(nil) },
			func(w *wacz.Writer) error { return w.AddPages(nil) },
		}, wacz.ErrDuplicate, "pages/pages.jsonl", false},
		{"index not sorted", []func(*wacz.Writer) error{addIndex(lines[1] + lines[0])}, wacz.ErrIndex, "line 2: not sorted", false},
		{"index without timestamp", []func(*wacz.Writer) error{addIndex(`com,example)/ {"filename": "a.warc.gz"}`)}, wacz.ErrIndex, "line 1: cdx: not a CDXJ line (urlkey timestamp {json}): timestamp", false},
		{"index with a letter in the timestamp", []func(*wacz.Writer) error{addIndex(lines[0] + `com,example)/ 2024010100000x {"filename": "a.warc.gz"}`)}, wacz.ErrIndex, "line 2: cdx: not a CDXJ line (urlkey timestamp {json}): timestamp", false},
		{"index with bad JSON", []func(*wacz.Writer) error{addIndex(`com,example)/ 20240101000000 {"filename": a}`)}, wacz.ErrIndex, "line 1: cdx: not a CDXJ line (urlkey timestamp {json}): its fields are not a JSON object", false},
		{"index without filename", []func(*wacz.Writer) error{addIndex(`com,example)/ 20240101000000 {"url": "http://example.com/"}`)}, wacz.ErrIndex, `line 1: no "filename"`, false},
		{"index names a missing WARC", []func(*wacz.Writer) error{addWARC("b.warc.gz", gz), indexA, closeW}, wacz.ErrIndex, `line 1: filename "a.warc.gz" is not a file under archive/`, true},
		{"page without url", []func(*wacz.Writer) error{
			func(w *wacz.Writer) error { return w.AddPages([]wacz.Page{{URL: "http://a/", TS: ts}, {TS: ts}}) },
		}, wacz.ErrPage, "page 2: no url", false},
		{"page without ts", []func(*wacz.Writer) error{
			func(w *wacz.Writer) error { return w.AddPages([]wacz.Page{{URL: "http://a/"}}) },
		}, wacz.ErrPage, "page 1 (http://a/): no ts", false},
		{"no WARC", []func(*wacz.Writer) error{indexA, closeW}, wacz.ErrIncomplete, "no WARC file", true},
		{"no index", []func(*wacz.Writer) error{warcA, closeW}, wacz.ErrIncomplete, "no index", true},
		{"add after close", []func(*wacz.Writer) error{warcA, indexA, closeW, warcA}, wacz.ErrClosed, "", true},
		{"reader fails before the look-ahead is full", []func(*wacz.Writer) error{func(w *wacz.Writer) error {
			return w.AddWARC("a.warc.gz", &failingReader{data: gz, err: errors.New("disk gone")})
		}}, nil, "wacz: archive/a.warc.gz: disk gone", false},
		{"reader fails while copying", []func(*wacz.Writer) error{func(w *wacz.Writer) error {
			return w.AddWARC("big.warc.gz", &failingReader{data: big[:200000], err: errors.New("disk gone")})
		}}, nil, "wacz: archive/big.warc.gz: at byte 200000: disk gone", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := wacz.NewWriter(io.Discard, wacz.Options{})
			var err error
			for i, step := range tt.steps {
				if err = step(w); err != nil && i < len(tt.steps)-1 {
					t.Fatalf("step %d: %v", i+1, err)
				}
			}
			if err == nil || tt.want != nil && !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.substr) {
				t.Fatalf("error %v, want %v containing %q", err, tt.want, tt.substr)
			}
			// A refused input leaves the writer usable; a failure in the middle
			// of the output, or Close, does not.
			err = w.AddWARC("z.warc.gz", bytes.NewReader(gz))
			if tt.sticky == (err == nil) {
				t.Errorf("AddWARC after the error: %v", err)
			}
		})
	}
}

// TestRefusedInputLeavesWriterUsable adds a bad WARC, a bad index and bad pages,
// then good ones, and gets a valid WACZ.
func TestRefusedInputLeavesWriterUsable(t *testing.T) {
	gz := readTestdata(t, "appendix-b-1.1.warc.gz")
	cdxj := index(t, map[string][]byte{"a.warc.gz": gz})
	var out bytes.Buffer
	w := wacz.NewWriter(&out, wacz.Options{Created: created})
	if err := w.AddWARC("a.warc.gz", bytes.NewReader(readTestdata(t, "appendix-b-0.9.warc.gz"))); !errors.Is(err, wacz.ErrWARC) {
		t.Fatal(err)
	}
	if err := w.AddIndex([]byte("x")); !errors.Is(err, wacz.ErrIndex) {
		t.Fatal(err)
	}
	if err := w.AddPages([]wacz.Page{{}}); !errors.Is(err, wacz.ErrPage) {
		t.Fatal(err)
	}
	if err := w.AddWARC("a.warc.gz", bytes.NewReader(gz)); err != nil {
		t.Fatal(err)
	}
	if err := w.AddIndex(cdxj); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files := check(t, out.Bytes())
	checkZipNum(t, files)
	checkOffsets(t, files)
}

// TestLargeWARC writes a WARC whose first gzip member is larger than the
// Writer's look-ahead, and one whose records are incompressible.
func TestLargeWARC(t *testing.T) {
	for _, size := range []int{100 << 10, 3 << 20} {
		data := bigWARC(t, size)
		var out bytes.Buffer
		w := wacz.NewWriter(&out, wacz.Options{Created: created})
		if err := w.AddWARC("big.warc.gz", bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		if err := w.AddIndex(index(t, map[string][]byte{"big.warc.gz": data})); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		files := check(t, out.Bytes())
		checkOffsets(t, files)
	}
}

// bigWARC returns a gzip WARC/1.1 file of one response with size bytes of
// pseudo-random (incompressible) payload, then a small one.
func bigWARC(t testing.TB, size int) []byte {
	t.Helper()
	var file bytes.Buffer
	w := warc.NewWriter(&file, warc.WriterOptions{Version: warc.V11, Gzip: true})
	payload := make([]byte, size)
	x := uint32(1)
	for i := range payload {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		payload[i] = byte(x)
	}
	for i, body := range [][]byte{payload, []byte("small")} {
		block := append([]byte("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n\r\n"), body...)
		_, err := w.WriteRecord(&warc.Record{
			Type:        warc.TypeResponse,
			TargetURI:   fmt.Sprintf("http://example.com/%d", i),
			Date:        created,
			ContentType: "application/http;msgtype=response",
			Block:       bytes.NewReader(block),
			BlockLength: int64(len(block)),
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return file.Bytes()
}

// TestIndexFilename checks that the filename of each CDXJ line is found however
// the JSON spells it, and that a line whose file is not in the WACZ is refused.
func TestIndexFilename(t *testing.T) {
	gz := readTestdata(t, "appendix-b-1.1.warc.gz")
	tests := []struct {
		json string
		ok   bool
	}{
		{`{"url": "http://a/", "filename": "a.warc.gz"}`, true},
		{`{"filename":"a.warc.gz","url":"http://a/"}`, true},
		{"{\"filename\"\t:  \"a.warc.gz\"}", true},
		{`{"filename": "a\u002ewarc.gz"}`, true},                                 // an escape: decoded
		{`{"filename": "b.warc.gz", "note": "filename"}`, false},                 // the last "filename" is a value
		{`{"filename": "a.warc.gz", "url": "x\"filename\": \"b.warc.gz"}`, true}, // quoted inside a string
		{`{"url": "x\"filename\": \"a.warc.gz", "filename": "b.warc.gz"}`, false},
		{`{"filename": "a.warc.gz", "filename": "b.warc.gz"}`, false}, // the last wins, as in encoding/json
	}
	for _, tt := range tests {
		w := wacz.NewWriter(io.Discard, wacz.Options{})
		if err := w.AddWARC("a.warc.gz", bytes.NewReader(gz)); err != nil {
			t.Fatal(err)
		}
		if err := w.AddIndex([]byte("com,a)/ 20240101000000 " + tt.json + "\n")); err != nil {
			t.Fatalf("%s: %v", tt.json, err)
		}
		err := w.Close()
		if tt.ok != (err == nil) || err != nil && !strings.Contains(err.Error(), `filename "b.warc.gz" is not a file under archive/`) {
			t.Errorf("%s: Close: %v", tt.json, err)
		}
	}
}
