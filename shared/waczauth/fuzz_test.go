package waczauth_test

import (
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/waczauth"
)

// pemSeeds are a signing key as each form a user may hand over writes it, and a
// certificate chain for a host name.
func pemSeeds(t testing.TB) (pkcs8, sec1, chain []byte) {
	t.Helper()
	key, err := waczauth.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	pkcs8 = pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	der, err = x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	sec1 = pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der})
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "archive.example.org"},
		DNSNames:     []string{"archive.example.org"},
		NotBefore:    time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		NotAfter:     time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC),
	}
	der, err = x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	chain = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	return pkcs8, sec1, chain
}

// FuzzParsePEM reads a user's key file and certificate chain, whatever they hold: a
// key or an error, never a key off its curve; certificates or an error.
func FuzzParsePEM(f *testing.F) {
	pkcs8, sec1, chain := pemSeeds(f)
	f.Add(pkcs8)
	f.Add(sec1)
	f.Add(chain)
	f.Add(append(append([]byte("-----BEGIN NOTES-----\nAA==\n-----END NOTES-----\n"), chain...), chain...))
	f.Add([]byte("-----BEGIN PRIVATE KEY-----\nMAA=\n-----END PRIVATE KEY-----\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		key, err := waczauth.ParsePrivateKey(data)
		if (key == nil) == (err == nil) {
			t.Fatalf("key %v, error %v", key != nil, err)
		}
		if key != nil {
			if key.Curve == nil || !key.Curve.IsOnCurve(key.X, key.Y) {
				t.Fatal("a key off its curve")
			}
			if _, err := waczauth.NewSigner(key); err != nil {
				t.Fatalf("a key read that cannot sign: %v", err)
			}
		}
		certs, err := waczauth.ParseChain(data)
		if (len(certs) == 0) == (err == nil) {
			t.Fatalf("%d certificates, error %v", len(certs), err)
		}
	})
}

// TestParsePEM reads each form of key and the chain, and refuses what is neither.
func TestParsePEM(t *testing.T) {
	pkcs8, sec1, chain := pemSeeds(t)
	for _, tc := range []struct {
		name       string
		data       []byte
		key, certs bool
	}{
		{"PKCS #8 key", pkcs8, true, false},
		{"SEC 1 key", sec1, true, false},
		{"chain", chain, false, true},
		{"key then chain", append(append([]byte{}, sec1...), chain...), true, true},
		{"empty", nil, false, false},
		{"a public key", pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: []byte{0x30, 0}}), false, false},
	} {
		key, kerr := waczauth.ParsePrivateKey(tc.data)
		certs, cerr := waczauth.ParseChain(tc.data)
		if (key != nil) != tc.key || (len(certs) > 0) != tc.certs {
			t.Errorf("%s: key %v (%v), %d certificates (%v)", tc.name, key != nil, kerr, len(certs), cerr)
		}
	}
}
