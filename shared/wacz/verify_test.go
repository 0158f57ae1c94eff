//go:build !js

package wacz_test

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/cdx"
	"github.com/webkeep/webkeep/shared/wacz"
	"github.com/webkeep/webkeep/shared/waczauth"
	"github.com/webkeep/webkeep/shared/warc"
)

var signedAt = time.Date(2024, 5, 6, 8, 0, 0, 0, time.UTC)

// testWARC writes a WARC/1.1 file of n request and response pairs, each response's
// body its own, with the digests webkeep's writer adds.
func testWARC(t testing.TB, n int, gz bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	id := 0
	w := warc.NewWriter(&buf, warc.WriterOptions{Version: warc.V11, Gzip: gz, NewID: func() string { id++; return "urn:test:" + strconv.Itoa(id) }})
	for i := range n {
		u := fmt.Sprintf("https://example.org/page/%d", i)
		date := time.Date(2024, 5, 6, 7, 0, i, 0, time.UTC)
		req := "GET /page/" + strconv.Itoa(i) + " HTTP/1.1\r\nHost: example.org\r\n\r\n"
		body := strings.Repeat(fmt.Sprintf("page %d of the test archive. ", i), 20+i)
		resp := "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
		for _, r := range []*warc.Record{
			{Type: warc.TypeRequest, TargetURI: u, Date: date, ContentType: "application/http;msgtype=request", Block: strings.NewReader(req), BlockLength: int64(len(req))},
			{Type: warc.TypeResponse, TargetURI: u, Date: date, ContentType: "application/http;msgtype=response", Block: strings.NewReader(resp), BlockLength: int64(len(resp))},
		} {
			if _, err := w.WriteRecord(r); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// replayIndex is the sorted CDXJ index of the WARC files as webkeep's extension
// writes it: warcio.js dialect, responses, revisits and resources.
func replayIndex(t testing.TB, warcs map[string][]byte) []byte {
	t.Helper()
	var lines [][]byte
	for name, data := range warcs {
		ix := &cdx.Indexer{Dialect: cdx.WarcioJS}
		err := ix.Index(bytes.NewReader(data), name, func(e *cdx.Entry) error {
			if e.Type == warc.TypeResponse {
				lines = append(lines, e.AppendLine(nil, cdx.WarcioJS))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	slices.SortFunc(lines, bytes.Compare)
	return bytes.Join(lines, nil)
}

// testWACZ writes a WACZ of two WARC files (one gzip, one plain), its index in
// 2-line blocks, and pages, signed with key unless it is nil.
func testWACZ(t testing.TB, key *ecdsa.PrivateKey) []byte {
	t.Helper()
	warcs := map[string][]byte{"a.warc.gz": testWARC(t, 4, true), "b.warc": testWARC(t, 3, false)}
	return writeWACZ(t, key, warcs, replayIndex(t, warcs))
}

func writeWACZ(t testing.TB, key *ecdsa.PrivateKey, warcs map[string][]byte, index []byte) []byte {
	t.Helper()
	var a wacz.Authority
	if key != nil {
		s, err := waczauth.NewSigner(key)
		if err != nil {
			t.Fatal(err)
		}
		a = &wacz.KeyAuthority{Signer: s}
	}
	return writeWACZBy(t, a, signedAt, warcs, index)
}

// writeWACZBy writes a WACZ of warcs and index, signed by a at signed unless a is
// nil.
func writeWACZBy(t testing.TB, a wacz.Authority, signed time.Time, warcs map[string][]byte, index []byte) []byte {
	t.Helper()
	opts := wacz.Options{Title: "Signed", Created: created, BlockLines: 2, SignedAt: signed, Authority: a}
	var buf bytes.Buffer
	w := wacz.NewWriter(&buf, opts)
	names := make([]string, 0, len(warcs))
	for name := range warcs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := w.AddWARC(name, bytes.NewReader(warcs[name])); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.AddIndex(index); err != nil {
		t.Fatal(err)
	}
	if err := w.AddPages([]wacz.Page{{URL: "https://example.org/page/0", TS: time.Date(2024, 5, 6, 7, 0, 0, 0, time.UTC)}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func newKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	k, err := waczauth.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func verify(t *testing.T, data []byte, opts wacz.VerifyOptions) *wacz.Report {
	t.Helper()
	rep, err := wacz.Verify(bytes.NewReader(data), int64(len(data)), opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// zipFile is a file of a WACZ as tamper tests rewrite it.
type zipFile struct {
	name   string
	method uint16
	data   []byte
}

func unzipFiles(t testing.TB, data []byte) []zipFile {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var out []zipFile
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, zipFile{f.Name, f.Method, b})
	}
	return out
}

// rezip writes the files as a ZIP again, as a careful forger would: CRCs right.
func rezip(t testing.TB, files []zipFile) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: f.name, Method: f.method, Modified: created})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(f.data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func fileOf(t testing.TB, files []zipFile, name string) *zipFile {
	t.Helper()
	for i := range files {
		if files[i].name == name {
			return &files[i]
		}
	}
	t.Fatalf("no %s in the WACZ", name)
	return nil
}

// digestJSON returns datapackage-digest.json's fields, signedData's as a map.
func digestJSON(t testing.TB, files []zipFile) (map[string]any, map[string]any) {
	t.Helper()
	var df map[string]any
	if err := json.Unmarshal(fileOf(t, files, wacz.DigestPath).data, &df); err != nil {
		t.Fatal(err)
	}
	sd, _ := df["signedData"].(map[string]any)
	return df, sd
}

func setSignedData(t testing.TB, files []zipFile, field, value string) {
	t.Helper()
	df, sd := digestJSON(t, files)
	sd[field] = value
	df["signedData"] = sd
	b, _ := json.MarshalIndent(df, "", "  ")
	fileOf(t, files, wacz.DigestPath).data = b
}

// The signedData is exactly wacz-auth 0.1.0's anonymous form as ArchiveWeb.page
// writes it and ReplayWeb.page reads it: the hash of datapackage.json with its
// "sha256:" prefix, an ECDSA P-384 signature of that string's bytes with SHA-256 as
// r||s (96 bytes) in base64, the SPKI DER public key in base64, created, software.
func TestSignedDataFormat(t *testing.T) {
	key := newKey(t)
	files := unzipFiles(t, testWACZ(t, key))
	df, sd := digestJSON(t, files)
	sum := sha256.Sum256(fileOf(t, files, wacz.DatapackagePath).data)
	hash := "sha256:" + hex.EncodeToString(sum[:])
	if df["path"] != "datapackage.json" || df["hash"] != hash {
		t.Errorf("datapackage-digest.json: path %v, hash %v; want datapackage.json, %s", df["path"], df["hash"], hash)
	}
	var keys []string
	for k := range sd {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if want := []string{"created", "hash", "publicKey", "signature", "software"}; !slices.Equal(keys, want) {
		t.Errorf("signedData has %v, want %v", keys, want)
	}
	if sd["hash"] != hash || sd["created"] != "2024-05-06T08:00:00Z" || sd["software"] != "webkeep" {
		t.Errorf("signedData: %v", sd)
	}
	sig, err := base64.StdEncoding.DecodeString(sd["signature"].(string))
	if err != nil || len(sig) != 96 {
		t.Fatalf("signature: %d bytes, %v; want 96 (P-384 r||s)", len(sig), err)
	}
	spki, err := base64.StdEncoding.DecodeString(sd["publicKey"].(string))
	if err != nil {
		t.Fatal(err)
	}
	pub, err := wacz.ParsePublicKey(spki)
	if err != nil {
		t.Fatal(err)
	}
	if k, err := wacz.ECDSAPublicKey(pub); err != nil || !k.Equal(&key.PublicKey) || pub.Curve != "P-384" {
		t.Errorf("publicKey: %s, not the signer's (%v)", pub.Curve, err)
	}
	if err := wacz.VerifySignature(pub, []byte(hash), sig); err != nil {
		t.Error(err)
	}
}

func TestVerifySigned(t *testing.T) {
	key := newKey(t)
	data := testWACZ(t, key)
	spki, _ := wacz.MarshalPublicKey(&key.PublicKey)
	for _, opts := range []wacz.VerifyOptions{{}, {PublicKey: spki}} {
		rep := verify(t, data, opts)
		if !rep.OK() {
			t.Fatalf("an untouched signed WACZ fails: %v", rep.Problems)
		}
		if rep.Signature == nil || !rep.Signature.Valid || rep.Signature.Fingerprint != wacz.Fingerprint(spki) || rep.Signature.Curve != "P-384" ||
			rep.Signature.Created != "2024-05-06T08:00:00Z" || rep.Signature.Software != "webkeep" {
			t.Errorf("signature: %+v", rep.Signature)
		}
		// 7 pairs, 7 responses indexed in 4 blocks; 5 files (2 WARCs, the index and
		// its idx, the pages).
		if rep.Records != 14 || rep.IndexLines != 7 || rep.IndexBlocks != 4 || rep.Files != 5 {
			t.Errorf("records %d, lines %d, blocks %d, files %d; want 14, 7, 4, 5", rep.Records, rep.IndexLines, rep.IndexBlocks, rep.Files)
		}
		if len(rep.Checked) < 7 {
			t.Errorf("checked: %q", rep.Checked)
		}
	}
}

func TestVerifyUnsigned(t *testing.T) {
	data := testWACZ(t, nil)
	rep := verify(t, data, wacz.VerifyOptions{})
	if !rep.OK() || rep.Signature != nil {
		t.Fatalf("unsigned: %v %+v", rep.Problems, rep.Signature)
	}
	spki, _ := wacz.MarshalPublicKey(&newKey(t).PublicKey)
	rep = verify(t, data, wacz.VerifyOptions{PublicKey: spki})
	if rep.OK() || !hasProblem(rep, wacz.DigestPath, "signedData", -1) {
		t.Errorf("a key required of an unsigned WACZ: %v", rep.Problems)
	}
}

// hasProblem reports whether rep has a problem of file and field (at offset, unless
// it is -2).
func hasProblem(rep *wacz.Report, file, field string, offset int64) bool {
	for _, p := range rep.Problems {
		if p.File == file && p.Field == field && (offset == -2 || p.Offset == offset) {
			return true
		}
	}
	return false
}

// recordOffsets returns the offsets of the responses of a WARC file.
func recordOffsets(t testing.TB, data []byte) []int64 {
	t.Helper()
	rd, err := warc.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.Type == warc.TypeResponse {
			out = append(out, rec.Offset)
		}
	}
}

// Each tampering is found, and named: the file, the record's offset or the index
// line, the field.
func TestVerifyTampered(t *testing.T) {
	key := newKey(t)
	signed := testWACZ(t, key)
	spki, _ := wacz.MarshalPublicKey(&key.PublicKey)
	plainWARC := fileOf(t, unzipFiles(t, signed), "archive/b.warc").data
	respB := recordOffsets(t, plainWARC)
	gzWARC := fileOf(t, unzipFiles(t, signed), "archive/a.warc.gz").data
	respA := recordOffsets(t, gzWARC)

	type want struct {
		file, field string
		offset      int64 // -2: any
		line        int   // 0: any
	}
	tests := []struct {
		name   string
		tamper func(t *testing.T, files []zipFile) []zipFile
		opts   wacz.VerifyOptions
		want   []want
	}{{
		name: "one byte of a WARC record's payload",
		tamper: func(t *testing.T, files []zipFile) []zipFile {
			f := fileOf(t, files, "archive/b.warc")
			f.data = bytes.Clone(f.data)
			at := respB[1] + int64(bytes.Index(f.data[respB[1]:], []byte("page 1 of")))
			f.data[at] = 'P'
			return files
		},
		want: []want{{"archive/b.warc", "sha256", -1, 0}, {"archive/b.warc", "digest", respB[1], 0}},
	}, {
		name: "one byte of a gzip WARC record",
		tamper: func(t *testing.T, files []zipFile) []zipFile {
			f := fileOf(t, files, "archive/a.warc.gz")
			f.data = bytes.Clone(f.data)
			f.data[respA[2]+200] ^= 0x55
			return files
		},
		want: []want{{"archive/a.warc.gz", "sha256", -1, 0}, {"archive/a.warc.gz", "", respA[2], 0}},
	}, {
		name: "one CDXJ line (its length), its block gzipped again",
		tamper: func(t *testing.T, files []zipFile) []zipFile {
			f := fileOf(t, files, wacz.IndexPath)
			f.data = editLine(t, f.data, 3, func(line string) string {
				return strings.Replace(line, `"length":"`, `"length":"1`, 1)
			})
			return files
		},
		want: []want{{wacz.IndexPath, "sha256", -1, 0}, {wacz.IndexIDXPath, "digest", -1, 0}, {wacz.IndexPath, "length", -1, 3}},
	}, {
		name: "one CDXJ line pointing at another record, the WACZ written again and signed",
		tamper: func(t *testing.T, files []zipFile) []zipFile {
			warcs := map[string][]byte{"a.warc.gz": gzWARC, "b.warc": plainWARC}
			index := replayIndex(t, warcs)
			lines := strings.SplitAfter(string(index), "\n")
			lines[0] = strings.Replace(lines[0], `"offset":"`+strconv.FormatInt(respA[0], 10)+`"`, `"offset":"`+strconv.FormatInt(respA[1], 10)+`"`, 1)
			return unzipFiles(t, writeWACZ(t, key, warcs, []byte(strings.Join(lines, ""))))
		},
		want: []want{{wacz.IndexPath, "digest", -1, 1}, {wacz.IndexPath, "url", -1, 1}},
	}, {
		name: "datapackage.json",
		tamper: func(t *testing.T, files []zipFile) []zipFile {
			f := fileOf(t, files, wacz.DatapackagePath)
			f.data = bytes.Replace(f.data, []byte(`"Signed"`), []byte(`"Forged"`), 1)
			return files
		},
		want: []want{{wacz.DigestPath, "hash", -1, 0}},
	}, {
		name: "datapackage.json and its hash",
		tamper: func(t *testing.T, files []zipFile) []zipFile {
			f := fileOf(t, files, wacz.DatapackagePath)
			f.data = bytes.Replace(f.data, []byte(`"Signed"`), []byte(`"Forged"`), 1)
			sum := sha256.Sum256(f.data)
			df, sd := digestJSON(t, files)
			df["hash"] = "sha256:" + hex.EncodeToString(sum[:])
			df["signedData"] = sd
			b, _ := json.Marshal(df)
			fileOf(t, files, wacz.DigestPath).data = b
			return files
		},
		want: []want{{wacz.DigestPath, "signedData.hash", -1, 0}},
	}, {
		name: "the signature",
		tamper: func(t *testing.T, files []zipFile) []zipFile {
			_, sd := digestJSON(t, files)
			sig, _ := base64.StdEncoding.DecodeString(sd["signature"].(string))
			sig[10] ^= 1
			setSignedData(t, files, "signature", base64.StdEncoding.EncodeToString(sig))
			return files
		},
		want: []want{{wacz.DigestPath, "signedData.signature", -1, 0}},
	}, {
		name: "the public key",
		tamper: func(t *testing.T, files []zipFile) []zipFile {
			other, _ := wacz.MarshalPublicKey(&newKey(t).PublicKey)
			setSignedData(t, files, "publicKey", base64.StdEncoding.EncodeToString(other))
			return files
		},
		want: []want{{wacz.DigestPath, "signedData.signature", -1, 0}},
	}, {
		name: "signed again with another key, the first required",
		tamper: func(t *testing.T, files []zipFile) []zipFile {
			warcs := map[string][]byte{"a.warc.gz": gzWARC, "b.warc": plainWARC}
			return unzipFiles(t, writeWACZ(t, newKey(t), warcs, replayIndex(t, warcs)))
		},
		opts: wacz.VerifyOptions{PublicKey: spki},
		want: []want{{wacz.DigestPath, "signedData.publicKey", -1, 0}},
	}, {
		name: "a file removed",
		tamper: func(t *testing.T, files []zipFile) []zipFile {
			return slices.DeleteFunc(files, func(f zipFile) bool { return f.name == wacz.PagesPath })
		},
		want: []want{{wacz.PagesPath, "missing", -1, 0}},
	}, {
		name: "a WARC file removed",
		tamper: func(t *testing.T, files []zipFile) []zipFile {
			return slices.DeleteFunc(files, func(f zipFile) bool { return f.name == "archive/b.warc" })
		},
		want: []want{{"archive/b.warc", "missing", -1, 0}, {wacz.IndexPath, "filename", -2, 0}},
	}, {
		name: "a file added",
		tamper: func(t *testing.T, files []zipFile) []zipFile {
			return append(files, zipFile{"archive/c.warc", zip.Store, plainWARC})
		},
		want: []want{{"archive/c.warc", "unlisted", -1, 0}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := rezip(t, tt.tamper(t, unzipFiles(t, signed)))
			rep := verify(t, data, tt.opts)
			if rep.OK() {
				t.Fatalf("passes")
			}
			for _, w := range tt.want {
				found := false
				for _, p := range rep.Problems {
					found = found || p.File == w.file && (w.field == "" || p.Field == w.field) && (w.offset == -2 || p.Offset == w.offset) && (w.line == 0 || p.Line == w.line)
				}
				if !found {
					t.Errorf("no problem of %s, field %q, offset %d, line %d among:\n%s", w.file, w.field, w.offset, w.line, problems(rep))
				}
			}
			if rep.Failed != len(rep.Problems) {
				t.Errorf("failed %d, %d problems listed", rep.Failed, len(rep.Problems))
			}
		})
	}
}

func problems(rep *wacz.Report) string {
	var b strings.Builder
	for _, p := range rep.Problems {
		b.WriteString("  " + p.String() + "\n")
	}
	return b.String()
}

// editLine changes line n (from 1) of a compressed index: the block that holds it is
// gzipped again, the others left as they are, index.idx untouched.
func editLine(t testing.TB, cdxgz []byte, n int, edit func(string) string) []byte {
	t.Helper()
	var out bytes.Buffer
	seen := 0
	r := bytes.NewReader(cdxgz)
	for r.Len() > 0 {
		start := len(cdxgz) - r.Len()
		zr, err := gzip.NewReader(r)
		if err != nil {
			t.Fatal(err)
		}
		zr.Multistream(false)
		text, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		end := len(cdxgz) - r.Len()
		lines := strings.SplitAfter(string(text), "\n")
		changed := false
		for i := range lines {
			if lines[i] == "" {
				continue
			}
			if seen++; seen == n {
				lines[i], changed = edit(lines[i]), true
			}
		}
		if !changed {
			out.Write(cdxgz[start:end])
			continue
		}
		zw := gzip.NewWriter(&out)
		zw.Write([]byte(strings.Join(lines, "")))
		zw.Close()
	}
	return out.Bytes()
}

// A byte changed inside the ZIP, its CRC-32 left: the file's hash and its CRC fail,
// and the record is named.
func TestVerifyByteFlippedInPlace(t *testing.T) {
	data := bytes.Clone(testWACZ(t, newKey(t)))
	zr, _ := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	var f *zip.File
	for _, zf := range zr.File {
		if zf.Name == "archive/b.warc" {
			f = zf
		}
	}
	start, _ := f.DataOffset()
	plain := make([]byte, f.UncompressedSize64)
	copy(plain, data[start:])
	resp := recordOffsets(t, plain)
	at := resp[0] + int64(bytes.Index(plain[resp[0]:], []byte("page 0 of")))
	data[start+at] = 'X'
	rep := verify(t, data, wacz.VerifyOptions{})
	for _, w := range []struct {
		field  string
		offset int64
	}{{"crc32", -1}, {"sha256", -1}, {"digest", resp[0]}} {
		if !hasProblem(rep, "archive/b.warc", w.field, w.offset) {
			t.Errorf("no %s problem at %d:\n%s", w.field, w.offset, problems(rep))
		}
	}
}

func TestVerifyNotAZip(t *testing.T) {
	_, err := wacz.Verify(bytes.NewReader([]byte("not a zip")), 9, wacz.VerifyOptions{})
	if err == nil {
		t.Fatal("no error")
	}
}

// A signature in DER form, as some tools write, is refused saying so.
func TestVerifySignatureDER(t *testing.T) {
	key := newKey(t)
	hash := []byte("sha256:00")
	sum := sha256.Sum256(hash)
	der, err := ecdsa.SignASN1(randReader{}, key, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	spki, _ := wacz.MarshalPublicKey(&key.PublicKey)
	pub, _ := wacz.ParsePublicKey(spki)
	err = wacz.VerifySignature(pub, hash, der)
	if !errors.Is(err, wacz.ErrBadSignature) || !strings.Contains(err.Error(), "DER") {
		t.Errorf("a DER signature: %v", err)
	}
}

type randReader struct{}

func (randReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(i*31 + 7)
	}
	return len(p), nil
}

func TestPublicKeyRoundTrip(t *testing.T) {
	key := newKey(t)
	der, err := wacz.MarshalPublicKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := wacz.ParsePublicKey(der)
	if err != nil {
		t.Fatal(err)
	}
	if k, err := wacz.ECDSAPublicKey(pub); err != nil || !k.Equal(&key.PublicKey) {
		t.Fatalf("%v", err)
	}
	if _, err := wacz.ParsePublicKey(append(der, 0)); !errors.Is(err, wacz.ErrPublicKey) {
		t.Errorf("trailing byte: %v", err)
	}
	// The SPKI is crypto/x509's, on every curve read.
	for _, c := range []elliptic.Curve{elliptic.P256(), elliptic.P384(), elliptic.P521()} {
		k, _ := ecdsa.GenerateKey(c, rand.Reader)
		want, _ := x509.MarshalPKIXPublicKey(&k.PublicKey)
		got, err := wacz.MarshalPublicKey(&k.PublicKey)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %x, want %x (%v)", c.Params().Name, got, want, err)
		}
		pub, err := wacz.ParsePublicKey(want)
		if err != nil || pub.Curve != c.Params().Name {
			t.Errorf("%s: read as %v, %v", c.Params().Name, pub, err)
		}
	}
}

// The signature interoperates: node checks webkeep's with exactly the call
// wabac.js (ReplayWeb.page) makes (WebCrypto importKey "spki" as ECDSA P-384, verify
// with ECDSA and SHA-256 over the UTF-8 bytes of the hash string) and with its own
// crypto.verify in IEEE P1363 encoding; and webkeep verifies one node made as
// ArchiveWeb.page makes them.
func TestSignatureInteropNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	key := newKey(t)
	files := unzipFiles(t, testWACZ(t, key))
	_, sd := digestJSON(t, files)
	script, _ := filepath.Abs("testdata/signature-interop.mjs")
	out, err := exec.Command(node, script, sd["hash"].(string), sd["signature"].(string), sd["publicKey"].(string)).Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	var res struct {
		WebCrypto, CryptoVerify, Tampered bool
		Signed                            struct{ Hash, Signature, PublicKey string }
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !res.WebCrypto || !res.CryptoVerify || res.Tampered {
		t.Errorf("node: WebCrypto as wabac.js: %v, crypto.verify (ieee-p1363): %v, a tampered hash verifies: %v", res.WebCrypto, res.CryptoVerify, res.Tampered)
	}
	spki, err := base64.StdEncoding.DecodeString(res.Signed.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := wacz.ParsePublicKey(spki)
	if err != nil {
		t.Fatal(err)
	}
	sig, _ := base64.StdEncoding.DecodeString(res.Signed.Signature)
	if err := wacz.VerifySignature(pub, []byte(res.Signed.Hash), sig); err != nil {
		t.Errorf("a signature WebCrypto made as ArchiveWeb.page does: %v", err)
	}
}

// badSigner signs with one key and names another, or fails.
type badSigner struct {
	sign wacz.Signer
	spki []byte
	err  error
}

func (s badSigner) Sign(data []byte) ([]byte, error) {
	if s.err != nil {
		return nil, s.err
	}
	return s.sign.Sign(data)
}

func (s badSigner) PublicKey() []byte { return s.spki }

// A signer that fails, or whose signature does not verify with the key it names,
// fails the WACZ: none is written with a signature that does not hold.
func TestWriterSignerFails(t *testing.T) {
	s1, _ := waczauth.NewSigner(newKey(t))
	s2, _ := waczauth.NewSigner(newKey(t))
	warcs := map[string][]byte{"a.warc": testWARC(t, 1, false)}
	for _, s := range []wacz.Signer{badSigner{sign: s1, spki: s2.PublicKey()}, badSigner{sign: s1, spki: s1.PublicKey(), err: errors.New("no key")}, badSigner{sign: s1, spki: []byte("junk")}} {
		w := wacz.NewWriter(io.Discard, wacz.Options{Signer: s})
		w.AddWARC("a.warc", bytes.NewReader(warcs["a.warc"]))
		w.AddIndex(replayIndex(t, warcs))
		if err := w.Close(); !errors.Is(err, wacz.ErrSignature) {
			t.Errorf("Close: %v, want ErrSignature", err)
		}
	}
}
