package wacz

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/webkeep/webkeep/shared/cdx"
	"github.com/webkeep/webkeep/shared/tsa"
	"github.com/webkeep/webkeep/shared/warc"
)

// VerifyOptions tune Verify.
type VerifyOptions struct {
	// PublicKey, when set, is the key (DER SubjectPublicKeyInfo) the WACZ must be
	// signed with: an unsigned WACZ, or one signed with another key, fails.
	PublicKey []byte
	// Fingerprint, when set, is the Fingerprint of the key the WACZ must be
	// signed with (the options page and `webkeep wacz keygen` show it).
	Fingerprint string
	// Certificates, when set, checks what package wacz cannot in every build: the
	// domain-name form's certificate chain and signature, and the timestamp
	// authority's signature and chain (waczauth.Checker does, natively and in the
	// Worker). Without it those are listed in the Report's Unchecked, and a
	// timestamp is only read: its time, and that it stamps the signature.
	Certificates CertificateChecker
	// Context, when set, stops Verify once it is done.
	Context context.Context
}

// A CertificateChecker checks the X.509 and RFC 3161 parts of a signature.
type CertificateChecker interface {
	// CheckDomain checks a domain-name signature: the chain of DomainCert, its
	// leaf's name is Domain, and Signature is the leaf key's of Hash. A
	// *FieldError names the property that does not hold.
	CheckDomain(sd *SignedData) (*DomainCertificate, error)
	// CheckTimestamp checks TimeSignature: the authority's signature and chain
	// (with TimestampCert), and that it stamps Signature.
	CheckTimestamp(sd *SignedData) (*Timestamp, error)
}

// A FieldError is a CertificateChecker's finding about one property of signedData.
type FieldError struct {
	Field string // "signature", "domainCert", "domain", "timeSignature", "timestampCert"
	Err   error
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Err.Error() }

// Unwrap returns the finding.
func (e *FieldError) Unwrap() error { return e.Err }

// DomainCertificate is the certificate of a domain-name signature, as checked.
type DomainCertificate struct {
	Domain      string // the name the leaf certificate is for
	Subject     string // the leaf's subject, and its issuer, as X.509 prints them
	Issuer      string
	Fingerprint string // hex SHA-256 of the leaf's DER, as `openssl x509 -fingerprint -sha256` shows it
	PublicKey   []byte // the leaf's DER SubjectPublicKeyInfo
	NotBefore   time.Time
	NotAfter    time.Time
	// Trusted says that the chain ends in a root the checker trusts.
	Trusted bool
}

// Timestamp is an RFC 3161 timestamp of a signature.
type Timestamp struct {
	Time      time.Time
	Authority string // the authority's name, as its token or certificate gives it
	Serial    string
	// Checked says that the authority's signature and certificate were checked;
	// Trusted that its chain ends in a root the checker trusts.
	Checked, Trusted bool
}

// A Report says what Verify checked and what did not hold.
type Report struct {
	// Checked lists what was checked, in plain words, in order.
	Checked []string
	// Files counts the files of datapackage.json checked; Records the WARC
	// records read whose lengths and digests were checked; IndexLines the CDXJ
	// lines checked against the records at their offsets; IndexBlocks the gzip
	// blocks of a compressed index checked against indexes/index.idx.
	Files, Records, IndexLines, IndexBlocks int
	// Hash is datapackage-digest.json's hash of datapackage.json, if it has one.
	Hash string
	// Signature is the WACZ's signature; nil when it has none.
	Signature *Signature
	// Unchecked lists, in plain words, what the WACZ holds that this Verify could
	// not check (a domain-name certificate without VerifyOptions.Certificates).
	Unchecked []string
	// Problems is what does not hold, at most MaxProblems of them; Failed counts
	// them all.
	Problems []Problem
	Failed   int
}

// MaxProblems bounds the problems a Report lists (a WACZ of another file can
// have one per index line).
const MaxProblems = 1000

// Signature is the signature of a WACZ (datapackage-digest.json's signedData).
type Signature struct {
	PublicKey   []byte // DER SubjectPublicKeyInfo: signedData's, or its certificate's
	Fingerprint string // Fingerprint(PublicKey)
	Curve       string // "P-384"
	Created     string // signedData's created, as it is written
	Software    string
	// Domain is the domain-name form's host name, as signedData says it;
	// Certificate its certificate, when checked.
	Domain      string
	Certificate *DomainCertificate
	// Timestamp is the signature's RFC 3161 timestamp, nil when it has none.
	Timestamp *Timestamp
	// Valid says that the signature verifies with PublicKey, of the hash of
	// datapackage.json that datapackage-digest.json holds.
	Valid bool
}

// OK reports whether everything checked holds.
func (r *Report) OK() bool { return r.Failed == 0 }

// A Problem is one thing in a WACZ that does not hold.
type Problem struct {
	File   string // the file of the WACZ: "archive/data.warc.gz", "datapackage.json"
	Offset int64  // byte offset in File of the record or index block; -1 when none
	Line   int    // line of a CDXJ index (counted through the whole index); 0 when none
	Field  string // what does not hold: "sha256", "bytes", "missing", "length", "digest", "hash", "signature", "publicKey", ...
	Msg    string // in plain words
}

// String says where the problem is and what it is:
// "archive/a.warc.gz: record at offset 1234: digest: ...".
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		fmt.Fprintf(&b, ": line %d", p.Line)
	}
	if p.Offset >= 0 {
		if strings.HasPrefix(p.File, "indexes/") {
			fmt.Fprintf(&b, ": block at offset %d", p.Offset)
		} else {
			fmt.Fprintf(&b, ": record at offset %d", p.Offset)
		}
	}
	if p.Field != "" {
		b.WriteString(": " + p.Field)
	}
	return b.String() + ": " + p.Msg
}

// maxManifest bounds datapackage.json, datapackage-digest.json and the index
// files, which are read whole.
const maxManifest = 256 << 20

// verifier holds the state of one Verify.
type verifier struct {
	ctx   context.Context
	opts  VerifyOptions
	rep   *Report
	files map[string]*zip.File
	// records are the WARC records of each file under archive/ (by its name there),
	// by offset, as its index lines should describe them.
	records map[string]map[int64]*record
	readErr error // a read of the input failed: the check cannot go on
}

// record is what an index line says of a WARC record, as the record has it.
type record struct {
	length          int64
	digest, url, ts string
}

// Verify checks the WACZ in r (size bytes): every file against datapackage.json
// (its size and SHA-256), every file listed there, nothing else in the ZIP; every
// WARC record of every WARC file (its length, its gzip member, its block and
// payload digests, SHA-1 as webkeep and pywb write them); every CDXJ line of the
// index against the record at its offset (length, digest, URL, time), and each gzip
// block of a compressed index against indexes/index.idx; datapackage-digest.json's
// hash of datapackage.json; and the signature (wacz-auth 0.1.0, anonymous form)
// with the public key it holds, and with opts.PublicKey when set. What does not
// hold is in the Report's Problems; the error is for a file that is no ZIP, or
// input that cannot be read.
func Verify(r io.ReaderAt, size int64, opts VerifyOptions) (*Report, error) {
	v := &verifier{ctx: opts.Context, opts: opts, rep: &Report{}, files: map[string]*zip.File{}, records: map[string]map[int64]*record{}}
	if v.ctx == nil {
		v.ctx = context.Background()
	}
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("wacz: not a readable ZIP file: %w", err)
	}
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, "/") {
			continue
		}
		if v.files[f.Name] != nil {
			v.problem(Problem{File: f.Name, Offset: -1, Field: "duplicate", Msg: "the ZIP holds two files of this name: readers may take either"})
			continue
		}
		v.files[f.Name] = f
	}
	manifest := v.checkManifest()
	if v.readErr == nil {
		v.checkIndex()
	}
	if v.readErr == nil {
		v.checkDigest(manifest)
	}
	if v.readErr != nil {
		return v.rep, v.readErr
	}
	return v.rep, nil
}

func (v *verifier) problem(p Problem) {
	v.rep.Failed++
	if len(v.rep.Problems) < MaxProblems {
		v.rep.Problems = append(v.rep.Problems, p)
	}
}

func (v *verifier) checked(format string, args ...any) {
	v.rep.Checked = append(v.rep.Checked, fmt.Sprintf(format, args...))
}

// failedRead notes err, from reading file, as a problem of the file, or as the end
// of the check when the input itself failed (it was cancelled). It reports whether
// the check goes on.
func (v *verifier) failedRead(file string, err error) bool {
	if v.ctx.Err() != nil {
		v.readErr = v.ctx.Err()
		return false
	}
	v.problem(Problem{File: file, Offset: -1, Field: "unreadable", Msg: err.Error()})
	return true
}

// readFile reads a small file of the WACZ whole.
func (v *verifier) readFile(name string) ([]byte, error) {
	f := v.files[name]
	if f == nil {
		return nil, nil
	}
	if f.UncompressedSize64 > maxManifest {
		return nil, fmt.Errorf("%d bytes: larger than the %d MiB webkeep reads whole", f.UncompressedSize64, maxManifest>>20)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxManifest))
	if err != nil {
		return nil, err
	}
	return b, nil
}

// manifestResource is a resource of datapackage.json as any writer writes it.
type manifestResource struct {
	Name  string          `json:"name"`
	Path  string          `json:"path"`
	Hash  string          `json:"hash"`
	Bytes json.RawMessage `json:"bytes"`
}

// checkManifest checks every file against datapackage.json, and returns its bytes.
func (v *verifier) checkManifest() []byte {
	manifest, err := v.readFile(DatapackagePath)
	switch {
	case err != nil:
		v.failedRead(DatapackagePath, err)
		return nil
	case v.files[DatapackagePath] == nil:
		v.problem(Problem{File: DatapackagePath, Offset: -1, Field: "missing", Msg: "the WACZ has no datapackage.json: nothing in it can be checked against its hashes"})
		return nil
	}
	var dp struct {
		Resources []manifestResource `json:"resources"`
	}
	if err := json.Unmarshal(manifest, &dp); err != nil {
		v.problem(Problem{File: DatapackagePath, Offset: -1, Field: "json", Msg: "not valid JSON: " + err.Error()})
		return manifest
	}
	listed := map[string]bool{DatapackagePath: true, DigestPath: true}
	for i, res := range dp.Resources {
		if res.Path == "" || listed[res.Path] {
			what := "no path"
			if res.Path != "" {
				what = "listed twice"
			}
			v.problem(Problem{File: DatapackagePath, Offset: -1, Field: "resources", Msg: fmt.Sprintf("resource %d (%s): %s", i+1, res.Path, what)})
			continue
		}
		listed[res.Path] = true
		if v.files[res.Path] == nil {
			v.problem(Problem{File: res.Path, Offset: -1, Field: "missing", Msg: "listed in datapackage.json, but not in the WACZ"})
			continue
		}
		if !v.checkResource(res) {
			return manifest
		}
	}
	var extra []string
	for name := range v.files {
		if !listed[name] {
			extra = append(extra, name)
		}
	}
	sort.Strings(extra)
	for _, name := range extra {
		v.problem(Problem{File: name, Offset: -1, Field: "unlisted", Msg: "in the WACZ but not in datapackage.json: neither its hashes nor the signature cover it"})
	}
	return manifest
}

// checkResource checks one file of datapackage.json: its size and hash, and, for a
// WARC file, its records. It reports whether the check goes on.
func (v *verifier) checkResource(res manifestResource) bool {
	f := v.files[res.Path]
	alg, want, _ := strings.Cut(res.Hash, ":")
	var h hash.Hash
	if strings.EqualFold(alg, "sha256") {
		h = sha256.New()
	} else {
		v.problem(Problem{File: res.Path, Offset: -1, Field: "hash", Msg: fmt.Sprintf("datapackage.json gives its hash as %q: webkeep checks sha256 only", res.Hash)})
	}
	rc, err := f.Open()
	if err != nil {
		return v.failedRead(res.Path, err)
	}
	defer rc.Close()
	in := &entryReader{r: rc, h: h}
	isWARC := strings.HasPrefix(res.Path, ArchiveDir) && (strings.HasSuffix(res.Path, ".warc.gz") || strings.HasSuffix(res.Path, ".warc"))
	if isWARC {
		v.checkWARC(res.Path, in)
	}
	if _, err := io.Copy(io.Discard, in); err != nil && !v.failedRead(res.Path, err) {
		return false
	}
	if v.ctx.Err() != nil {
		v.readErr = v.ctx.Err()
		return false
	}
	if in.crc {
		v.problem(Problem{File: res.Path, Offset: -1, Field: "crc32", Msg: "the ZIP's CRC-32 of the file does not match its bytes: it was changed inside the ZIP"})
	}
	v.rep.Files++
	var size int64
	if err := json.Unmarshal(res.Bytes, &size); err != nil {
		v.problem(Problem{File: res.Path, Offset: -1, Field: "bytes", Msg: fmt.Sprintf("datapackage.json gives its size as %s, not a number", res.Bytes)})
	} else if size != in.n {
		v.problem(Problem{File: res.Path, Offset: -1, Field: "bytes", Msg: fmt.Sprintf("datapackage.json says %d bytes; the file has %d", size, in.n)})
	}
	ok := size == in.n
	if h != nil {
		got := hex.EncodeToString(h.Sum(nil))
		if !strings.EqualFold(got, want) {
			ok = false
			v.problem(Problem{File: res.Path, Offset: -1, Field: "sha256", Msg: fmt.Sprintf("datapackage.json says %s; the file's is sha256:%s", res.Hash, got)})
		}
	}
	if ok && h != nil {
		v.checked("%s: %d bytes, SHA-256 as datapackage.json says", res.Path, in.n)
	}
	return true
}

// entryReader reads a file of the ZIP, counting and hashing its bytes. The ZIP's
// CRC-32 mismatch, found at the end, is noted and read as the end: the bytes are
// all there to be checked.
type entryReader struct {
	r   io.Reader
	h   hash.Hash
	n   int64
	crc bool
}

func (e *entryReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if e.h != nil {
		e.h.Write(p[:n])
	}
	e.n += int64(n)
	if errors.Is(err, zip.ErrChecksum) {
		e.crc, err = true, io.EOF
	}
	return n, err
}

// checkWARC checks every record of the WARC file p as it streams by, and notes the
// records for the index lines: the verifier and an indexer read it together.
func (v *verifier) checkWARC(p string, in io.Reader) {
	name := strings.TrimPrefix(p, ArchiveDir)
	recs := map[int64]*record{}
	v.records[name] = recs
	pr, pw := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		ix := &cdx.Indexer{Dialect: cdx.WarcioJS, Workers: 1, Problems: func(error) {}} // the verifier reports damage
		ix.Index(pr, name, func(e *cdx.Entry) error {
			recs[e.Offset] = &record{length: e.Length, digest: e.Digest, url: e.URL, ts: e.Timestamp}
			return nil
		})
		io.Copy(io.Discard, pr) // whatever the indexer left, for the verifier to go on
	}()
	problems := 0
	wv := warc.NewVerifier(func(wp warc.Problem) {
		problems++
		field := "record"
		switch {
		case errors.Is(wp.Err, warc.ErrDigest):
			field = "digest"
		case errors.Is(wp.Err, warc.ErrGzip), errors.Is(wp.Err, warc.ErrSkipLength):
			field = "gzip"
		case errors.Is(wp.Err, warc.ErrLength):
			field = "length"
		case errors.Is(wp.Err, warc.ErrSegment):
			field = "segment"
		}
		msg := wp.Err.Error()
		if wp.End > wp.Offset {
			msg = fmt.Sprintf("bytes %d to %d: %s", wp.Offset, wp.End, msg)
		}
		v.problem(Problem{File: p, Offset: wp.Offset, Field: field, Msg: msg})
	})
	tee := io.TeeReader(in, pw)
	err := wv.Verify(p, tee)
	if err == nil {
		wv.Finish()
		_, err = io.Copy(io.Discard, tee)
	}
	pw.CloseWithError(err)
	<-done
	if err != nil && v.ctx.Err() == nil {
		problems++
		v.problem(Problem{File: p, Offset: -1, Field: "unreadable", Msg: err.Error()})
	}
	v.rep.Records += wv.Records()
	if problems == 0 {
		v.checked("%s: %s, each whole, its block and payload digests as its header says", p, plural(wv.Records(), "WARC record"))
	}
}

// checkIndex checks the CDXJ lines of the index against the records.
func (v *verifier) checkIndex() {
	var names []string
	for name := range v.files {
		if strings.HasPrefix(name, "indexes/") {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	blocked := map[string]bool{} // compressed indexes that index.idx describes
	if v.files[IndexIDXPath] != nil {
		blocked[v.checkIDX()] = true
	}
	if v.readErr != nil {
		return
	}
	for _, name := range names {
		if name == IndexIDXPath || blocked[name] {
			continue
		}
		data, err := v.readFile(name)
		if err != nil {
			if !v.failedRead(name, err) {
				return
			}
			continue
		}
		if strings.HasSuffix(name, ".gz") {
			if data, err = gunzip(data); err != nil {
				v.problem(Problem{File: name, Offset: -1, Field: "gzip", Msg: fmt.Sprintf("after %d bytes of lines: %v", len(data), err)})
			}
		}
		lines, bad := v.checkLines(name, data)
		if bad == 0 {
			v.checked("%s: %s, each as the WARC record at its offset is (length, digest, URL, time)", name, plural(lines, "CDXJ line"))
		}
	}
	if len(names) == 0 {
		v.problem(Problem{File: "indexes/", Offset: -1, Field: "missing", Msg: "the WACZ has no index"})
	}
}

// checkIDX checks the blocks of a ZipNum index against indexes/index.idx, and the
// lines of each; it returns the path of the compressed index.
func (v *verifier) checkIDX() string {
	idx, err := v.readFile(IndexIDXPath)
	if err != nil {
		v.failedRead(IndexIDXPath, err)
		return ""
	}
	type block struct {
		line           int
		key            string
		offset, length int64
		digest         string
	}
	var blocks []block
	cdxName := IndexPath
	_ = eachLine(idx, func(n int, line []byte) error {
		key, rest, _ := bytes.Cut(line, []byte(" {"))
		var fields struct {
			Format   string    `json:"format"`
			Filename string    `json:"filename"`
			Offset   flexInt64 `json:"offset"`
			Length   flexInt64 `json:"length"`
			Digest   string    `json:"digest"`
		}
		if err := json.Unmarshal(append([]byte{'{'}, rest...), &fields); err != nil {
			v.problem(Problem{File: IndexIDXPath, Offset: -1, Line: n, Field: "json", Msg: "not a line of a ZipNum index: " + err.Error()})
			return nil
		}
		if bytes.HasPrefix(key, []byte("!meta")) {
			if fields.Filename != "" {
				cdxName = "indexes/" + path.Base(fields.Filename)
			}
			return nil
		}
		if fields.Filename != "" {
			cdxName = "indexes/" + path.Base(fields.Filename)
		}
		blocks = append(blocks, block{line: n, key: string(key), offset: int64(fields.Offset), length: int64(fields.Length), digest: fields.Digest})
		return nil
	})
	data, err := v.readFile(cdxName)
	switch {
	case err != nil:
		v.failedRead(cdxName, err)
		return cdxName
	case v.files[cdxName] == nil:
		v.problem(Problem{File: cdxName, Offset: -1, Field: "missing", Msg: "index.idx describes its blocks, but the WACZ does not hold it"})
		return cdxName
	}
	bad := v.rep.Failed
	end := int64(0)
	for _, b := range blocks {
		if b.offset != end {
			v.problem(Problem{File: IndexIDXPath, Offset: -1, Line: b.line, Field: "offset",
				Msg: fmt.Sprintf("the block starts at offset %d, but the one before ends at %d: bytes of %s are in no block, or in two", b.offset, end, cdxName)})
		}
		if b.offset < 0 || b.length <= 0 || b.offset+b.length > int64(len(data)) {
			v.problem(Problem{File: IndexIDXPath, Offset: -1, Line: b.line, Field: "length",
				Msg: fmt.Sprintf("the block at offset %d, %d bytes long, lies outside %s (%d bytes)", b.offset, b.length, cdxName, len(data))})
			continue
		}
		end = b.offset + b.length
		raw := data[b.offset:end]
		sum := sha256.Sum256(raw)
		if got := "sha256:" + hex.EncodeToString(sum[:]); b.digest != "" && !strings.EqualFold(b.digest, got) {
			v.problem(Problem{File: IndexIDXPath, Offset: -1, Line: b.line, Field: "digest",
				Msg: fmt.Sprintf("says the block at offset %d of %s has digest %s; its bytes' is %s", b.offset, cdxName, b.digest, got)})
		}
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		var text []byte
		if err == nil {
			text, err = io.ReadAll(zr)
		}
		if err != nil {
			v.problem(Problem{File: cdxName, Offset: b.offset, Field: "gzip", Msg: "the block index.idx gives is not gzip data: " + err.Error()})
			continue
		}
		if !bytes.HasPrefix(text, []byte(b.key+" ")) && !bytes.HasPrefix(text, []byte(b.key+"\n")) {
			first, _, _ := bytes.Cut(text, []byte("\n"))
			v.problem(Problem{File: IndexIDXPath, Offset: -1, Line: b.line, Field: "key",
				Msg: fmt.Sprintf("the block at offset %d is keyed %.80q, but its first line is %.80q", b.offset, b.key, first)})
		}
		v.rep.IndexBlocks++
	}
	if len(blocks) > 0 && end != int64(len(data)) {
		v.problem(Problem{File: IndexIDXPath, Offset: -1, Field: "length", Msg: fmt.Sprintf("the blocks end at offset %d of %s, which has %d bytes: its last bytes are in no block", end, cdxName, len(data))})
	}
	if v.rep.Failed == bad {
		v.checked("%s: %s, each as index.idx says (offset, length, SHA-256, first key)", IndexIDXPath, plural(len(blocks), "gzip block"))
	}
	// The lines, read through every block whatever index.idx says of them.
	bad = v.rep.Failed
	text, err := gunzip(data)
	if err != nil {
		v.problem(Problem{File: cdxName, Offset: -1, Field: "gzip", Msg: fmt.Sprintf("after %d bytes of lines: %v", len(text), err)})
	}
	lines, _ := v.checkLines(cdxName, text)
	if v.rep.Failed == bad {
		v.checked("%s: %s, each as the WARC record at its offset is (length, digest, URL, time)", cdxName, plural(lines, "CDXJ line"))
	}
	return cdxName
}

// flexInt64 is a JSON number that some writers write as a string.
type flexInt64 int64

func (n *flexInt64) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if s == "" || s == "null" {
		return nil
	}
	i, err := strconv.ParseInt(s, 10, 64)
	*n = flexInt64(i)
	return err
}

// gunzip inflates every gzip member of data, returning what it inflated before
// any error.
func gunzip(data []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	_, err = io.Copy(&out, zr)
	return out.Bytes(), err
}

// checkLines checks the CDXJ lines of text, from file, against the records at their
// offsets. It returns how many lines it checked and how many problems it found.
func (v *verifier) checkLines(file string, text []byte) (lines, bad int) {
	before := v.rep.Failed
	_ = eachLine(text, func(n int, line []byte) error {
		lines++
		v.rep.IndexLines++
		where := Problem{File: file, Offset: -1, Line: lines}
		fail := func(field, format string, args ...any) {
			p := where
			p.Field, p.Msg = field, fmt.Sprintf(format, args...)
			v.problem(p)
		}
		_, ts, obj, err := cdx.SplitLine(bytes.TrimRight(line, "\r"))
		if err != nil {
			fail("line", "%v", err)
			return nil
		}
		var f struct {
			URL      string     `json:"url"`
			Digest   string     `json:"digest"`
			Length   *flexInt64 `json:"length"`
			Offset   *flexInt64 `json:"offset"`
			Filename string     `json:"filename"`
		}
		if err := json.Unmarshal(obj, &f); err != nil {
			fail("line", "its fields: %v", err)
			return nil
		}
		recs, ok := v.records[f.Filename]
		switch {
		case f.Filename == "":
			fail("filename", "the line names no WARC file")
			return nil
		case !ok:
			fail("filename", "%s is not a WARC file of the WACZ (under %s)", f.Filename, ArchiveDir)
			return nil
		case f.Offset == nil || f.Length == nil:
			fail("offset", "the line has no offset or no length")
			return nil
		}
		warcPath := ArchiveDir + f.Filename
		rec := recs[int64(*f.Offset)]
		if rec == nil {
			fail("offset", "no record of %s starts at offset %d", warcPath, int64(*f.Offset))
			return nil
		}
		at := fmt.Sprintf("the record at offset %d of %s", int64(*f.Offset), warcPath)
		if int64(*f.Length) != rec.length {
			fail("length", "says %d bytes; %s has %d", int64(*f.Length), at, rec.length)
		}
		if d := normDigest(f.Digest); d != "" && d != "-" && !strings.EqualFold(d, normDigest(rec.digest)) {
			fail("digest", "says %s; %s has payload digest %s", f.Digest, at, rec.digest)
		}
		if f.URL != "" && f.URL != rec.url {
			fail("url", "says %.200s; %s is of %.200s", f.URL, at, rec.url)
		}
		if string(ts) != rec.ts && !(len(ts) < 14 && strings.HasPrefix(rec.ts, string(ts))) {
			fail("timestamp", "says %s; %s is of %s", ts, at, rec.ts)
		}
		return nil
	})
	return lines, v.rep.Failed - before
}

// normDigest is a digest without its "sha1:" prefix, as CDXJ lines write it.
func normDigest(d string) string {
	if len(d) > 5 && strings.EqualFold(d[:5], "sha1:") {
		return d[5:]
	}
	return d
}

// signedDataKeys are the properties a signedData may have (wacz-auth 0.1.0, both
// forms).
var signedDataKeys = map[string]bool{
	"hash": true, "created": true, "software": true, "version": true, "signature": true, "publicKey": true,
	"domain": true, "domainCert": true, "timeSignature": true, "timestampCert": true, "crossSignedCert": true,
}

// checkDigest checks datapackage-digest.json against datapackage.json, and its
// signature.
func (v *verifier) checkDigest(manifest []byte) {
	raw, err := v.readFile(DigestPath)
	if err != nil {
		v.failedRead(DigestPath, err)
		return
	}
	if v.files[DigestPath] == nil {
		if v.opts.PublicKey != nil || v.opts.Fingerprint != "" {
			v.problem(Problem{File: DigestPath, Offset: -1, Field: "missing", Msg: "the WACZ is not signed: it has no datapackage-digest.json"})
		} else {
			v.checked("%s: none: datapackage.json is not hashed, the WACZ is not signed", DigestPath)
		}
		return
	}
	var df struct {
		Path       string          `json:"path"`
		Hash       string          `json:"hash"`
		SignedData json.RawMessage `json:"signedData"`
	}
	if err := json.Unmarshal(raw, &df); err != nil {
		v.problem(Problem{File: DigestPath, Offset: -1, Field: "json", Msg: "not valid JSON: " + err.Error()})
		return
	}
	v.rep.Hash = df.Hash
	if df.Path != DatapackagePath {
		v.problem(Problem{File: DigestPath, Offset: -1, Field: "path", Msg: fmt.Sprintf("names %q, not %q", df.Path, DatapackagePath)})
	}
	if manifest != nil {
		sum := sha256.Sum256(manifest)
		if got := "sha256:" + hex.EncodeToString(sum[:]); !strings.EqualFold(df.Hash, got) {
			v.problem(Problem{File: DigestPath, Offset: -1, Field: "hash",
				Msg: fmt.Sprintf("says datapackage.json's hash is %s; its bytes' is %s: datapackage.json was changed after it was hashed and signed", df.Hash, got)})
		} else {
			v.checked("%s: the hash of datapackage.json, %s", DigestPath, df.Hash)
		}
	}
	required := v.opts.PublicKey != nil || v.opts.Fingerprint != ""
	if len(df.SignedData) == 0 || string(df.SignedData) == "null" {
		if required {
			v.problem(Problem{File: DigestPath, Offset: -1, Field: "signedData", Msg: "the WACZ is not signed"})
		} else {
			v.checked("signature: none: the WACZ is not signed")
		}
		return
	}
	var props map[string]json.RawMessage
	var sd SignedData
	if err := json.Unmarshal(df.SignedData, &props); err != nil {
		v.problem(Problem{File: DigestPath, Offset: -1, Field: "signedData", Msg: "not a JSON object: " + err.Error()})
		return
	}
	if err := json.Unmarshal(df.SignedData, &sd); err != nil {
		v.problem(Problem{File: DigestPath, Offset: -1, Field: "signedData", Msg: err.Error()})
		return
	}
	var unknown []string
	for k := range props {
		if !signedDataKeys[k] {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	if len(unknown) > 0 {
		v.problem(Problem{File: DigestPath, Offset: -1, Field: "signedData", Msg: fmt.Sprintf("has %s, which wacz-auth 0.1.0 does not allow", strings.Join(unknown, ", "))})
	}
	if sd.Hash != df.Hash {
		v.signatureProblem("hash", "the signed hash %s is not the hash %s: the signature is of another datapackage.json", sd.Hash, df.Hash)
	}
	sig := &Signature{Created: sd.Created, Software: sd.Software, Domain: sd.Domain}
	v.rep.Signature = sig
	switch {
	case sd.PublicKey != "":
		v.checkAnonymous(&sd, sig)
	case sd.DomainCert != "":
		v.checkDomain(&sd, sig)
	default:
		v.signatureProblem("publicKey", "the signature has no public key and no domain certificate")
		return
	}
	if sd.TimeSignature != "" {
		v.checkTimestamp(&sd, sig)
	} else if sd.DomainCert != "" {
		v.signatureProblem("timeSignature", "the domain-name form is stamped by an RFC 3161 timestamp authority (wacz-auth 0.1.0); this signature has no timestamp")
	}
	v.checkRequiredKey(sig)
}

// signatureProblem records a problem of signedData's field.
func (v *verifier) signatureProblem(field, format string, args ...any) {
	v.problem(Problem{File: DigestPath, Offset: -1, Field: "signedData." + field, Msg: fmt.Sprintf(format, args...)})
}

// checkAnonymous checks an anonymous signature with the public key it holds.
func (v *verifier) checkAnonymous(sd *SignedData, sig *Signature) {
	spkiDER, err := base64.StdEncoding.DecodeString(sd.PublicKey)
	if err != nil {
		v.signatureProblem("publicKey", "not base64: %v", err)
		return
	}
	sig.PublicKey, sig.Fingerprint = spkiDER, Fingerprint(spkiDER)
	pub, err := ParsePublicKey(spkiDER)
	if err != nil {
		v.signatureProblem("publicKey", "%v", err)
		return
	}
	sig.Curve = pub.Curve
	raw, err := base64.StdEncoding.DecodeString(sd.Signature)
	if err != nil {
		v.signatureProblem("signature", "not base64: %v", err)
		return
	}
	if err := VerifySignature(pub, []byte(sd.Hash), raw); err != nil {
		v.signatureProblem("signature", "%v with the key it names (%s %s)", err, sig.Curve, sig.Fingerprint)
		return
	}
	sig.Valid = true
	note := ""
	if sig.Curve != "P-384" {
		note = " (ReplayWeb.page verifies P-384 keys only)"
	}
	v.checked("signature: valid, of %s, ECDSA %s key %s%s, created %s by %s", sd.Hash, sig.Curve, sig.Fingerprint, note, orNone(sd.Created), orNone(sd.Software))
}

// checkDomain checks a domain-name signature with the CertificateChecker, or says
// it was not checked.
func (v *verifier) checkDomain(sd *SignedData, sig *Signature) {
	if v.opts.Certificates == nil {
		v.rep.Unchecked = append(v.rep.Unchecked, fmt.Sprintf("signature: in the domain-name form, by a certificate for %s: its signature and certificate chain are checked by `webkeep wacz verify`, not here", orNone(sd.Domain)))
		return
	}
	cert, err := v.opts.Certificates.CheckDomain(sd)
	if err != nil {
		v.fieldProblem(err, "domainCert")
		return
	}
	sig.Certificate = cert
	sig.PublicKey, sig.Fingerprint = cert.PublicKey, Fingerprint(cert.PublicKey)
	if pub, err := ParsePublicKey(cert.PublicKey); err == nil {
		sig.Curve = pub.Curve
	}
	sig.Valid = true
	trust := "a root this machine trusts"
	if !cert.Trusted {
		trust = "a root not checked against any trusted roots"
	}
	v.checked("signature: valid, of %s, by the certificate for %s (issued by %s, valid %s to %s, SHA-256 %s), its chain to %s, created %s by %s",
		sd.Hash, cert.Domain, cert.Issuer, cert.NotBefore.UTC().Format(time.DateOnly), cert.NotAfter.UTC().Format(time.DateOnly), cert.Fingerprint, trust, orNone(sd.Created), orNone(sd.Software))
}

// fieldProblem records a CertificateChecker's error, under its field or def.
func (v *verifier) fieldProblem(err error, def string) {
	var fe *FieldError
	if errors.As(err, &fe) {
		v.signatureProblem(fe.Field, "%v", fe.Err)
		return
	}
	v.signatureProblem(def, "%v", err)
}

// checkTimestamp checks the signature's RFC 3161 timestamp: with the
// CertificateChecker, or, without one, that it reads, stamps the signature, and
// what time it says.
func (v *verifier) checkTimestamp(sd *SignedData, sig *Signature) {
	var ts *Timestamp
	if v.opts.Certificates != nil {
		var err error
		if ts, err = v.opts.Certificates.CheckTimestamp(sd); err != nil {
			v.fieldProblem(err, "timeSignature")
			return
		}
	} else {
		raw, err := base64.StdEncoding.DecodeString(sd.TimeSignature)
		if err != nil {
			v.signatureProblem("timeSignature", "not base64: %v", err)
			return
		}
		st, err := tsa.Parse(raw)
		if err != nil {
			v.signatureProblem("timeSignature", "%v", err)
			return
		}
		if err := st.Covers([]byte(sd.Signature)); err != nil {
			v.signatureProblem("timeSignature", "it does not stamp this signature: %v", err)
			return
		}
		ts = &Timestamp{Time: st.Time, Authority: st.TSA, Serial: st.Serial}
		v.rep.Unchecked = append(v.rep.Unchecked, "timestamp: the authority's signature and certificate are checked by `webkeep wacz verify`, not here")
	}
	sig.Timestamp = ts
	created, err := time.Parse(time.RFC3339Nano, sd.Created)
	if err != nil {
		v.signatureProblem("created", "not an RFC 3339 time (%q): it cannot be held against the timestamp", sd.Created)
		return
	}
	if skew := ts.Time.Sub(created).Abs(); skew > MaxClockSkew {
		v.signatureProblem("created", "says %s, %s from the timestamp's %s: wacz-auth allows %s", sd.Created, skew.Round(time.Second), formatTime(ts.Time), MaxClockSkew)
		return
	}
	how := "read, and stamps the signature; its authority's signature not checked here"
	if ts.Checked {
		how = "its authority's signature valid, its chain to a root this machine trusts"
		if !ts.Trusted {
			how = "its authority's signature valid, its chain not checked against any trusted roots"
		}
	}
	v.checked("timestamp: %s by %s (serial %s), within %s of created: %s", formatTime(ts.Time), orNone(ts.Authority), orNone(ts.Serial), MaxClockSkew, how)
}

// checkRequiredKey checks the signature's key is the one VerifyOptions requires.
func (v *verifier) checkRequiredKey(sig *Signature) {
	if v.opts.PublicKey != nil {
		want, err := ParsePublicKey(v.opts.PublicKey)
		switch {
		case err != nil:
			v.signatureProblem("publicKey", "the key required: %v", err)
		case sig.PublicKey == nil:
			v.signatureProblem("publicKey", "the signature's key could not be checked, so not against the key required, %s", Fingerprint(want.DER))
		case !bytes.Equal(want.DER, sig.PublicKey):
			v.signatureProblem("publicKey", "signed with key %s, not with the key required, %s", sig.Fingerprint, Fingerprint(want.DER))
		case sig.Valid:
			v.checked("signature: made with the key required, %s", sig.Fingerprint)
		}
	}
	if fp := strings.ToLower(strings.TrimPrefix(v.opts.Fingerprint, "sha256:")); fp != "" {
		switch {
		case sig.PublicKey == nil:
			v.signatureProblem("publicKey", "the signature's key could not be checked, so not against the key required, %s", fp)
		case fp != sig.Fingerprint:
			v.signatureProblem("publicKey", "signed with key %s, not with the key required, %s", sig.Fingerprint, fp)
		case sig.Valid:
			v.checked("signature: made with the key required, %s", sig.Fingerprint)
		}
	}
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func orNone(s string) string {
	if s == "" {
		return "(not given)"
	}
	return s
}
