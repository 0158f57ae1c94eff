package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/warc"
)

// cleanWARC writes a gzip WARC/1.1 file of n responses, each with its request, and
// returns its path and the offsets of the responses.
func cleanWARC(t *testing.T, dir string, n int) (string, []int64) {
	t.Helper()
	var buf bytes.Buffer
	w := warc.NewWriter(&buf, warc.WriterOptions{Version: warc.V11, Gzip: true})
	var offsets []int64
	for i := range n {
		u := "http://example.com/" + strconv.Itoa(i)
		date := time.Date(2024, 1, 2, 3, 4, i, 0, time.UTC)
		req := "GET /" + strconv.Itoa(i) + " HTTP/1.1\r\nHost: example.com\r\n\r\n"
		body := strings.Repeat("body "+strconv.Itoa(i)+" ", 50)
		resp := "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + body
		if _, err := w.WriteRecord(&warc.Record{Type: warc.TypeRequest, TargetURI: u, Date: date, ContentType: "application/http;msgtype=request",
			Block: strings.NewReader(req), BlockLength: int64(len(req))}); err != nil {
			t.Fatal(err)
		}
		info, err := w.WriteRecord(&warc.Record{Type: warc.TypeResponse, TargetURI: u, Date: date, ContentType: "application/http;msgtype=response",
			Block: strings.NewReader(resp), BlockLength: int64(len(resp))})
		if err != nil {
			t.Fatal(err)
		}
		offsets = append(offsets, info.Offset)
	}
	w.Close()
	name := filepath.Join(dir, "site.warc.gz")
	if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return name, offsets
}

func runOK(t *testing.T, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("webkeep %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// rewriteZip writes the WACZ in to out with the files edit changes (a nil result
// removes the file), CRCs right.
func rewriteZip(t *testing.T, in, out string, edit func(name string, data []byte) []byte) {
	t.Helper()
	zr, err := zip.OpenReader(in)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range zr.File {
		rc, _ := f.Open()
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		if data = edit(f.Name, data); data == nil {
			continue
		}
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: f.Name, Method: f.Method})
		w.Write(data)
	}
	zw.Close()
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestWACZSignAndVerify(t *testing.T) {
	dir := t.TempDir()
	src, offsets := cleanWARC(t, dir, 3)
	key, pub := filepath.Join(dir, "key.pem"), filepath.Join(dir, "pub.pem")
	out := runOK(t, "wacz", "keygen", "-o", key, "--pub", pub)
	fp := regexp.MustCompile(`fingerprint ([0-9a-f]{64})`).FindStringSubmatch(out)
	if fp == nil || !strings.Contains(out, "BEGIN PUBLIC KEY") {
		t.Fatalf("keygen printed %q", out)
	}
	if st, _ := os.Stat(key); st.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v", st.Mode().Perm())
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"wacz", "keygen", "-o", key}, &stdout, &stderr); code != 1 {
		t.Errorf("keygen over an existing key: exit %d", code)
	}

	signed := filepath.Join(dir, "signed.wacz")
	runOK(t, "wacz", "create", "-o", signed, "--key", key, src)
	for _, k := range []string{"", pub, key, fp[1]} {
		args := []string{"wacz", "verify", signed}
		if k != "" {
			args = append(args, "--key", k)
		}
		out := runOK(t, args...)
		for _, want := range []string{"ok    archive/site.warc.gz: 6 WARC records", "ok    indexes/index.cdx.gz: 3 CDXJ lines", "ok    signature: valid",
			"verified: 4 files, 6 WARC records, 3 index lines; signed by key " + fp[1] + " (ECDSA P-384)"} {
			if !strings.Contains(out, want) {
				t.Errorf("--key %q: no %q in\n%s", k, want, out)
			}
		}
	}

	// An unsigned WACZ signed afterwards.
	unsigned, resigned := filepath.Join(dir, "unsigned.wacz"), filepath.Join(dir, "resigned.wacz")
	runOK(t, "wacz", "create", "-o", unsigned, src)
	if out := runOK(t, "wacz", "verify", unsigned); !strings.Contains(out, "; not signed") {
		t.Errorf("unsigned: %s", out)
	}
	runOK(t, "wacz", "sign", "--key", key, unsigned, resigned)
	runOK(t, "wacz", "verify", "--key", pub, resigned)

	// Failures name the file, the record or line, and the field.
	other := filepath.Join(dir, "other.pem")
	runOK(t, "wacz", "keygen", "-o", other)
	tampered := filepath.Join(dir, "tampered.wacz")
	tests := []struct {
		name string
		make func() string
		args []string
		want []string
	}{
		{"another key required", func() string { return signed }, []string{"--key", other},
			[]string{"FAIL  datapackage-digest.json: signedData.publicKey: signed with key " + fp[1] + ", not with the key required"}},
		{"unsigned, a key required", func() string { return unsigned }, []string{"--key", pub},
			[]string{"FAIL  datapackage-digest.json: signedData: the WACZ is not signed"}},
		{"a WARC record changed", func() string {
			rewriteZip(t, signed, tampered, func(name string, data []byte) []byte {
				if name == "archive/site.warc.gz" {
					data = bytes.Clone(data)
					data[offsets[1]+100] ^= 0xff
				}
				return data
			})
			return tampered
		}, nil, []string{"FAIL  archive/site.warc.gz: sha256: datapackage.json says", fmt.Sprintf("FAIL  archive/site.warc.gz: record at offset %d: ", offsets[1])}},
		{"the pages removed", func() string {
			rewriteZip(t, signed, tampered, func(name string, data []byte) []byte {
				if name == "pages/pages.jsonl" {
					return nil
				}
				return data
			})
			return tampered
		}, nil, []string{"FAIL  pages/pages.jsonl: missing: listed in datapackage.json, but not in the WACZ"}},
		{"the signature changed", func() string {
			rewriteZip(t, signed, tampered, func(name string, data []byte) []byte {
				if name == "datapackage-digest.json" {
					raw := map[string]any{}
					json.Unmarshal(data, &raw)
					sd := raw["signedData"].(map[string]any)
					sig := []byte(sd["signature"].(string))
					sig[5] = map[bool]byte{true: 'B', false: 'A'}[sig[5] == 'A']
					sd["signature"] = string(sig)
					data, _ = json.Marshal(raw)
				}
				return data
			})
			return tampered
		}, nil, []string{"FAIL  datapackage-digest.json: signedData.signature: the signature does not verify with the key it names (P-384 " + fp[1] + ")"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"wacz", "verify", tt.make()}, tt.args...), &stdout, &stderr)
			if code != 1 {
				t.Fatalf("exit %d, want 1\n%s%s", code, stdout.String(), stderr.String())
			}
			for _, want := range tt.want {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("no %q in\n%s", want, stdout.String())
				}
			}
			if !strings.Contains(stdout.String(), ": FAILED: ") || !strings.Contains(stderr.String(), "webkeep wacz verify: ") {
				t.Errorf("no summary:\n%s%s", stdout.String(), stderr.String())
			}
		})
	}

	// A WACZ that does not verify is not signed (one whose signature fails is
	// signed again).
	rewriteZip(t, signed, tampered, func(name string, data []byte) []byte {
		if name == "pages/pages.jsonl" {
			return nil
		}
		return data
	})
	if code := run([]string{"wacz", "sign", "--key", key, tampered, filepath.Join(dir, "x.wacz")}, &stdout, &stderr); code != 1 {
		t.Errorf("signing a tampered WACZ: exit %d", code)
	}
}

func TestWACZVerifyUsage(t *testing.T) {
	for _, args := range [][]string{{"verify"}, {"verify", "a.wacz", "b.wacz"}, {"verify", "--key", "nonsense", "a.wacz"}, {"sign", "a.wacz", "b.wacz"}, {"keygen"}, {"verify", "--bogus", "a.wacz"}} {
		var stdout, stderr bytes.Buffer
		if code := runWACZ(args, &stdout, &stderr); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := runWACZ([]string{"verify", filepath.Join(t.TempDir(), "none.wacz")}, &stdout, &stderr); code != 1 {
		t.Errorf("a missing file: exit %d, want 1", code)
	}
	notZip := filepath.Join(t.TempDir(), "not.wacz")
	os.WriteFile(notZip, []byte("hello"), 0o644)
	if code := runWACZ([]string{"verify", notZip}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "not a readable ZIP") {
		t.Errorf("not a zip: exit %d: %s", code, stderr.String())
	}
}
