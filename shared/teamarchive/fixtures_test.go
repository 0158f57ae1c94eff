package teamarchive

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/cdx"
	"github.com/webkeep/webkeep/shared/warc"
)

// samplePages are the captures of the fixtures: one of each shape a CDX match type
// tells apart. Their keys, as surt 0.3.1 computes them, are in TestServerCDX.
var samplePages = []struct {
	method, url, body string
	month             time.Month
}{
	{"GET", "http://example.com/", "", 1},
	{"GET", "http://example.com/page?b=2&a=1", "", 2},
	{"GET", "http://www.example.com/about/", "", 3},
	{"GET", "https://sub.example.com/x", "", 4},
	{"POST", "http://example.com/api", "a=1&b=2", 5},
	{"GET", "http://example.org/", "", 6},
}

// sampleWARC writes the sample pages as captured in year: a warcinfo record, then a
// request and a response for each page (WARC 0.9, per-record gzip, as the extension
// writes).
func sampleWARC(t testing.TB, year int, filename string) []byte {
	t.Helper()
	var buf bytes.Buffer
	n := 0
	w := warc.NewWriter(&buf, warc.WriterOptions{Version: warc.V09, Gzip: true})
	write := func(r *warc.Record) string {
		n++
		r.ID = "urn:uuid:00000000-0000-4000-8000-" + strconv.Itoa(100000000000+year*1000+n)
		if _, err := w.WriteRecord(r); err != nil {
			t.Fatal(err)
		}
		return r.ID
	}
	info := "software: webkeep teamarchive fixtures\r\n"
	write(&warc.Record{Type: warc.TypeWarcinfo, TargetURI: "filedesc:" + filename, Date: time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC),
		ContentType: "application/warc-fields", Block: strings.NewReader(info), BlockLength: int64(len(info))})
	for _, p := range samplePages {
		date := time.Date(year, p.month, 2, 3, 4, 5, 0, time.UTC)
		host, path, _ := strings.Cut(strings.SplitN(p.url, "://", 2)[1], "/")
		req := p.method + " /" + path + " HTTP/1.1\r\nHost: " + host + "\r\n"
		if p.body != "" {
			req += "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: " + strconv.Itoa(len(p.body)) + "\r\n"
		}
		req += "\r\n" + p.body
		payload := "<p>" + p.url + " in " + strconv.Itoa(year) + "</p>"
		resp := "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: " + strconv.Itoa(len(payload)) + "\r\n\r\n" + payload
		reqID := write(&warc.Record{Type: warc.TypeRequest, TargetURI: p.url, Date: date, ContentType: "application/http; msgtype=request",
			Block: strings.NewReader(req), BlockLength: int64(len(req))})
		write(&warc.Record{Type: warc.TypeResponse, TargetURI: p.url, Date: date, ContentType: "application/http; msgtype=response",
			Header: warc.Header{{Name: warc.FieldRelatedRecordID, Value: reqID}}, Block: strings.NewReader(resp), BlockLength: int64(len(resp))})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// sampleBundle lays a WARC out as shared/capture's Session.WriteBundle does.
// Without index, the bundle has no .cdxj and the server must index the WARC itself.
func sampleBundle(t testing.TB, data []byte, withIndex bool) []byte {
	t.Helper()
	const base = "webkeep-sample"
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	mod := time.Date(2024, 7, 1, 0, 0, 0, 0, time.UTC)
	add := func(name string, method uint16, b []byte) {
		f, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: method, Modified: mod})
		if err != nil {
			t.Fatal(err)
		}
		f.Write(b)
	}
	add(base+".warc.gz", zip.Store, data)
	if withIndex {
		add(base+".cdxj", zip.Deflate, indexOf(t, data, base+".warc.gz"))
	}
	add("pages.jsonl", zip.Deflate, []byte(`{"url": "http://example.com/", "ts": "20240102030405"}`+"\n"))
	add("report.json", zip.Deflate, []byte(`{"session": {"id": "sample"}}`+"\n"))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func indexOf(t testing.TB, data []byte, filename string) []byte {
	t.Helper()
	var index bytes.Buffer
	cw := cdx.NewWriter(&index, cdx.Pywb267)
	if err := (&cdx.Indexer{}).Index(bytes.NewReader(data), filename, cw.Write); err != nil {
		t.Fatal(err)
	}
	if err := cw.Close(); err != nil {
		t.Fatal(err)
	}
	return index.Bytes()
}

// bundleWARC returns the WARC inside the committed sample bundle.
func bundleWARC(t testing.TB) []byte {
	t.Helper()
	b := readTestdata(t, "sample-bundle.zip")
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := zr.Open("webkeep-sample.warc.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestTestdata writes the fixtures when asked; otherwise it checks that the
// committed bundle's index is the one shared/cdx computes from its WARC. (The
// bytes are not regenerated each time: the fixtures are fixed inputs, whatever
// the WARC writer's gzip output becomes.)
func TestTestdata(t *testing.T) {
	if os.Getenv("TEAMARCHIVE_WRITE_TESTDATA") != "" {
		for name, data := range map[string][]byte{
			"sample-bundle.zip":   sampleBundle(t, sampleWARC(t, 2024, "webkeep-sample.warc.gz"), true),
			"sample-2025.warc.gz": sampleWARC(t, 2025, "sample-2025.warc.gz"),
		} {
			if err := os.WriteFile(filepath.Join("testdata", name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	b := readTestdata(t, "sample-bundle.zip")
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := zr.Open("webkeep-sample.cdxj")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(rc)
	if want := indexOf(t, bundleWARC(t), "webkeep-sample.warc.gz"); !bytes.Equal(got, want) {
		t.Errorf("the sample bundle's index\n%s\ndiffers from its WARC's\n%s", got, want)
	}
}
