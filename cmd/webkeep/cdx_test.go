package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/warc"
)

func TestCDXEncode(t *testing.T) {
	// Expected keys measured by running pywb 2.6.7's MethodQueryCanonicalizer
	// and surt 0.3.1 (see shared/cdx/testdata/README.md).
	in := `{"method":"POST","url":"http://www.example.com/a?b=1","headers":{"Content-Type":"application/json","Content-Length":"9"},"body_base64":"eyJ4IjoxLjB9"}
{"method":"GET","url":"http://example.com/","headers":{}}
{"method":"POST","url":"http://example.com/chat","headers":{"content-length":"5"},"body_base64":"aGVsbG8="}
`
	var out, errb bytes.Buffer
	if code := runCDXEncode(nil, strings.NewReader(in), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	want := `{"url":"http://www.example.com/a?b=1&__wb_method=POST&x=1.0","urlkey":"com,example)/a?__wb_method=post&b=1&x=1.0","requestBody":"x=1.0"}
{"url":"http://example.com/","urlkey":"com,example)/","requestBody":""}
{"url":"http://example.com/chat?__wb_method=POST&__wb_post_data=aGVsbG8=","urlkey":"com,example)/chat?__wb_method=post&__wb_post_data=agvsbg8=","requestBody":"__wb_post_data=aGVsbG8="}
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

func TestCDXEncodeErrors(t *testing.T) {
	var out, errb bytes.Buffer
	if code := runCDXEncode(nil, strings.NewReader("{not json\n"), &out, &errb); code != 1 {
		t.Errorf("bad line: exit %d, want 1", code)
	}
	if !strings.Contains(errb.String(), "stdin:1") {
		t.Errorf("error does not name the line: %q", errb.String())
	}
	if code := runCDXEncode([]string{"--dialect", "nope"}, strings.NewReader(""), &out, &errb); code != 2 {
		t.Errorf("bad dialect: exit %d, want 2", code)
	}
	if code := runCDX([]string{"frobnicate"}, &out, &errb); code != 2 {
		t.Errorf("unknown command: exit %d, want 2", code)
	}
	if code := runCDXIndex(nil, &out, &errb); code != 2 {
		t.Errorf("index without files: exit %d, want 2", code)
	}
	if code := runCDXIndex([]string{filepath.Join(t.TempDir(), "missing.warc")}, &out, &errb); code != 1 {
		t.Errorf("missing file: exit %d, want 1", code)
	}
}

func TestCDXIndex(t *testing.T) {
	var buf bytes.Buffer
	w := warc.NewWriter(&buf, warc.WriterOptions{Version: warc.V11, Gzip: true})
	block := "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nhello"
	for _, u := range []string{"http://b.example/", "http://a.example/"} {
		if _, err := w.WriteRecord(&warc.Record{Type: warc.TypeResponse, TargetURI: u, Date: time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC),
			ContentType: "application/http; msgtype=response", Block: strings.NewReader(block), BlockLength: int64(len(block))}); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	name := filepath.Join(t.TempDir(), "x.warc.gz")
	if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := runCDXIndex([]string{"--dialect", "pywb-2.8", name}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "example,a)/ 20240102030405 {\"url\":\"http://a.example/\"") ||
		!strings.HasPrefix(lines[1], "example,b)/ ") || !strings.Contains(lines[0], `"filename":"x.warc.gz"`) {
		t.Errorf("unsorted or malformed index:\n%s", out.String())
	}
}
