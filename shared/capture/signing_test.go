//go:build !js

package capture

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/shared/httpmsg/nethttp"
	"github.com/webkeep/webkeep/shared/recorder"
	"github.com/webkeep/webkeep/shared/wacz"
	"github.com/webkeep/webkeep/shared/waczauth"
)

// signingHost is a host that signs WACZ downloads with a key in memory, as the
// extension's does with WebCrypto's.
type signingHost struct {
	*fakeHost
	signer wacz.Signer
	err    error
	asked  int
}

func (h *signingHost) WACZSigner() (wacz.Signer, error) {
	h.asked++
	return h.signer, h.err
}

func newSigningHost(t testing.TB) *signingHost {
	t.Helper()
	key, err := waczauth.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	s, err := waczauth.NewSigner(key)
	if err != nil {
		t.Fatal(err)
	}
	return &signingHost{fakeHost: newFakeHost(), signer: s}
}

// signedSession is a service over a signing host with a session of the sample
// exchanges, and its handler.
func signedSession(t *testing.T) (*Service, *signingHost, *Session, http.Handler) {
	t.Helper()
	store := NewMemStore()
	host := newSigningHost(t)
	svc, err := NewService(store, host)
	if err != nil {
		t.Fatal(err)
	}
	sess, _ := createSession(store, "signed", time.Now())
	svc.sessions.add(sess)
	for _, ex := range sampleExchanges() {
		sess.WriteExchange(ex)
	}
	sess.AddPage(recorder.Page{Page: api.Page{URL: "http://example.org/", TS: time.Now()}})
	return svc, host, sess, nethttp.Handler(svc.Handler())
}

// The WACZ download is signed with the host's key, and verifies.
func TestWACZDownloadIsSigned(t *testing.T) {
	_, host, sess, h := signedSession(t)
	rec := send(t, h, "GET", "/api/sessions/"+sess.info.ID+"/wacz", "", nil, nil)
	if rec.Code != http.StatusOK {
		t.Fatalf("wacz: %d %s", rec.Code, rec.Body)
	}
	data := rec.Body.Bytes()
	rep, err := wacz.Verify(bytes.NewReader(data), int64(len(data)), wacz.VerifyOptions{PublicKey: host.signer.PublicKey()})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || rep.Signature == nil || !rep.Signature.Valid || rep.Records == 0 || rep.IndexLines == 0 {
		t.Fatalf("the download does not verify: %+v %v", rep.Signature, rep.Problems)
	}
	if rep.Signature.Software != "webkeep" {
		t.Errorf("software %q", rep.Signature.Software)
	}

	var key api.SigningKey
	if rec := send(t, h, "GET", "/api/signing-key", "", nil, &key); rec.Code != http.StatusOK {
		t.Fatalf("signing-key: %d %s", rec.Code, rec.Body)
	}
	if key.Fingerprint != rep.Signature.Fingerprint || key.Algorithm != "ECDSA P-384, SHA-256" || !strings.Contains(key.PEM, "BEGIN PUBLIC KEY") {
		t.Errorf("signing key: %+v", key)
	}
	rec = send(t, h, "GET", "/api/signing-key.pem", "", nil, nil)
	if rec.Code != http.StatusOK || rec.Body.String() != key.PEM || !strings.Contains(rec.Header().Get("Content-Disposition"), key.Fingerprint[:16]+".pem") {
		t.Errorf("signing-key.pem: %d %v %s", rec.Code, rec.Header(), rec.Body)
	}

	// Without the key, no WACZ goes out unsigned.
	host.signer, host.err = nil, errors.New("IndexedDB is gone")
	rec = send(t, h, "GET", "/api/sessions/"+sess.info.ID+"/wacz", "", nil, nil)
	if rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), "IndexedDB is gone") {
		t.Errorf("wacz without its key: %d %s", rec.Code, rec.Body)
	}
}

// A core whose host has no key signs nothing, and says so.
func TestNoSigningKey(t *testing.T) {
	svc, _ := NewService(NewMemStore(), newFakeHost())
	if rec := send(t, nethttp.Handler(svc.Handler()), "GET", "/api/signing-key", "", nil, nil); rec.Code != http.StatusNotFound {
		t.Errorf("signing-key: %d %s", rec.Code, rec.Body)
	}
}

// A WACZ imported is verified; the session says by which key it is signed and what
// did not hold.
func TestImportVerifiesWACZ(t *testing.T) {
	svc, host, sess, h := signedSession(t)
	rec := send(t, h, "GET", "/api/sessions/"+sess.info.ID+"/wacz", "", nil, nil)
	signed := bytes.Clone(rec.Body.Bytes())
	own := wacz.Fingerprint(host.signer.PublicKey())

	var info SessionInfo
	if j := runJob(t, h, "POST", "/api/import?name=signed.wacz", "", signed, &info); j.State != "done" {
		t.Fatalf("import: %+v", j)
	}
	v := info.Verification
	if v == nil || !v.OK || !v.Signed || !v.SignatureValid || v.Fingerprint != own || !v.OwnKey || v.Records == 0 || v.IndexLines == 0 || v.Failed != 0 {
		t.Fatalf("verification: %+v", v)
	}
	if info.Records == 0 {
		t.Errorf("nothing imported: %+v", info)
	}
	// It is kept with the session.
	var again SessionInfo
	send(t, h, "GET", "/api/sessions/"+info.ID, "", nil, &again)
	if again.Verification == nil || again.Verification.Fingerprint != own {
		t.Errorf("kept: %+v", again.Verification)
	}

	// A WACZ signed by another key, one byte of its WARC changed.
	other := newSigningHost(t)
	svc2, _ := NewService(NewMemStore(), other)
	sess2, _ := createSession(svc2.store, "other", time.Now())
	svc2.sessions.add(sess2)
	for _, ex := range sampleExchanges() {
		sess2.WriteExchange(ex)
	}
	rec = send(t, nethttp.Handler(svc2.Handler()), "GET", "/api/sessions/"+sess2.info.ID+"/wacz", "", nil, nil)
	// Its index changed: the records import, and the session says what failed.
	tampered := rewriteWACZ(t, rec.Body.Bytes(), func(name string, b []byte) []byte {
		if name != wacz.IndexPath {
			return b
		}
		return gzipped(t, bytes.Replace(gunzipped(t, b), []byte(`"status":"200"`), []byte(`"status":"404"`), 1))
	})
	info = SessionInfo{}
	if j := runJob(t, h, "POST", "/api/import?name=tampered.wacz", "", tampered, &info); j.State != "done" {
		t.Fatalf("import: %+v", j)
	}
	v = info.Verification
	if v == nil || v.OK || !v.Signed || !v.SignatureValid || v.OwnKey || v.Fingerprint != wacz.Fingerprint(other.signer.PublicKey()) || v.Failed == 0 {
		t.Fatalf("verification: %+v", v)
	}
	if p := strings.Join(v.Problems, "\n"); !strings.Contains(p, "indexes/index.cdx.gz: sha256: ") || !strings.Contains(p, "indexes/index.idx: line 2: digest: ") {
		t.Errorf("problems: %q", v.Problems)
	}
	// A byte of its WARC changed: the records do not read, and the import's error
	// says what the verification found.
	tampered = rewriteWACZ(t, rec.Body.Bytes(), func(name string, b []byte) []byte {
		if strings.HasPrefix(name, "archive/") {
			b[len(b)/2] ^= 0x20
		}
		return b
	})
	j := runJob(t, h, "POST", "/api/import?name=tampered.wacz", "", tampered, nil)
	if j.State != "failed" || !strings.Contains(j.Error, "the WACZ does not verify") || !strings.Contains(j.Error, "archive/webkeep-") {
		t.Errorf("import of a damaged WACZ: %s %s", j.State, j.Error)
	}

	// A WARC is not a WACZ: nothing to verify.
	info = SessionInfo{}
	if j := runJob(t, h, "POST", "/api/import?name=x.warc", "", warc10(t, []byte("x")), &info); j.State != "done" || info.Verification != nil {
		t.Errorf("a WARC: %+v %+v", j, info.Verification)
	}
	_ = svc
}

// rewriteWACZ writes the WACZ again with the files edit changes, CRCs right.
func rewriteWACZ(t *testing.T, data []byte, edit func(name string, b []byte) []byte) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	for _, f := range zr.File {
		rc, _ := f.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: f.Name, Method: f.Method})
		w.Write(edit(f.Name, bytes.Clone(b)))
	}
	zw.Close()
	return out.Bytes()
}

func gunzipped(t *testing.T, b []byte) []byte {
	t.Helper()
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

func gzipped(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	zw.Write(b)
	zw.Close()
	return out.Bytes()
}

func TestVerificationSummary(t *testing.T) {
	rep := &wacz.Report{Files: 3, Records: 10, IndexLines: 4, Failed: 25}
	for i := range 25 {
		rep.Problems = append(rep.Problems, wacz.Problem{File: "archive/a.warc", Offset: int64(i), Field: "digest", Msg: "x"})
	}
	v := verification(rep, "")
	if v.OK || v.Signed || len(v.Problems) != maxVerificationProblems || v.Failed != 25 || v.Problems[3] != "archive/a.warc: record at offset 3: digest: x" {
		b, _ := json.Marshal(v)
		t.Errorf("%s", b)
	}
}
