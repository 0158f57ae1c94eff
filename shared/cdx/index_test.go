package cdx

import (
	"bytes"
	"compress/gzip"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/warc"
)

// testWARC writes a warcinfo record, a form POST (request then response, the
// response pointing at the request), and a GET response, and returns the file
// with the written records' infos.
func testWARC(t testing.TB, v warc.Version, gz bool) ([]byte, []warc.RecordInfo) {
	var buf bytes.Buffer
	w := warc.NewWriter(&buf, warc.WriterOptions{Version: v, Gzip: gz})
	date := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	body := "a=1&b=x+y%26z"
	reqBlock := "POST /form?q=1 HTTP/1.1\r\nHost: example.com\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: " +
		strconv.Itoa(len(body)) + "\r\n\r\n" + body
	respBlock := "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: 5\r\n\r\nhello"
	recs := []*warc.Record{
		{Type: warc.TypeWarcinfo, TargetURI: "filedesc:test.warc", ContentType: "application/warc-fields", Block: strings.NewReader("software: test\r\n"), BlockLength: 16},
		{Type: warc.TypeRequest, ID: "urn:uuid:req-1", TargetURI: "http://www.example.com/form?q=1", ContentType: "application/http; msgtype=request", Block: strings.NewReader(reqBlock), BlockLength: int64(len(reqBlock))},
		{Type: warc.TypeResponse, ID: "urn:uuid:resp-1", TargetURI: "http://www.example.com/form?q=1", ContentType: "application/http; msgtype=response", Block: strings.NewReader(respBlock), BlockLength: int64(len(respBlock)),
			Header: warc.Header{{Name: warc.FieldRelatedRecordID, Value: "urn:uuid:req-1"}}},
		{Type: warc.TypeResponse, ID: "urn:uuid:resp-2", TargetURI: "https://example.org/", ContentType: "application/http; msgtype=response", Block: strings.NewReader(respBlock), BlockLength: int64(len(respBlock))},
	}
	var infos []warc.RecordInfo
	for _, r := range recs {
		r.Date = date
		info, err := w.WriteRecord(r)
		if err != nil {
			t.Fatal(err)
		}
		infos = append(infos, info)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), infos
}

func TestIndex(t *testing.T) {
	// base32(SHA-1("hello")), the payload digest pywb computes; the key as surt
	// 0.3.1 computes it for the URL with the appended query (measured).
	const digest = "VL2MMHO4YXUKFWV63YHTWSBM3GXKSQ2N"
	for _, tc := range []struct {
		v  warc.Version
		gz bool
	}{{warc.V11, true}, {warc.V11, false}, {warc.V09, true}, {warc.V09, false}} {
		t.Run(tc.v.String()+map[bool]string{true: ".gz", false: ""}[tc.gz], func(t *testing.T) {
			data, infos := testWARC(t, tc.v, tc.gz)
			var out bytes.Buffer
			w := NewWriter(&out, Pywb267)
			if err := (&Indexer{}).Index(bytes.NewReader(data), "test.warc", w.Write); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			off := func(i int) string { return strconv.FormatInt(infos[i].Offset, 10) }
			ln := func(i int) string {
				end := int64(len(data))
				if i+1 < len(infos) {
					end = infos[i+1].Offset
				}
				if !tc.gz {
					// warcio counts a plain record without the CRLF CRLF after it.
					end -= 4
				}
				return strconv.FormatInt(end-infos[i].Offset, 10)
			}
			want := `com,example)/form?__wb_method=post&a=1&b=x%20y&q=1&z 20240506070809 {"url": "http://www.example.com/form?q=1", "mime": "text/html", "status": "200", "digest": "` + digest + `", "length": "` + ln(2) + `", "offset": "` + off(2) + `", "method": "POST", "requestBody": "a=1&b=x y&z", "filename": "test.warc"}
org,example)/ 20240506070809 {"url": "https://example.org/", "mime": "text/html", "status": "200", "digest": "` + digest + `", "length": "` + ln(3) + `", "offset": "` + off(3) + `", "filename": "test.warc"}
`
			if out.String() != want {
				t.Errorf("got\n%s\nwant\n%s", out.String(), want)
			}
		})
	}
}

func TestAppendLineDialects(t *testing.T) {
	e := Entry{URLKey: "com,example)/", Timestamp: "20240101000000", URL: "http://example.com/é", Mime: "text/html",
		Status: "200", Digest: "-", Length: 10, Offset: 0, Method: "POST", RequestBody: "a=\"é\"\n", Filename: "f.warc.gz"}
	got := string(e.AppendLine(nil, Pywb267))
	// json.dumps of an OrderedDict, as pywb's CDXJ writer does it.
	want := `com,example)/ 20240101000000 {"url": "http://example.com/\u00e9", "mime": "text/html", "status": "200", "length": "10", "offset": "0", "method": "POST", "requestBody": "a=\"\u00e9\"\n", "filename": "f.warc.gz"}` + "\n"
	if got != want {
		t.Errorf("pywb 2.6.7:\n got  %s\n want %s", got, want)
	}
	got = string(e.AppendLine(nil, Pywb28))
	// JSON.stringify, as warcio.js's cdx-index writes it.
	want = `com,example)/ 20240101000000 {"url":"http://example.com/é","mime":"text/html","status":"200","length":"10","offset":"0","filename":"f.warc.gz","method":"POST","requestBody":"a=\"é\"\n"}` + "\n"
	if got != want {
		t.Errorf("pywb 2.8:\n got  %s\n want %s", got, want)
	}
}

// TestTimestamp14 checks the index's timestamp against time's own formatting
// of pywb's layout, in and out of the four-digit years, from other zones.
func TestTimestamp14(t *testing.T) {
	for _, s := range []int64{0, 1, -1, 86399, 1700000000, 253402300799, 253402300800, -62135596800, -62135596801, 1 << 40} {
		for _, loc := range []*time.Location{time.UTC, time.FixedZone("east", 5*3600+7*60), time.FixedZone("west", -11*3600)} {
			tm := time.Unix(s, 999).In(loc)
			if got, want := timestamp14(tm), tm.UTC().Format("20060102150405"); got != want {
				t.Errorf("timestamp14(%v) = %q, want %q", tm, got, want)
			}
		}
	}
	if got := timestamp14(time.Time{}); got != "00010101000000" {
		t.Errorf("timestamp14(zero) = %q", got)
	}
}

// TestIndexReportsWhatPywbStopsAt: records pywb's indexer stops at (a response
// without WARC-Target-URI, a record without WARC-Date) are reported with their
// offsets and left out; the records around them are indexed.
func TestIndexReportsWhatPywbStopsAt(t *testing.T) {
	rec := func(fields string, block string) string {
		return "WARC/1.1\r\nWARC-Type: resource\r\n" + fields + "Content-Type: text/plain\r\nContent-Length: " +
			strconv.Itoa(len(block)) + "\r\n\r\n" + block + "\r\n\r\n"
	}
	good := rec("WARC-Record-ID: <urn:uuid:1>\r\nWARC-Date: 2024-01-02T03:04:05Z\r\nWARC-Target-URI: http://example.com/a\r\n", "a")
	noURI := strings.Replace(rec("WARC-Record-ID: <urn:uuid:2>\r\nWARC-Date: 2024-01-02T03:04:05Z\r\n", "HTTP/1.1 200 OK\r\n\r\n"), "resource", "response", 1)
	noDate := rec("WARC-Record-ID: <urn:uuid:3>\r\nWARC-Target-URI: http://example.com/c\r\n", "c")
	last := rec("WARC-Record-ID: <urn:uuid:4>\r\nWARC-Date: 2024-01-02T03:04:05Z\r\nWARC-Target-URI: http://example.com/d\r\n", "d")
	file := good + noURI + noDate + last
	var problems []string
	var keys []string
	ix := &Indexer{Problems: func(err error) { problems = append(problems, err.Error()) }}
	if err := ix.Index(strings.NewReader(file), "f.warc", func(e *Entry) error {
		keys = append(keys, e.URLKey)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"com,example)/a", "com,example)/d"}; !slices.Equal(keys, want) {
		t.Errorf("indexed %q, want %q", keys, want)
	}
	wantProblems := []string{
		"f.warc: record at " + strconv.Itoa(len(good)) + ": response record without WARC-Target-URI, not indexed",
		"f.warc: record at " + strconv.Itoa(len(good+noURI)) + ": resource record without a usable WARC-Date, not indexed",
	}
	if !slices.Equal(problems, wantProblems) {
		t.Errorf("problems:\n%q\nwant\n%q", problems, wantProblems)
	}
}

// TestIndexRefusesWholeFileGzip: a WARC gzipped whole, not record by record, has no
// offsets to index; pywb's indexer refuses it, and so does Index, naming the file.
func TestIndexRefusesWholeFileGzip(t *testing.T) {
	data, _ := testWARC(t, warc.V11, false)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(data)
	zw.Close()
	var n int
	err := (&Indexer{}).Index(bytes.NewReader(gz.Bytes()), "whole.warc.gz", func(*Entry) error { n++; return nil })
	if err == nil || !strings.Contains(err.Error(), "whole.warc.gz: record at 0:") || !strings.Contains(err.Error(), "record by record") {
		t.Errorf("err = %v, want the file refused", err)
	}
	if n != 0 {
		t.Errorf("%d entries for a file without record offsets", n)
	}
}
