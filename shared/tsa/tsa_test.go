package tsa_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/webkeep/webkeep/internal/opensslts"
	"github.com/webkeep/webkeep/shared/httpmsg/nethttp"
	"github.com/webkeep/webkeep/shared/tsa"
)

// authority starts OpenSSL's timestamp authority on 127.0.0.1; without openssl the
// test is skipped, except under CI, where make test installs it.
func authority(t *testing.T) *opensslts.Server {
	t.Helper()
	if !opensslts.Available() {
		if os.Getenv("CI") == "true" {
			t.Fatal("openssl is not installed (scripts/setup.sh installs it for make test)")
		}
		t.Skip("openssl is not installed")
	}
	s, err := opensslts.Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func client(s *opensslts.Server) *tsa.Client {
	return &tsa.Client{URL: s.URL, HTTP: nethttp.Client{Client: &http.Client{Timeout: 30 * time.Second}}}
}

func pool(t *testing.T, pemData []byte) *x509.CertPool {
	p := x509.NewCertPool()
	if !p.AppendCertsFromPEM(pemData) {
		t.Fatal("no certificate in the PEM")
	}
	return p
}

func TestStampAndVerify(t *testing.T) {
	s := authority(t)
	data := []byte("MEUCIQD a signature's base64 text")
	st, err := client(s).Stamp(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(st.Time); d < -2*time.Second || d > time.Minute {
		t.Errorf("stamped at %s, now is %s", st.Time, time.Now())
	}
	if st.Hash != "SHA-256" || st.Policy != "1.3.6.1.4.1.99999.1" || st.TSA != "CN=webkeep test TSA,O=webkeep tests" || len(st.Certificates) != 2 {
		t.Errorf("stamp: hash %s, policy %s, TSA %q, %d certificates", st.Hash, st.Policy, st.TSA, len(st.Certificates))
	}
	if !strings.Contains(st.CertificatesPEM(), "-----BEGIN CERTIFICATE-----") {
		t.Error("no PEM certificates")
	}
	v, err := tsa.Verify(st.Response, data, tsa.VerifyOptions{Roots: pool(t, s.RootPEM)})
	if err != nil {
		t.Fatal(err)
	}
	if !v.Trusted || v.Signer.Subject.CommonName != "webkeep test TSA" || len(v.Chain) != 2 {
		t.Errorf("verified: trusted %v, signer %s, chain of %d", v.Trusted, v.Signer.Subject, len(v.Chain))
	}
	v, err = tsa.Verify(st.Response, data, tsa.VerifyOptions{})
	if err != nil || v.Trusted || len(v.Chain) != 2 {
		t.Errorf("without roots: %v, trusted %v", err, v != nil && v.Trusted)
	}
	other := authority(t) // another root CA
	if _, err := tsa.Verify(st.Response, data, tsa.VerifyOptions{Roots: pool(t, other.RootPEM)}); !errors.Is(err, tsa.ErrSignature) || !strings.Contains(err.Error(), "trusted root") {
		t.Errorf("another root: %v", err)
	}
	if _, err := tsa.Verify(st.Response, append(data, '!'), tsa.VerifyOptions{}); !errors.Is(err, tsa.ErrMismatch) {
		t.Errorf("other data: %v", err)
	}
}

// Every byte of the token's signed content and signature matters: a response with
// one byte changed does not verify.
func TestTamperedResponse(t *testing.T) {
	s := authority(t)
	data := []byte("signature")
	st, err := client(s).Stamp(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	roots := pool(t, s.RootPEM)
	digest := bytes.Index(st.Response, st.Digest)
	cases := map[string]int{
		"the imprint":       digest + 3,
		"the signature":     len(st.Response) - 5,
		"the time":          bytes.Index(st.Response, []byte(st.Time.Format("20060102150405"))) + 12,
		"the serial number": bytes.Index(st.Response, st.Digest) + len(st.Digest) + 2,
	}
	for name, at := range cases {
		t.Run(name, func(t *testing.T) {
			if at < 0 || at >= len(st.Response) {
				t.Fatalf("offset %d", at)
			}
			bad := bytes.Clone(st.Response)
			bad[at] ^= 0x01
			if _, err := tsa.Verify(bad, data, tsa.VerifyOptions{Roots: roots}); err == nil {
				t.Errorf("byte %d of %d changed, and it verifies", at, len(bad))
			}
		})
	}
}

func TestAuthorityFailures(t *testing.T) {
	s := authority(t)
	c := client(s)
	if _, err := c.Stamp(context.Background(), []byte("first")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		mode opensslts.Mode
		is   error
		says []string
	}{
		{opensslts.Reject, tsa.ErrRejected, []string{"rejection", "badRequest", "refused by the test authority", s.URL}},
		{opensslts.Garbage, tsa.ErrFormat, []string{s.URL}},
		{opensslts.Fail, nil, []string{"500", s.URL}},
		{opensslts.Replay, tsa.ErrMismatch, []string{"stamps SHA-256", s.URL}},
	} {
		s.SetMode(tc.mode)
		_, err := c.Stamp(context.Background(), []byte("second"))
		if err == nil || (tc.is != nil && !errors.Is(err, tc.is)) {
			t.Errorf("mode %d: %v, want %v", tc.mode, err, tc.is)
			continue
		}
		for _, w := range tc.says {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("mode %d: %q does not say %q", tc.mode, err, w)
			}
		}
	}
	s.SetMode(opensslts.Grant)
	if _, err := (&tsa.Client{URL: "http://127.0.0.1:1/", HTTP: c.HTTP}).Stamp(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Errorf("no authority: %v", err)
	}
}

// The vector: a response OpenSSL made, read as `openssl ts -reply -text` prints it.
func TestOpenSSLVector(t *testing.T) {
	resp, err := os.ReadFile("testdata/reply.tsr")
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile("testdata/data.txt")
	want := opensslText(t, "testdata/reply.txt")
	st, err := tsa.Parse(resp)
	if err != nil {
		t.Fatal(err)
	}
	at, err := time.Parse("Jan _2 15:04:05 2006 MST", want["Time stamp"])
	if err != nil {
		t.Fatal(err)
	}
	serial, _ := new(big.Int).SetString(strings.TrimPrefix(want["Serial number"], "0x"), 16)
	nonce, _ := new(big.Int).SetString(strings.TrimPrefix(want["Nonce"], "0x"), 16)
	if !st.Time.Equal(at) || st.Serial != serial.String() || st.Policy != want["Policy OID"] || !bytes.Equal(st.Nonce, nonce.Bytes()) ||
		hex.EncodeToString(st.Digest) != want["Message data"] || !strings.EqualFold(strings.ReplaceAll(st.Hash, "-", ""), want["Hash Algorithm"]) {
		t.Errorf("read %+v\nopenssl says %v", st, want)
	}
	if err := st.Covers(data); err != nil {
		t.Error(err)
	}
	ca, _ := os.ReadFile(filepath.Join("testdata", "ca.pem"))
	if _, err := tsa.Verify(resp, data, tsa.VerifyOptions{Roots: pool(t, ca), At: st.Time}); err != nil {
		t.Error(err)
	}
}

// opensslText reads the "Name: value" lines of `openssl ts -text`, the hex dump
// of "Message data" as one hex string.
func opensslText(t *testing.T, name string) map[string]string {
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	dump := false
	for sc.Scan() {
		line := sc.Text()
		if dump && strings.HasPrefix(line, "    ") {
			hexPart, _, _ := strings.Cut(strings.TrimSpace(line)[7:], "   ")
			out["Message data"] += strings.NewReplacer(" ", "", "-", "").Replace(hexPart)
			continue
		}
		dump = false
		k, v, ok := strings.Cut(line, ": ")
		if ok {
			out[k] = strings.TrimSpace(v)
		}
		if strings.HasPrefix(line, "Message data:") {
			dump = true
		}
	}
	return out
}

func TestRequestIsReadByOpenSSL(t *testing.T) {
	s := authority(t)
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
}
