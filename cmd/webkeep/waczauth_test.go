package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/webkeep/webkeep/internal/opensslts"
	"github.com/webkeep/webkeep/shared/httpmsg/nethttp"
	"github.com/webkeep/webkeep/shared/teamarchive"
	"github.com/webkeep/webkeep/shared/tsa"
	"github.com/webkeep/webkeep/shared/waczauth"
)

// A WACZ signed in the domain-name form with a certificate OpenSSL issued, stamped
// by OpenSSL's timestamp authority, then by a team archive: each verified, with
// and without the roots that anchor it.
func TestWACZSignDomainTimestampTeam(t *testing.T) {
	if !opensslts.Available() {
		if os.Getenv("CI") == "true" {
			t.Fatal("openssl is not installed (scripts/setup.sh installs it for make test)")
		}
		t.Skip("openssl is not installed")
	}
	dir := t.TempDir()
	caDir := filepath.Join(dir, "tsa")
	os.MkdirAll(caDir, 0o755)
	ts, err := opensslts.Start(caDir)
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	src, _ := cleanWARC(t, dir, 2)
	key := filepath.Join(dir, "team.pem")
	runOK(t, "wacz", "keygen", "-o", key)
	// The team's certificate, issued by the authority's root CA (one --roots file).
	openssl := func(args ...string) {
		cmd := exec.Command("openssl", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("openssl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	openssl("req", "-new", "-key", key, "-subj", "/CN=archive.team.example", "-out", "team.csr")
	os.WriteFile(filepath.Join(dir, "ext.cnf"), []byte("[e]\nsubjectAltName = DNS:archive.team.example\nkeyUsage = critical, digitalSignature\n"), 0o644)
	openssl("x509", "-req", "-in", "team.csr", "-CA", filepath.Join(caDir, "ca.pem"), "-CAkey", filepath.Join(caDir, "ca.key"), "-CAcreateserial",
		"-days", "30", "-out", "team-cert.pem", "-extfile", "ext.cnf", "-extensions", "e")
	leaf, _ := os.ReadFile(filepath.Join(dir, "team-cert.pem"))
	chain := filepath.Join(dir, "chain.pem")
	os.WriteFile(chain, append(leaf, ts.RootPEM...), 0o644)
	roots := filepath.Join(caDir, "ca.pem")

	unsigned, signed := filepath.Join(dir, "unsigned.wacz"), filepath.Join(dir, "domain.wacz")
	runOK(t, "wacz", "create", "-o", unsigned, src)
	out := runOK(t, "wacz", "sign", "--key", key, "--cert", chain, "--tsa", ts.URL, unsigned, signed)
	if !strings.Contains(out, "signed by the certificate for archive.team.example, timestamped ") {
		t.Errorf("sign said %q", out)
	}
	out = runOK(t, "wacz", "verify", "--roots", roots, signed)
	for _, want := range []string{"ok    signature: valid, of sha256:", "by the certificate for archive.team.example", "its chain to a root this machine trusts",
		"ok    timestamp: ", "by CN=webkeep test TSA,O=webkeep tests", "its authority's signature valid, its chain to a root this machine trusts",
		"verified: 4 files, 4 WARC records, 2 index lines; signed by the certificate for archive.team.example (key "} {
		if !strings.Contains(out, want) {
			t.Errorf("verify --roots: no %q in\n%s", want, out)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"wacz", "verify", signed}, &stdout, &stderr); code != 1 ||
		!strings.Contains(stdout.String(), "FAIL  datapackage-digest.json: signedData.domainCert: the certificate for archive.team.example does not chain to a trusted root") ||
		!strings.Contains(stdout.String(), "FAIL  datapackage-digest.json: signedData.timeSignature: ") {
		t.Errorf("verify without the roots: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}

	// The same, signed by a team archive holding the key, its certificate and the
	// authority.
	pemKey, _ := os.ReadFile(key)
	k, err := waczauth.ParsePrivateKey(pemKey)
	if err != nil {
		t.Fatal(err)
	}
	signer, _ := waczauth.NewSigner(k)
	chainPEM, _ := os.ReadFile(chain)
	srv := httptest.NewServer(teamarchive.NewServer(teamarchive.Config{
		Bucket: teamarchive.NewMemBucket(), Tokens: teamarchive.ParseTokens("alice:s3cret"),
		Signer: signer, SigningCert: chainPEM,
		Timestamper: &tsa.Client{URL: ts.URL, HTTP: nethttp.Client{Client: &http.Client{Timeout: 30 * time.Second}}},
	}))
	defer srv.Close()
	teamSigned := filepath.Join(dir, "team.wacz")
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"wacz", "sign", "--team", srv.URL, "--token", "wrong", unsigned, teamSigned}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "401") {
		t.Errorf("a wrong token: exit %d, %s", code, stderr.String())
	}
	out = runOK(t, "wacz", "sign", "--team", srv.URL, "--token", "s3cret", unsigned, teamSigned)
	if !regexp.MustCompile(`signed by the certificate for archive.team.example, timestamped \d{4}-`).MatchString(out) {
		t.Errorf("sign --team said %q", out)
	}
	out = runOK(t, "wacz", "verify", "--roots", roots, teamSigned)
	if !strings.Contains(out, "by webkeep team archive") || !strings.Contains(out, "; signed by the certificate for archive.team.example") {
		t.Errorf("verify of the team's signature:\n%s", out)
	}
}
