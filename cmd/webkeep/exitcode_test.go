package main

import (
	"bytes"
	"compress/gzip"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/warc"
)

// badInputs writes, into dir, files that are not WARCs or are broken ones, and
// returns their paths with the file offset where each goes wrong.
func badInputs(t *testing.T, dir string) map[string]int64 {
	t.Helper()
	files := map[string]int64{}
	write := func(name string, data []byte, off int64) {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		files[path] = off
	}
	// Random bytes: nothing in them is a record.
	random := make([]byte, 3000)
	rand.New(rand.NewSource(18)).Read(random)
	write("random.warc", random, 0)

	// A gzip WARC whose second member is cut short.
	var gz bytes.Buffer
	w := warc.NewWriter(&gz, warc.WriterOptions{Version: warc.V11, Gzip: true})
	var infos []warc.RecordInfo
	for _, u := range []string{"http://example.com/a", "http://example.com/b"} {
		block := "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n" + strings.Repeat("x", 4000)
		info, err := w.WriteRecord(&warc.Record{Type: warc.TypeResponse, TargetURI: u, Date: time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC),
			ContentType: "application/http; msgtype=response", Block: strings.NewReader(block), BlockLength: int64(len(block))})
		if err != nil {
			t.Fatal(err)
		}
		infos = append(infos, info)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	write("truncated.warc.gz", gz.Bytes()[:infos[1].Offset+(int64(gz.Len())-infos[1].Offset)/2], infos[1].Offset)
	// Cut in its gzip trailer only: the block is whole, the member is not.
	write("trailer.warc.gz", gz.Bytes()[:gz.Len()-4], infos[1].Offset)

	// A good record, then one with a negative Content-Length.
	good := "WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:1>\r\nWARC-Date: 2024-01-02T03:04:05Z\r\n" +
		"WARC-Target-URI: http://example.com/r\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok\r\n\r\n"
	bad := "WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:2>\r\nWARC-Date: 2024-01-02T03:04:05Z\r\n" +
		"WARC-Target-URI: http://example.com/n\r\nContent-Type: text/plain\r\nContent-Length: -5\r\n\r\nhello\r\n\r\n"
	write("negative.warc", []byte(good+bad), int64(len(good)))
	return files
}

// TestExitCodesOnBadWARCs runs every subcommand that reads WARC files on files that
// are not WARCs (random bytes), a truncated gzip and a negative length: each exits
// 1 and says on standard error which file is bad and at what offset, whatever
// part of the file it could still use.
func TestExitCodesOnBadWARCs(t *testing.T) {
	dir := t.TempDir()
	files := badInputs(t, dir)
	commands := []struct {
		name string
		args func(file string, off int64) []string
	}{
		{"cdx index", func(f string, _ int64) []string { return []string{"cdx", "index", f} }},
		{"cdx index serial", func(f string, _ int64) []string { return []string{"cdx", "index", "--workers", "1", f} }},
		{"warc ls", func(f string, _ int64) []string { return []string{"warc", "ls", f} }},
		{"warc cat", func(f string, off int64) []string {
			return []string{"warc", "cat", f, "--offset", strconv.FormatInt(off, 10)}
		}},
		{"warc verify", func(f string, _ int64) []string { return []string{"warc", "verify", f} }},
		{"warc convert", func(f string, _ int64) []string {
			return []string{"warc", "convert", "--to", "0.9", f, filepath.Join(dir, "out.warc.gz")}
		}},
		{"wacz create", func(f string, _ int64) []string {
			return []string{"wacz", "create", "-o", filepath.Join(dir, "out.wacz"), f}
		}},
	}
	for _, c := range commands {
		for file, off := range files {
			t.Run(c.name+"/"+filepath.Base(file), func(t *testing.T) {
				var stdout, stderr bytes.Buffer
				code := run(c.args(file, off), &stdout, &stderr)
				if code != 1 {
					t.Errorf("exit %d, want 1; stderr:\n%s", code, stderr.String())
				}
				msg := stderr.String()
				if !strings.Contains(msg, filepath.Base(file)) {
					t.Errorf("stderr does not name the file:\n%s", msg)
				}
				o := strconv.FormatInt(off, 10)
				if !strings.Contains(msg, "bytes "+o+"-") && !strings.Contains(msg, "offset "+o) && !strings.Contains(msg, " at "+o) {
					t.Errorf("stderr does not name offset %d:\n%s", off, msg)
				}
			})
		}
	}
}

// TestExitCodesOnWholeFileGzip: a WARC gzipped whole has no record offsets to index:
// cdx index and wacz create refuse it with exit 1, naming the file.
func TestExitCodesOnWholeFileGzip(t *testing.T) {
	dir := t.TempDir()
	plain := "WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:1>\r\nWARC-Date: 2024-01-02T03:04:05Z\r\n" +
		"WARC-Target-URI: http://example.com/r\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok\r\n\r\n"
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(plain + strings.Replace(plain, "uuid:1", "uuid:2", 1)))
	zw.Close()
	file := filepath.Join(dir, "whole.warc.gz")
	if err := os.WriteFile(file, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"cdx", "index", file}, {"wacz", "create", "-o", filepath.Join(dir, "o.wacz"), file}} {
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "whole.warc.gz") ||
			!strings.Contains(stderr.String(), "record by record") {
			t.Errorf("webkeep %s: exit %d; stderr:\n%s", strings.Join(args, " "), code, stderr.String())
		}
	}
}

// TestExitCodesUsage: every command exits 2 on a usage error (missing arguments,
// unknown subcommand or flag) and 0 on -h.
func TestExitCodesUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int
	}{
		{nil, 2},
		{[]string{"nope"}, 2},
		{[]string{"-h"}, 0},
		{[]string{"warc"}, 2},
		{[]string{"warc", "nope"}, 2},
		{[]string{"warc", "ls"}, 2},
		{[]string{"warc", "ls", "--bogus", "x"}, 2},
		{[]string{"warc", "cat", "a", "b"}, 2},
		{[]string{"warc", "verify"}, 2},
		{[]string{"warc", "convert", "--to", "2.0", "a", "b"}, 2},
		{[]string{"warc", "convert", "--to", "1.1", "a"}, 2},
		{[]string{"warc", "ls", "-h"}, 0},
		{[]string{"cdx"}, 2},
		{[]string{"cdx", "index"}, 2},
		{[]string{"cdx", "index", "--workers", "-1", "x"}, 2},
		{[]string{"cdx", "index", "--dialect", "nope", "x"}, 2},
		{[]string{"cdx", "encode", "extra"}, 2},
		{[]string{"cdx", "index", "-h"}, 0},
		{[]string{"wacz"}, 2},
		{[]string{"wacz", "create"}, 2},
		{[]string{"wacz", "create", "-o", "x.zip", "a.warc"}, 2},
		{[]string{"urldb", "nope"}, 2},
		{[]string{"urldb", "--bogus"}, 2},
		{[]string{"datatxt"}, 2},
		{[]string{"datatxt", "list"}, 2},
		{[]string{"rules"}, 2},
		{[]string{"rules", "match"}, 2},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(tc.args, &stdout, &stderr); code != tc.want {
			t.Errorf("webkeep %s: exit %d, want %d; stderr:\n%s", strings.Join(tc.args, " "), code, tc.want, stderr.String())
		}
	}
}

// TestExitCodesOnBadFiles: the commands that read other files (rules, URL
// databases, data.txt) exit 1 on bad ones and name the file and line.
func TestExitCodesOnBadFiles(t *testing.T) {
	dir := t.TempDir()
	rules := filepath.Join(dir, "bad.rules")
	if err := os.WriteFile(rules, []byte("\x00\x01 nonsense {\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "db")
	if err := os.Mkdir(db, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(db, "example.com.yaml"), []byte("_path: [unclosed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want []string // in stderr
	}{
		{[]string{"rules", "check", "--rules", rules}, []string{"bad.rules:1:"}},
		{[]string{"rules", "match", "--rules", rules, "http://example.com/"}, []string{"bad.rules:1:"}},
		{[]string{"urldb", "--db", db, "dump-urls"}, []string{"example.com.yaml:1"}},
		{[]string{"urldb", "--db", filepath.Join(dir, "missing"), "dump-urls"}, []string{"missing"}},
		{[]string{"datatxt", "list", "--file", filepath.Join(dir, "missing.txt")}, []string{"missing.txt"}},
		{[]string{"cdx", "index", filepath.Join(dir, "missing.warc")}, []string{"missing.warc"}},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, &stdout, &stderr)
		if code != 1 {
			t.Errorf("webkeep %s: exit %d, want 1; stderr:\n%s", strings.Join(tc.args, " "), code, stderr.String())
		}
		for _, w := range tc.want {
			if !strings.Contains(stderr.String(), w) {
				t.Errorf("webkeep %s: stderr does not say %q:\n%s", strings.Join(tc.args, " "), w, stderr.String())
			}
		}
	}
}
