//go:build !js

package tsa_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/asn1"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/webkeep/webkeep/internal/opensslts"
	"github.com/webkeep/webkeep/shared/tsa"
)

func pool(t *testing.T, pemData []byte) *x509.CertPool {
	p := x509.NewCertPool()
	if !p.AppendCertsFromPEM(pemData) {
		t.Fatal("no certificate in the PEM")
	}
	return p
}

func certificates(t *testing.T, pemData []byte) []*x509.Certificate {
	var certs []*x509.Certificate
	for b, rest := pem.Decode(pemData); b != nil; b, rest = pem.Decode(rest) {
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		certs = append(certs, c)
	}
	return certs
}

// A stamp of OpenSSL's authority, verified each way: anchored or not, at which
// time, of which data.
func TestStampAndVerify(t *testing.T) {
	s := opensslts.ForTest(t)
	other := opensslts.ForTest(t) // another root CA
	data := []byte("MEUCIQD a signature's base64 text")
	st, err := s.Client().Stamp(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	if s.Requests() != 1 {
		t.Errorf("%d requests", s.Requests())
	}
	if d := time.Since(st.Time); d < -2*time.Second || d > time.Minute {
		t.Errorf("stamped at %s, now is %s", st.Time, time.Now())
	}
	chain := certificates(t, s.ChainPEM)
	if st.Hash != "SHA-256" || st.Policy != "1.3.6.1.4.1.99999.1" || st.TSA != chain[0].Subject.String() || st.TSA != "CN=webkeep test TSA,O=webkeep tests" ||
		len(st.Certificates) != 2 || !bytes.Equal(st.Certificates[0], chain[0].Raw) || !bytes.Equal(st.Certificates[1], chain[1].Raw) {
		t.Errorf("stamp: hash %s, policy %s, TSA %q, %d certificates", st.Hash, st.Policy, st.TSA, len(st.Certificates))
	}
	if st.CertificatesPEM() != string(s.ChainPEM) {
		t.Errorf("CertificatesPEM:\n%s\nwant the chain:\n%s", st.CertificatesPEM(), s.ChainPEM)
	}
	future := time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
	dataHash := sha256.Sum256(append(data, '!'))
	for _, tc := range []struct {
		name    string
		data    []byte
		opts    tsa.VerifyOptions
		trusted bool
		is      error    // nil: it verifies
		says    []string // in the error
	}{
		{"anchored", data, tsa.VerifyOptions{Roots: pool(t, s.RootPEM)}, true, nil, nil},
		{"not anchored", data, tsa.VerifyOptions{}, false, nil, nil},
		{"with timestampCert", data, tsa.VerifyOptions{Roots: pool(t, s.RootPEM), Intermediates: chain}, true, nil, nil},
		{"another root", data, tsa.VerifyOptions{Roots: pool(t, other.RootPEM)}, false, tsa.ErrSignature, []string{"not anchored in the trusted roots", "CN=webkeep test TSA"}},
		{"other data", append(data, '!'), tsa.VerifyOptions{Roots: pool(t, s.RootPEM)}, false, tsa.ErrMismatch,
			[]string{"SHA-256", hex.EncodeToString(st.Digest), hex.EncodeToString(dataHash[:])}},
		{"in 2100, anchored", data, tsa.VerifyOptions{Roots: pool(t, s.RootPEM), At: future}, false, tsa.ErrSignature, []string{"not anchored", "expired"}},
		{"in 2100", data, tsa.VerifyOptions{At: future}, false, tsa.ErrSignature, []string{"valid from", "not at 2100-01-01T00:00:00Z"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := tsa.Verify(st.Response, tc.data, tc.opts)
			if tc.is != nil {
				if !errors.Is(err, tc.is) {
					t.Fatalf("%v, want %v", err, tc.is)
				}
				for _, w := range tc.says {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("%q does not say %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if v.Trusted != tc.trusted || !v.Signer.Equal(chain[0]) || len(v.Chain) != 2 || !v.Chain[0].Equal(chain[0]) || !v.Chain[1].Equal(chain[1]) ||
				v.Stamp.Serial != st.Serial {
				t.Errorf("trusted %v, signer %s, chain of %d", v.Trusted, v.Signer.Subject, len(v.Chain))
			}
		})
	}
	if err := st.Covers(append(data, '!')); !errors.Is(err, tsa.ErrMismatch) || !strings.Contains(err.Error(), hex.EncodeToString(dataHash[:])) {
		t.Errorf("Covers of other data: %v", err)
	}
	// OpenSSL agrees: its own verification of the request webkeep sent.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "data"), data, 0o600)
	os.WriteFile(filepath.Join(dir, "reply.tsr"), st.Response, 0o600)
	if out, err := exec.Command("openssl", "ts", "-verify", "-data", filepath.Join(dir, "data"), "-in", filepath.Join(dir, "reply.tsr"),
		"-CAfile", filepath.Join(s.Dir, "ca.pem")).CombinedOutput(); err != nil || !strings.Contains(string(out), "Verification: OK") {
		t.Errorf("openssl ts -verify: %v\n%s", err, out)
	}
}

// A token without its certificates (a request with certReq FALSE) verifies with
// the certificates given beside it (wacz-auth's timestampCert), not without.
func TestTokenWithoutCertificates(t *testing.T) {
	s := opensslts.ForTest(t)
	data := []byte("signature")
	sum := sha256.Sum256(data)
	query, err := asn1.Marshal(struct {
		Version int
		Imprint struct {
			Alg    struct{ Algorithm asn1.ObjectIdentifier }
			Digest []byte
		}
	}{Version: 1, Imprint: struct {
		Alg    struct{ Algorithm asn1.ObjectIdentifier }
		Digest []byte
	}{struct{ Algorithm asn1.ObjectIdentifier }{asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 1}}, sum[:]}})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := s.Reply(query)
	if err != nil {
		t.Fatal(err)
	}
	st, err := tsa.Parse(resp)
	if err != nil || len(st.Certificates) != 0 || st.Nonce != nil {
		t.Fatalf("%v; %d certificates, nonce %x", err, len(st.Certificates), st.Nonce)
	}
	if _, err := tsa.Verify(resp, data, tsa.VerifyOptions{}); !errors.Is(err, tsa.ErrSignature) || !strings.Contains(err.Error(), "certificate that signed it") {
		t.Errorf("without its certificates: %v", err)
	}
	chain := certificates(t, s.ChainPEM)
	v, err := tsa.Verify(resp, data, tsa.VerifyOptions{Roots: pool(t, s.RootPEM), Intermediates: chain[:1]})
	if err != nil || !v.Trusted || !v.Signer.Equal(chain[0]) {
		t.Errorf("with timestampCert: %v", err)
	}
	if _, err := tsa.Verify(resp, data, tsa.VerifyOptions{Intermediates: chain[1:]}); !errors.Is(err, tsa.ErrSignature) {
		t.Errorf("with the root alone: %v", err)
	}
}

// Every part of the token matters: a response with one byte changed does not
// verify, and the error says which check failed.
func TestTamperedResponse(t *testing.T) {
	s := opensslts.ForTest(t)
	data := []byte("signature")
	st, err := s.Client().Stamp(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	roots := pool(t, s.RootPEM)
	leaf := bytes.Index(st.Response, st.Certificates[0])
	serial := bytes.Index(st.Response, st.Digest) + len(st.Digest) + 2 // the INTEGER after the imprint: tag, length, value
	for _, tc := range []struct {
		name string
		at   int
		is   error
		says string
	}{
		{"the imprint", bytes.Index(st.Response, st.Digest) + 3, tsa.ErrSignature, "the TSTInfo is not what was signed"},
		{"the serial number", serial, tsa.ErrSignature, "the TSTInfo is not what was signed"},
		{"the time", bytes.Index(st.Response, []byte(st.Time.Format("20060102150405"))) + 12, tsa.ErrSignature, "the TSTInfo is not what was signed"},
		{"the signature", len(st.Response) - 2, tsa.ErrSignature, "does not verify with the certificate"},
		{"the TSA certificate's signature", leaf + len(st.Certificates[0]) - 2, tsa.ErrSignature, "names another certificate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.at < 0 || tc.at >= len(st.Response) {
				t.Fatalf("offset %d", tc.at)
			}
			bad := bytes.Clone(st.Response)
			bad[tc.at] ^= 0x01
			_, err := tsa.Verify(bad, data, tsa.VerifyOptions{Roots: roots})
			if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("byte %d of %d changed: %v, want %v saying %q", tc.at, len(bad), err, tc.is, tc.says)
			}
		})
	}
}

// The authority refuses, fails, answers nonsense or replays an old answer: the
// Client says so, with its URL.
func TestAuthorityFailures(t *testing.T) {
	s := opensslts.ForTest(t)
	c := s.Client()
	if _, err := c.Stamp(context.Background(), []byte("first")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		mode opensslts.Mode
		data string
		is   error
		says []string
	}{
		{opensslts.Reject, "second", tsa.ErrRejected, []string{"rejection", "badAlg", "Message digest algorithm is not supported"}},
		{opensslts.Garbage, "second", tsa.ErrFormat, nil},
		{opensslts.Fail, "second", nil, []string{"answered 500 Internal Server Error", "the test authority fails"}},
		{opensslts.Replay, "first", tsa.ErrMismatch, []string{"nonce"}},
		{opensslts.Replay, "second", tsa.ErrMismatch, []string{"it stamps SHA-256"}},
	} {
		s.SetMode(tc.mode)
		n := s.Requests()
		_, err := c.Stamp(context.Background(), []byte(tc.data))
		if err == nil || (tc.is != nil && !errors.Is(err, tc.is)) {
			t.Errorf("mode %d: %v, want %v", tc.mode, err, tc.is)
			continue
		}
		for _, w := range append(tc.says, s.URL) {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("mode %d: %q does not say %q", tc.mode, err, w)
			}
		}
		if s.Requests() != n+1 {
			t.Errorf("mode %d: %d requests, want %d", tc.mode, s.Requests(), n+1)
		}
	}
	s.SetMode(opensslts.Grant)
	if _, err := (&tsa.Client{URL: "http://127.0.0.1:1/", HTTP: c.HTTP}).Stamp(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Errorf("no authority: %v", err)
	}
}

// The vector, made by OpenSSL, verifies against its root.
func TestOpenSSLVectorVerifies(t *testing.T) {
	resp, data := vector(t)
	ca, err := os.ReadFile(filepath.Join("testdata", "ca.pem"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := tsa.Parse(resp)
	if err != nil {
		t.Fatal(err)
	}
	v, err := tsa.Verify(resp, data, tsa.VerifyOptions{Roots: pool(t, ca), At: st.Time})
	if err != nil || !v.Trusted || v.Signer.Subject.CommonName != "webkeep test TSA" {
		t.Fatal(err)
	}
	if _, err := tsa.Verify(resp, []byte("other"), tsa.VerifyOptions{Roots: pool(t, ca)}); !errors.Is(err, tsa.ErrMismatch) {
		t.Errorf("other data: %v", err)
	}
}

// What NewRequest makes, OpenSSL reads: its answer has the nonce and the imprint.
func TestRequestIsReadByOpenSSL(t *testing.T) {
	s := opensslts.ForTest(t)
	der, nonce, err := tsa.NewRequest([]byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := s.Reply(der)
	if err != nil {
		t.Fatal(err)
	}
	st, err := tsa.Parse(resp)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(st.Nonce, nonce) || st.Covers([]byte("x")) != nil || len(st.Certificates) == 0 {
		t.Errorf("OpenSSL answered nonce %x (asked %x), %d certificates", st.Nonce, nonce, len(st.Certificates))
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "q.tsq"), der, 0o600)
	os.WriteFile(filepath.Join(dir, "r.tsr"), resp, 0o600)
	if out, err := exec.Command("openssl", "ts", "-verify", "-queryfile", filepath.Join(dir, "q.tsq"), "-in", filepath.Join(dir, "r.tsr"),
		"-CAfile", filepath.Join(s.Dir, "ca.pem")).CombinedOutput(); err != nil || !strings.Contains(string(out), "Verification: OK") {
		t.Errorf("openssl ts -verify -queryfile: %v\n%s", err, out)
	}
}
