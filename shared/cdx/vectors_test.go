package cdx

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/webkeep/webkeep/shared/httpmsg"
	"github.com/webkeep/webkeep/shared/warc"
)

// requestVector is one line of testdata/pywb-requests.jsonl. The expected
// values were computed by running pywb 2.6.7's MethodQueryCanonicalizer
// (pywb/warcserver/inputrequest.py at tag v-2.6.7; want_url, want_body) and
// pywb 2.8.4's (want_url_28, want_body_28) under CPython 3.11.7, with
// Py3AMF 0.8.10 for AMF bodies; see testdata/README.md.
type requestVector struct {
	Name       string      `json:"name"`
	Method     string      `json:"method"`
	URL        string      `json:"url"`
	Headers    [][2]string `json:"headers"`
	Body       string      `json:"body_base64"`
	WantURL    string      `json:"want_url"`
	WantBody   string      `json:"want_body"`
	WantURL28  *string     `json:"want_url_28"`
	WantBody28 *string     `json:"want_body_28"`
}

func (v *requestVector) request(t testing.TB) *Request {
	body, err := base64.StdEncoding.DecodeString(v.Body)
	if err != nil {
		t.Fatal(err)
	}
	h := httpmsg.Header{}
	for _, kv := range v.Headers {
		h[kv[0]] = append(h[kv[0]], kv[1])
	}
	return &Request{Method: v.Method, URL: v.URL, Header: h, Body: body}
}

func readJSONL[T any](t testing.TB, name string) []T {
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for line := 1; sc.Scan(); line++ {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s:%d: %v", name, line, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestEncodeRequestPywbVectors(t *testing.T) {
	for _, v := range readJSONL[requestVector](t, "testdata/pywb-requests.jsonl") {
		r := v.request(t)
		url, body := EncodeRequest(r)
		if url != v.WantURL || body != v.WantBody {
			t.Errorf("%s (pywb 2.6.7):\n got  %q %q\n want %q %q", v.Name, url, body, v.WantURL, v.WantBody)
		}
		if v.WantURL28 == nil {
			// pywb 2.8.4 raised (int(inf)); our Pywb28 adds nothing.
			continue
		}
		url, body = Pywb28.EncodeRequest(r)
		if url != *v.WantURL28 || body != *v.WantBody28 {
			t.Errorf("%s (pywb 2.8.4):\n got  %q %q\n want %q %q", v.Name, url, body, *v.WantURL28, *v.WantBody28)
		}
	}
}

// surtVector is one line of testdata/surt.jsonl, computed by running
// surt.surt(url) of the surt 0.3.1 package under CPython 3.11.7; error names
// the Python exception when surt raised.
type surtVector struct {
	URL   string `json:"url"`
	Want  string `json:"want"`
	Error string `json:"error"`
}

func TestSURTVectors(t *testing.T) {
	for _, v := range readJSONL[surtVector](t, "testdata/surt.jsonl") {
		got, err := SURT(v.URL)
		if v.Error != "" {
			if err == nil && got != v.URL {
				t.Errorf("SURT(%q) = %q, want an error (%s)", v.URL, got, v.Error)
			}
			continue
		}
		if err != nil || got != v.Want {
			t.Errorf("SURT(%q) = %q, %v; want %q", v.URL, got, err, v.Want)
		}
	}
}

// pywbIndexDir holds WARC files and the index pywb 2.6.7's cdx-indexer writes
// for them (cdx-indexer --sort --cdxj --postappend, run from the v-2.6.7 tag's
// source over warcio 1.7.4 and surt 0.3.1 under CPython 3.11.7); see
// testdata/README.md.
const pywbIndexDir = "testdata/pywb-index"

// indexFile indexes data as the file named name, serially, and returns the
// sorted index in the pywb 2.6.7 dialect.
func indexFile(t *testing.T, data []byte, name string) string {
	t.Helper()
	return indexFileWith(t, &Indexer{Workers: 1}, data, name)
}

func indexFileWith(t *testing.T, ix *Indexer, data []byte, name string) string {
	t.Helper()
	var out bytes.Buffer
	w := NewWriter(&out, Pywb267)
	ix.Problems = func(err error) { t.Errorf("problem: %v", err) }
	if err := ix.Index(bytes.NewReader(data), name, w.Write); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// diffLines reports the lines of got and want that differ.
func diffLines(t *testing.T, what, got, want string) {
	t.Helper()
	if got == want {
		return
	}
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			t.Errorf("%s, line %d:\n got  %s\n want %s", what, i+1, gl, wl)
		}
	}
}

// TestIndexPywbVectors: the index of each vector file, plain and gzip, is byte for
// byte the one pywb 2.6.7 wrote for it: keys, fields, lengths and offsets.
func TestIndexPywbVectors(t *testing.T) {
	for _, name := range []string{"vectors.warc", "vectors.warc.gz", "vectors-0.9-as-1.1.warc", "vectors-0.9-as-1.1.warc.gz"} {
		t.Run(name, func(t *testing.T) {
			data := readFile(t, filepath.Join(pywbIndexDir, name))
			want := string(readFile(t, filepath.Join(pywbIndexDir, name+".cdxj")))
			diffLines(t, name, indexFile(t, data, name), want)
		})
	}
}

// TestIndexPywbVectorsUnsurt: with NonSURT the keys are pywb's with --unsurt.
func TestIndexPywbVectorsUnsurt(t *testing.T) {
	for _, name := range []string{"vectors.warc", "vectors.warc.gz"} {
		data := readFile(t, filepath.Join(pywbIndexDir, name))
		want := string(readFile(t, filepath.Join(pywbIndexDir, strings.TrimSuffix(name, ".cdxj")+".unsurt.cdxj")))
		diffLines(t, name, indexFileWith(t, &Indexer{Workers: 1, NonSURT: true}, data, name), want)
	}
}

// TestIndexPywbVectorsTrailingMember: a gzip member holding no record after the
// last one is not part of its length (warcio counts a record's own member; pywb
// 2.6.7 gives the vector file with an empty member appended the same index).
func TestIndexPywbVectorsTrailingMember(t *testing.T) {
	const name = "vectors.warc.gz"
	data := readFile(t, filepath.Join(pywbIndexDir, name))
	var empty bytes.Buffer
	zw := gzip.NewWriter(&empty)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	data = append(data, empty.Bytes()...)
	diffLines(t, name, indexFile(t, data, name), string(readFile(t, filepath.Join(pywbIndexDir, name+".cdxj"))))
}

// TestFollowPywbVectors: a Follower given the records of the gzip vector file one
// at a time, each with its whole block, emits pywb's index of the file.
func TestFollowPywbVectors(t *testing.T) {
	const name = "vectors.warc.gz"
	data := readFile(t, filepath.Join(pywbIndexDir, name))
	var out bytes.Buffer
	w := NewWriter(&out, Pywb267)
	f := (&Indexer{}).Follow(name, w.Write)
	r, err := warc.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		block, err := io.ReadAll(rec.Block)
		if err != nil {
			t.Fatal(err)
		}
		rec.Block = bytes.NewReader(block)
		if err := f.Add(rec, ""); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.End(int64(len(data))); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	diffLines(t, name, out.String(), string(readFile(t, filepath.Join(pywbIndexDir, name+".cdxj"))))
}

// writeWARC09Vectors writes the records of the gzip vector file as WARC 0.9, plain
// or gzip, with webkeep's writer: all but the resource without a URI, which 0.9
// cannot hold (pywb writes no line for it either).
func writeWARC09Vectors(t *testing.T, gz bool) []byte {
	src := readFile(t, filepath.Join(pywbIndexDir, "vectors.warc.gz"))
	var file bytes.Buffer
	w := warc.NewWriter(&file, warc.WriterOptions{Version: warc.V09, Gzip: gz})
	r, err := warc.NewReader(bytes.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.TargetURI == "" {
			continue
		}
		out := *rec
		block, err := io.ReadAll(rec.Block)
		if err != nil {
			t.Fatal(err)
		}
		out.Block = bytes.NewReader(block)
		if _, err := w.WriteRecord(&out); err != nil {
			t.Fatalf("record at %d: %v", rec.Offset, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return file.Bytes()
}

// TestWriteWARC09Vectors writes testdata/pywb-index/vectors-0.9.warc(.gz) and their
// WARC/1.1 conversions when WEBKEEP_WRITE_VECTORS is set; see testdata/README.md.
func TestWriteWARC09Vectors(t *testing.T) {
	if os.Getenv("WEBKEEP_WRITE_VECTORS") == "" {
		t.Skip("set WEBKEEP_WRITE_VECTORS=1 to write the WARC 0.9 vector files")
	}
	for _, gz := range []bool{false, true} {
		name := "vectors-0.9.warc"
		conv := "vectors-0.9-as-1.1.warc"
		if gz {
			name += ".gz"
			conv += ".gz"
		}
		data := writeWARC09Vectors(t, gz)
		if err := os.WriteFile(filepath.Join(pywbIndexDir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := warc.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		w := warc.NewWriter(&out, warc.WriterOptions{Version: warc.V11, Gzip: gz})
		if _, err := warc.Convert(w, r); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(pywbIndexDir, conv), out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// recordSpans returns the offset and pywb length of each record of a WARC file:
// its gzip member, or in a plain file its header and block.
func recordSpans(t *testing.T, data []byte) [][2]int64 {
	r, err := warc.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var spans [][2]int64
	var recs []*warc.Record
	var heads []int64
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
		heads = append(heads, int64(len(r.RawHeader())))
		spans = append(spans, [2]int64{rec.Offset, 0})
	}
	for i := range spans {
		end := int64(len(data))
		if i+1 < len(spans) {
			end = spans[i+1][0]
		}
		if !r.Gzip() {
			end = min(end, spans[i][0]+heads[i]+recs[i].BlockLength)
		}
		spans[i][1] = end - spans[i][0]
	}
	return spans
}

// TestIndexWARC09Vectors: a WARC 0.9 file is indexed as pywb 2.6.7 indexes its
// WARC/1.1 conversion (the project's rulings: no reader of today reads 0.9, and
// webkeep writes 1.1 from the same records for them): the same lines, but for the
// offsets and lengths, which are the 0.9 file's own: a gzip member, or a plain
// record's header and block without the CRLF CRLF after it.
func TestIndexWARC09Vectors(t *testing.T) {
	for _, gz := range []bool{false, true} {
		name, conv := "vectors-0.9.warc", "vectors-0.9-as-1.1.warc"
		if gz {
			name += ".gz"
			conv += ".gz"
		}
		t.Run(name, func(t *testing.T) {
			data := readFile(t, filepath.Join(pywbIndexDir, name))
			if !bytes.Equal(data, writeWARC09Vectors(t, gz)) {
				t.Logf("%s is not what webkeep's writer writes today; the vectors still hold", name)
			}
			from, to := recordSpans(t, readFile(t, filepath.Join(pywbIndexDir, conv))), recordSpans(t, data)
			if len(from) != len(to) {
				t.Fatalf("%d records in %s, %d in %s", len(from), conv, len(to), name)
			}
			offsetRE := regexp.MustCompile(`"length": "\d+", "offset": "(\d+)"`)
			var want []string
			for _, line := range strings.SplitAfter(string(readFile(t, filepath.Join(pywbIndexDir, conv+".cdxj"))), "\n") {
				if line == "" {
					continue
				}
				m := offsetRE.FindStringSubmatch(line)
				if m == nil {
					t.Fatalf("golden line without offset: %s", line)
				}
				off, _ := strconv.ParseInt(m[1], 10, 64)
				i := slices.IndexFunc(from, func(s [2]int64) bool { return s[0] == off })
				if i < 0 {
					t.Fatalf("no record at %d in %s", off, conv)
				}
				line = strings.Replace(line, m[0], fmt.Sprintf(`"length": "%d", "offset": "%d"`, to[i][1], to[i][0]), 1)
				line = strings.Replace(line, `"filename": "`+conv+`"`, `"filename": "`+name+`"`, 1)
				want = append(want, line)
			}
			slices.Sort(want)
			diffLines(t, name, indexFile(t, data, name), strings.Join(want, ""))
		})
	}
}
