package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webkeep/webkeep/shared/warc"
)

// writeWARC writes two records (a request and its response) and returns the path.
func writeWARC(t *testing.T, name string, opts warc.WriterOptions) (string, []warc.RecordInfo) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := warc.NewWriter(f, opts)
	req := "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n"
	resp := "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi"
	var infos []warc.RecordInfo
	for _, r := range []*warc.Record{
		{Type: warc.TypeRequest, TargetURI: "http://example.com/", ID: "urn:uuid:req", ContentType: "message/http", Block: strings.NewReader(req), BlockLength: int64(len(req))},
		{Type: warc.TypeResponse, TargetURI: "http://example.com/", ID: "urn:uuid:resp", ContentType: "message/http", Header: warc.Header{{Name: warc.FieldRelatedRecordID, Value: "urn:uuid:req"}}, Block: strings.NewReader(resp), BlockLength: int64(len(resp))},
	} {
		info, err := w.WriteRecord(r)
		if err != nil {
			t.Fatal(err)
		}
		infos = append(infos, info)
	}
	return path, infos
}

func TestWARCLs(t *testing.T) {
	path, infos := writeWARC(t, "a.warc.gz", warc.WriterOptions{Version: warc.V09, Gzip: true})
	var out, errb bytes.Buffer
	if code := runWARC([]string{"ls", path}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%q", out.String())
	}
	for i, l := range lines {
		var got lsLine
		if err := json.Unmarshal([]byte(l), &got); err != nil {
			t.Fatal(err)
		}
		if got.Offset != infos[i].Offset || got.Length != infos[i].Length || got.Version != "0.9" || got.ID != infos[i].ID {
			t.Errorf("line %d: %+v, want %+v", i, got, infos[i])
		}
	}
}

func TestWARCCat(t *testing.T) {
	path, infos := writeWARC(t, "a.warc.gz", warc.WriterOptions{Version: warc.V11, Gzip: true})
	var out, errb bytes.Buffer
	if code := runWARC([]string{"cat", path, "--offset", itoa(infos[1].Offset)}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if s := out.String(); !strings.HasPrefix(s, "WARC/1.1\r\nWARC-Type: response\r\n") || !strings.HasSuffix(s, "\r\n\r\nhi\r\n\r\n") {
		t.Errorf("%q", s)
	}
	if code := runWARC([]string{"cat", path, "--offset", "5"}, &out, &errb); code != 1 {
		t.Errorf("bad offset: exit %d", code)
	}
}

func itoa(n int64) string { return jsonNum(n) }

func jsonNum(n int64) string { b, _ := json.Marshal(n); return string(b) }

func TestWARCVerifyConvert(t *testing.T) {
	path, _ := writeWARC(t, "a.warc", warc.WriterOptions{Version: warc.V09})
	dir := t.TempDir()
	out11, out09 := filepath.Join(dir, "b.warc.gz"), filepath.Join(dir, "c.warc")
	var out, errb bytes.Buffer
	for _, args := range [][]string{
		{"verify", path},
		{"convert", "--to", "1.1", path, out11},
		{"verify", out11},
		{"convert", "--to", "0.9", out11, out09},
	} {
		if code := runWARC(args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s %s", args, code, out.String(), errb.String())
		}
	}
	a, _ := os.ReadFile(path)
	c, _ := os.ReadFile(out09)
	if !bytes.Equal(a, c) {
		t.Errorf("0.9 -> 1.1 -> 0.9 differs")
	}
	// A damaged copy: verify reports it and exits 1.
	bad := bytes.Replace(a, []byte("hi\r\n\r\n"), []byte("ho\r\n\r\n"), 1)
	badPath := filepath.Join(dir, "bad.warc")
	os.WriteFile(badPath, bad, 0o644)
	out.Reset()
	if code := runWARC([]string{"verify", badPath}, &out, &errb); code != 1 || !strings.Contains(out.String(), "digest mismatch") {
		t.Errorf("exit %d: %s", code, out.String())
	}
}

func TestWARCUsage(t *testing.T) {
	var out, errb bytes.Buffer
	for _, tt := range []struct {
		args []string
		code int
	}{{nil, 2}, {[]string{"-h"}, 0}, {[]string{"nope"}, 2}, {[]string{"ls"}, 2}, {[]string{"ls", "-h"}, 0},
		{[]string{"convert", "--to", "2.0", "a", "b"}, 2}, {[]string{"ls", "/does/not/exist"}, 1}} {
		if code := runWARC(tt.args, &out, &errb); code != tt.code {
			t.Errorf("%v: exit %d, want %d", tt.args, code, tt.code)
		}
	}
}

// warc convert --to 1.1 writes a segmented record whole, as replay tools need it,
// unless --keep-segments asks for the segments.
func TestWARCConvertJoinsSegments(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "seg.warc")
	f, err := os.Create(src)
	if err != nil {
		t.Fatal(err)
	}
	block := bytes.Repeat([]byte("0123456789"), 300)
	w := warc.NewWriter(f, warc.WriterOptions{Version: warc.V09, MaxBuffer: 1000})
	// A reader that cannot be read twice is written as segments.
	if _, err := w.WriteRecord(&warc.Record{Type: warc.TypeResource, TargetURI: "http://x/", ContentType: "text/plain",
		Block: io.MultiReader(bytes.NewReader(block)), BlockLength: int64(len(block))}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	f.Close()
	for _, tc := range []struct {
		flags []string
		types string
	}{
		{nil, "resource"},
		{[]string{"--keep-segments"}, "resource continuation continuation"},
	} {
		out := filepath.Join(dir, "out.warc")
		var o, e bytes.Buffer
		if code := runWARC(append(append([]string{"convert", "--to", "1.1"}, tc.flags...), src, out), &o, &e); code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.flags, code, e.String())
		}
		data, _ := os.ReadFile(out)
		rd, err := warc.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		var types []string
		var got []byte
		for {
			rec, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			types = append(types, rec.Type)
			b, _ := io.ReadAll(rec.Block)
			got = append(got, b...)
		}
		if strings.Join(types, " ") != tc.types || !bytes.Equal(got, block) {
			t.Errorf("%v: records %v, %d bytes of block", tc.flags, types, len(got))
		}
	}
}
