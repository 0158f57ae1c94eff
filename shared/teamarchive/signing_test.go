//go:build !js

package teamarchive

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/webkeep/webkeep/internal/opensslts"
	"github.com/webkeep/webkeep/shared/httpmsg/nethttp"
	"github.com/webkeep/webkeep/shared/notary"
	"github.com/webkeep/webkeep/shared/tsa"
	"github.com/webkeep/webkeep/shared/wacz"
	"github.com/webkeep/webkeep/shared/waczauth"
)

func teamSigner(t *testing.T) *waczauth.Signer {
	k, err := waczauth.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	s, err := waczauth.NewSigner(k)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func netClient() nethttp.Client {
	return nethttp.Client{Client: &http.Client{Timeout: 30 * time.Second}}
}

// signingServer is a team archive on the real clock (timestamps are of now).
func signingServer(cfg Config) *Server {
	cfg.Bucket = NewMemBucket()
	cfg.Tokens = ParseTokens(testToken)
	return NewServer(cfg)
}

func TestSigningOff(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cfg    Config
		status int
		says   string
	}{
		{"no key", Config{}, http.StatusNotFound, "no signing key is configured"},
		{"a key that could not be read", Config{SigningKeyError: errors.New("no PEM private key")}, http.StatusServiceUnavailable, "no PEM private key"},
		{"a certificate that is none", Config{Signer: teamSigner(t), SigningCert: []byte("not a certificate"), Timestamper: &tsa.Client{URL: "http://127.0.0.1:1/"}}, http.StatusServiceUnavailable, "certificate"},
		{"a certificate without a timestamp authority", Config{Signer: teamSigner(t), SigningCert: []byte("any")}, http.StatusServiceUnavailable, "timestamp authority"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := signingServer(tc.cfg)
			for _, r := range []req{{method: "GET", path: "/api/signing", token: "-"}, {method: "POST", path: "/api/sign", token: "-", body: []byte(`{"hash":"sha256:` + strings.Repeat("a", 64) + `"}`)}} {
				w := do(t, s, r)
				if w.Code != tc.status || !strings.Contains(w.Body.String(), tc.says) {
					t.Errorf("%s %s: %d %s", r.method, r.path, w.Code, w.Body)
				}
			}
		})
	}
}

// The anonymous form: a WACZ signed through /api/sign by wacz.HTTPAuthority
// verifies, with the team's key.
func TestSignAnonymous(t *testing.T) {
	signer := teamSigner(t)
	s := signingServer(Config{Signer: signer})
	w := do(t, s, req{method: "GET", path: "/api/signing", token: "-"})
	wantStatus(t, w, http.StatusOK)
	info := decode[SigningInfo](t, w)
	if info.Form != "anonymous" || info.Fingerprint != wacz.Fingerprint(signer.PublicKey()) || info.Algorithm != "ECDSA P-384, SHA-256" || info.Timestamped || !strings.Contains(info.PEM, "PUBLIC KEY") {
		t.Errorf("info %+v", info)
	}
	hash := `"sha256:` + strings.Repeat("b", 64) + `"`
	for _, tc := range []struct {
		name, token, body string
		status            int
		says              string
	}{
		{"no token", "", `{"hash":` + hash + `}`, http.StatusUnauthorized, ""},
		{"not JSON", "-", `hash=1`, http.StatusBadRequest, "want JSON"},
		{"no hash", "-", `{"created":"2025-01-01T00:00:00Z"}`, http.StatusBadRequest, "64 lower-case hex digits"},
		{"an upper-case hash", "-", `{"hash":"sha256:` + strings.Repeat("B", 64) + `"}`, http.StatusBadRequest, "64 lower-case hex digits"},
		{"created an hour ago", "-", `{"hash":` + hash + `,"created":"` + time.Now().Add(-time.Hour).UTC().Format(time.RFC3339) + `"}`, http.StatusBadRequest, "from the archive's clock"},
		{"created not a time", "-", `{"hash":` + hash + `,"created":"yesterday"}`, http.StatusBadRequest, "not an RFC 3339 time"},
	} {
		w := do(t, s, req{method: "POST", path: "/api/sign", token: tc.token, body: []byte(tc.body)})
		if w.Code != tc.status || !strings.Contains(w.Body.String(), tc.says) {
			t.Errorf("%s: %d %s", tc.name, w.Code, w.Body)
		}
	}
	srv := httptest.NewServer(s)
	defer srv.Close()
	manifest := []byte(`{"profile": "data-package", "resources": []}`)
	digest, err := wacz.SignManifest(context.Background(), manifest, &wacz.HTTPAuthority{URL: srv.URL + "/api/sign", Token: "alice-secret-0123456789", HTTP: netClient()}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	var df struct {
		Hash       string
		SignedData wacz.SignedData
	}
	if err := json.Unmarshal(digest, &df); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(manifest)
	sig, _ := base64.StdEncoding.DecodeString(df.SignedData.Signature)
	pub, err := wacz.ParsePublicKey(signer.PublicKey())
	if err != nil || df.Hash != "sha256:"+hex.EncodeToString(sum[:]) || df.SignedData.PublicKey != base64.StdEncoding.EncodeToString(signer.PublicKey()) ||
		wacz.VerifySignature(pub, []byte(df.Hash), sig) != nil || df.SignedData.Software != "webkeep team archive" {
		t.Errorf("datapackage-digest.json signed by the team: %s", digest)
	}
	bad := &wacz.HTTPAuthority{URL: srv.URL + "/api/sign", Token: "wrong", HTTP: netClient()}
	if _, err := bad.SignHash(context.Background(), "sha256:"+strings.Repeat("c", 64), time.Now()); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("a wrong token: %v", err)
	}
}

// The domain-name form, stamped by OpenSSL's authority: what the Worker signs with
// WEBKEEP_SIGNING_KEY, WEBKEEP_SIGNING_CERT and WEBKEEP_TSA_URL.
func TestSignDomainTimestamped(t *testing.T) {
	ts := opensslts.ForTest(t)
	signer := teamSigner(t)
	k, _ := x509.ParsePKIXPublicKey(signer.PublicKey())
	chain, err := ts.Issue("archive.team.example", k)
	if err != nil {
		t.Fatal(err)
	}
	s := signingServer(Config{Signer: signer, SigningCert: chain, Timestamper: &tsa.Client{URL: ts.URL, HTTP: netClient()}})
	info := decode[SigningInfo](t, do(t, s, req{method: "GET", path: "/api/signing", token: "-"}))
	if info.Form != "domain" || info.Domain != "archive.team.example" || !info.Timestamped || strings.Count(info.Certificate, "BEGIN CERTIFICATE") != 2 {
		t.Errorf("info %+v", info)
	}
	hash := "sha256:" + strings.Repeat("d", 64)
	w := do(t, s, req{method: "POST", path: "/api/sign", token: "-", body: []byte(`{"hash":"` + hash + `"}`)})
	wantStatus(t, w, http.StatusOK)
	sd := decode[wacz.SignedData](t, w)
	if sd.Domain != "archive.team.example" || sd.PublicKey != "" || sd.TimeSignature == "" || sd.TimestampCert == "" {
		t.Fatalf("signedData %+v", sd)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(ts.RootPEM)
	c := &waczauth.Checker{Roots: roots}
	if _, err := c.CheckDomain(&sd); err != nil {
		t.Error(err)
	}
	if st, err := c.CheckTimestamp(&sd); err != nil || !st.Trusted {
		t.Errorf("timestamp: %v", err)
	}

	// The authority failing: signing fails, saying why.
	ts.SetMode(opensslts.Fail)
	w = do(t, s, req{method: "POST", path: "/api/sign", token: "-", body: []byte(`{"hash":"` + hash + `"}`)})
	if w.Code != http.StatusBadGateway || !strings.Contains(w.Body.String(), "500") {
		t.Errorf("the authority failing: %d %s", w.Code, w.Body)
	}
}

// With a timestamp authority, each upload's receipt carries a timestamp of its
// tree head; when the authority fails, the bundle is stored and the receipt says
// the head is not stamped.
func TestNotaryHeadTimestamp(t *testing.T) {
	ts := opensslts.ForTest(t)
	skey, vkey, err := notary.GenerateKey("archive.test/notary")
	if err != nil {
		t.Fatal(err)
	}
	s := signingServer(Config{NotaryKey: skey, Timestamper: &tsa.Client{URL: ts.URL, HTTP: netClient()}})
	w := do(t, s, req{method: "PUT", path: "/api/bundles/one.zip", token: "-", body: readTestdata(t, "sample-bundle.zip")})
	wantStatus(t, w, http.StatusCreated)
	rec := decode[uploadWithReceipt](t, w).Notary
	if _, err := notary.OpenHead([]byte(rec.Head), vkey); err != nil {
		t.Fatal(err)
	}
	resp, err := base64.StdEncoding.DecodeString(rec.HeadTimestamp)
	if err != nil || rec.HeadTimestampError != "" {
		t.Fatalf("headTimestamp %q: %v %s", rec.HeadTimestamp, err, rec.HeadTimestampError)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(ts.RootPEM)
	v, err := tsa.Verify(resp, []byte(rec.Head), tsa.VerifyOptions{Roots: roots})
	if err != nil || !v.Trusted {
		t.Fatalf("the head's timestamp: %v", err)
	}
	if _, err := tsa.Verify(resp, []byte(rec.Head+" "), tsa.VerifyOptions{Roots: roots}); !errors.Is(err, tsa.ErrMismatch) {
		t.Errorf("a changed head: %v", err)
	}
	// The current head, stamped on demand.
	w = do(t, s, req{method: "GET", path: "/api/notary/head/timestamp", token: "-"})
	wantStatus(t, w, http.StatusOK)
	var now struct {
		Head          string
		TreeSize      int64
		HeadTimestamp string
	}
	if err := json.Unmarshal(w.Body.Bytes(), &now); err != nil {
		t.Fatal(err)
	}
	resp, _ = base64.StdEncoding.DecodeString(now.HeadTimestamp)
	if _, err := tsa.Verify(resp, []byte(now.Head), tsa.VerifyOptions{Roots: roots}); err != nil || now.TreeSize != 1 {
		t.Errorf("GET /api/notary/head/timestamp: tree %d, %v", now.TreeSize, err)
	}
	ts.SetMode(opensslts.Fail)
	if w := do(t, s, req{method: "GET", path: "/api/notary/head/timestamp", token: "-"}); w.Code != http.StatusBadGateway {
		t.Errorf("the authority failing: %d %s", w.Code, w.Body)
	}
	w = do(t, s, req{method: "PUT", path: "/api/bundles/two.zip", token: "-", body: readTestdata(t, "sample-bundle.zip")})
	wantStatus(t, w, http.StatusCreated)
	rec = decode[uploadWithReceipt](t, w).Notary
	if rec.HeadTimestamp != "" || !strings.Contains(rec.HeadTimestampError, "500") || rec.Index != 1 {
		t.Errorf("the authority failing: %+v", rec)
	}
}
