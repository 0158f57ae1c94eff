//go:build !js

package wacz_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/webkeep/webkeep/internal/opensslts"
	"github.com/webkeep/webkeep/shared/tsa"
	"github.com/webkeep/webkeep/shared/wacz"
	"github.com/webkeep/webkeep/shared/waczauth"
)

// The domain-name form and timestamps of wacz-auth 0.1.0, end to end: signed with a
// certificate for a host name, stamped by OpenSSL's timestamp authority on
// 127.0.0.1, checked by wacz.Verify with waczauth's Checker; each part tampered
// with is named.

// domainPKI is a root CA and a certificate for a host, its key the signer's.
type domainPKI struct {
	root   *x509.Certificate
	chain  []byte // PEM: the leaf, then the root
	key    *ecdsa.PrivateKey
	signer wacz.Signer
}

func newDomainPKI(t *testing.T, host string, notBefore time.Time) *domainPKI {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test team CA"}, NotBefore: notBefore, NotAfter: notBefore.Add(365 * 24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	root, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	leafTmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: host}, DNSNames: []string{host}, NotBefore: notBefore, NotAfter: notBefore.Add(90 * 24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	leafDER, err := x509.CreateCertificate(rand.Reader, leafTmpl, root, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := waczauth.NewSigner(key)
	if err != nil {
		t.Fatal(err)
	}
	chain := append(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: leafDER}), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})...)
	return &domainPKI{root: root, chain: chain, key: key, signer: signer}
}

func rootsOf(t *testing.T, certs []*x509.Certificate, pemData ...[]byte) *x509.CertPool {
	p := x509.NewCertPool()
	for _, c := range certs {
		p.AddCert(c)
	}
	for _, d := range pemData {
		if !p.AppendCertsFromPEM(d) {
			t.Fatal("no certificate")
		}
	}
	return p
}

func testWARCs(t *testing.T) (map[string][]byte, []byte) {
	warcs := map[string][]byte{"a.warc.gz": testWARC(t, 3, true)}
	return warcs, replayIndex(t, warcs)
}

func TestDomainSignatureWithTimestamp(t *testing.T) {
	ts := opensslts.ForTest(t)
	now := time.Now().UTC().Truncate(time.Second)
	pki := newDomainPKI(t, "archive.team.example", now.Add(-time.Hour))
	a, err := waczauth.NewDomainAuthority(pki.signer, pki.chain, ts.Client(), "webkeep team archive")
	if err != nil {
		t.Fatal(err)
	}
	warcs, index := testWARCs(t)
	data := writeWACZBy(t, a, now, warcs, index)
	roots := rootsOf(t, []*x509.Certificate{pki.root}, ts.RootPEM)
	checker := &waczauth.Checker{Roots: roots}

	_, sd := digestJSON(t, unzipFiles(t, data))
	for _, k := range []string{"hash", "signature", "domain", "domainCert", "created", "software", "timeSignature", "timestampCert"} {
		if _, ok := sd[k]; !ok {
			t.Errorf("signedData has no %s", k)
		}
	}
	if _, ok := sd["publicKey"]; ok {
		t.Error("the domain-name form has a publicKey: ReplayWeb.page would then check it as anonymous")
	}
	if first := strings.SplitN(sd["domainCert"].(string), "\n\n", 2)[0]; !strings.HasSuffix(first, "-----END CERTIFICATE-----") || strings.Count(first, "BEGIN") != 1 {
		t.Errorf("domainCert's first part, as ReplayWeb.page splits it, is not the leaf alone: %q", first)
	}

	rep := verify(t, data, wacz.VerifyOptions{Certificates: checker})
	if !rep.OK() {
		t.Fatalf("problems: %s", problems(rep))
	}
	sig := rep.Signature
	if !sig.Valid || sig.Certificate == nil || sig.Certificate.Domain != "archive.team.example" || !sig.Certificate.Trusted ||
		sig.Timestamp == nil || !sig.Timestamp.Checked || !sig.Timestamp.Trusted || sig.Timestamp.Authority != "CN=webkeep test TSA,O=webkeep tests" {
		t.Errorf("signature: %+v, certificate %+v, timestamp %+v", sig, sig.Certificate, sig.Timestamp)
	}
	if sig.Fingerprint != wacz.Fingerprint(pki.signer.PublicKey()) {
		t.Errorf("fingerprint %s, the key's %s", sig.Fingerprint, wacz.Fingerprint(pki.signer.PublicKey()))
	}
	// --key works on the certificate's key as on an anonymous one.
	if rep := verify(t, data, wacz.VerifyOptions{Certificates: checker, PublicKey: pki.signer.PublicKey()}); !rep.OK() {
		t.Errorf("with the key required: %s", problems(rep))
	}

	// Without a Checker (the extension's core): nothing fails, the certificate is
	// listed as not checked, the timestamp is read and held against the signature.
	rep = verify(t, data, wacz.VerifyOptions{})
	if !rep.OK() || len(rep.Unchecked) != 2 || rep.Signature.Valid || rep.Signature.Domain != "archive.team.example" || rep.Signature.Timestamp == nil || rep.Signature.Timestamp.Checked {
		t.Errorf("without a checker: ok %v, unchecked %q, signature %+v", rep.OK(), rep.Unchecked, rep.Signature)
	}

	// Trusting other roots: both chains fail.
	other := newDomainPKI(t, "other.example", now.Add(-time.Hour))
	rep = verify(t, data, wacz.VerifyOptions{Certificates: &waczauth.Checker{Roots: rootsOf(t, []*x509.Certificate{other.root})}})
	if !hasProblem(rep, wacz.DigestPath, "signedData.domainCert", -1) || !hasProblem(rep, wacz.DigestPath, "signedData.timeSignature", -1) {
		t.Errorf("other roots: %s", problems(rep))
	}

	sameHost := newDomainPKI(t, "archive.team.example", now.Add(-time.Hour))
	otherStamp, err := opensslts.ForTest(t).Client().Stamp(context.Background(), []byte(sd["signature"].(string)))
	if err != nil {
		t.Fatal(err)
	}
	otherSig, _ := pki.signer.Sign([]byte("sha256:" + strings.Repeat("0", 64)))
	derSig, _ := ecdsa.SignASN1(rand.Reader, pki.key, sha256Of(sd["hash"].(string)))
	for _, tc := range []struct {
		name, field, value string
		want               string // the problem's field; "" when it verifies
	}{
		{"the signature of another hash", "signature", base64.StdEncoding.EncodeToString(otherSig), "signedData.signature"},
		{"the signature in DER, as authsign writes it", "signature", base64.StdEncoding.EncodeToString(derSig), "signedData.timeSignature"}, // valid, but the stamp is of the other text
		{"another domain", "domain", "evil.example", "signedData.domain"},
		{"another certificate", "domainCert", string(other.chain), "signedData.domain"},
		{"another certificate for the same host", "domainCert", string(sameHost.chain), "signedData.signature"},
		{"the chain's root left out and another put in", "domainCert", strings.SplitN(sd["domainCert"].(string), "\n\n", 2)[0] + "\n\n" + string(other.chain[strings.Index(string(other.chain), "-----END CERTIFICATE-----")+26:]), "signedData.domainCert"},
		{"no timestamp", "timeSignature", "", "signedData.timeSignature"},
		{"another signature's timestamp", "timeSignature", base64.StdEncoding.EncodeToString(mustStamp(t, ts, "another signature")), "signedData.timeSignature"},
		{"a timestamp of another authority", "timeSignature", base64.StdEncoding.EncodeToString(otherStamp.Response), "signedData.timeSignature"},
		{"another timestampCert", "timestampCert", string(other.chain), "signedData.timestampCert"},
		{"created 11 minutes before the timestamp", "created", now.Add(-11 * time.Minute).Format(time.RFC3339), "signedData.created"},
		{"created 5 minutes before the timestamp", "created", now.Add(-5 * time.Minute).Format(time.RFC3339), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := unzipFiles(t, data)
			if tc.value == "" {
				df, s := digestJSON(t, files)
				delete(s, tc.field)
				df["signedData"] = s
				setJSON(t, files, df)
			} else {
				setSignedData(t, files, tc.field, tc.value)
			}
			rep := verify(t, rezip(t, files), wacz.VerifyOptions{Certificates: checker})
			if tc.want == "" {
				if !rep.OK() {
					t.Errorf("problems: %s", problems(rep))
				}
				return
			}
			if !hasProblem(rep, wacz.DigestPath, tc.want, -1) {
				t.Errorf("no problem of %s: %s", tc.want, problems(rep))
			}
		})
	}
}

func sha256Of(s string) []byte {
	sum := sha256.Sum256([]byte(s))
	return sum[:]
}

func mustStamp(t *testing.T, s *opensslts.Server, data string) []byte {
	st, err := s.Client().Stamp(context.Background(), []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	return st.Response
}

func setJSON(t *testing.T, files []zipFile, df map[string]any) {
	b, err := json.MarshalIndent(df, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	fileOf(t, files, wacz.DigestPath).data = b
}

// An anonymous signature stamped by a timestamp authority (the extension's, with
// a timestamp authority set): checked whole natively, read in the browser.
func TestAnonymousSignatureWithTimestamp(t *testing.T) {
	ts := opensslts.ForTest(t)
	key := newKey(t)
	s, _ := waczauth.NewSigner(key)
	now := time.Now().UTC()
	warcs, index := testWARCs(t)
	data := writeWACZBy(t, &wacz.KeyAuthority{Signer: s, Timestamper: ts.Client()}, now, warcs, index)
	rep := verify(t, data, wacz.VerifyOptions{Certificates: &waczauth.Checker{Roots: rootsOf(t, nil, ts.RootPEM)}})
	if !rep.OK() || !rep.Signature.Valid || rep.Signature.Timestamp == nil || !rep.Signature.Timestamp.Trusted {
		t.Errorf("problems %s; signature %+v", problems(rep), rep.Signature)
	}
	rep = verify(t, data, wacz.VerifyOptions{})
	if !rep.OK() || !rep.Signature.Valid || rep.Signature.Timestamp == nil || len(rep.Unchecked) != 1 {
		t.Errorf("without a checker: problems %s; unchecked %q", problems(rep), rep.Unchecked)
	}
	files := unzipFiles(t, data)
	setSignedData(t, files, "timeSignature", base64.StdEncoding.EncodeToString(mustStamp(t, ts, "other")))
	if rep := verify(t, rezip(t, files), wacz.VerifyOptions{}); !hasProblem(rep, wacz.DigestPath, "signedData.timeSignature", -1) {
		t.Errorf("a stamp of another signature, without a checker: %s", problems(rep))
	}
}

// A timestamp authority whose clock is more than 10 minutes from the signer's is
// refused at signing, rather than written into a WACZ that fails.
func TestSigningRefusesAFarTimestamp(t *testing.T) {
	ts := opensslts.ForTest(t)
	s, _ := waczauth.NewSigner(newKey(t))
	warcs, index := testWARCs(t)
	var buf strings.Builder
	w := wacz.NewWriter(&nopWriter{&buf}, wacz.Options{Authority: &wacz.KeyAuthority{Signer: s, Timestamper: ts.Client()}, SignedAt: time.Now().Add(-time.Hour)})
	for name, d := range warcs {
		if err := w.AddWARC(name, strings.NewReader(string(d))); err != nil {
			t.Fatal(err)
		}
	}
	w.AddIndex(index)
	if err := w.Close(); err == nil || !strings.Contains(err.Error(), "10m0s") {
		t.Errorf("signed an hour ago, stamped now: %v", err)
	}
}

type nopWriter struct{ b *strings.Builder }

func (w *nopWriter) Write(p []byte) (int, error) { return w.b.Write(p) }

func TestNewDomainAuthorityRefusesAnotherKey(t *testing.T) {
	pki := newDomainPKI(t, "a.example", time.Now().Add(-time.Hour))
	s, _ := waczauth.NewSigner(newKey(t))
	ts := &tsa.Client{URL: "http://127.0.0.1:1/"}
	if _, err := waczauth.NewDomainAuthority(s, pki.chain, ts, ""); err == nil || !strings.Contains(err.Error(), "another key") {
		t.Errorf("a certificate of another key: %v", err)
	}
	if _, err := waczauth.NewDomainAuthority(pki.signer, []byte("no PEM"), ts, ""); err == nil {
		t.Error("no certificate: no error")
	}
	if _, err := waczauth.NewDomainAuthority(pki.signer, pki.chain, nil, ""); err == nil || !strings.Contains(err.Error(), "timestamp authority") {
		t.Errorf("no timestamp authority: %v", err)
	}
}
