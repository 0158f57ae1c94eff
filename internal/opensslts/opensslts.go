// Package opensslts is a real RFC 3161 timestamp authority for tests: OpenSSL's
// `openssl ts -reply`, with a root CA and a TSA certificate it makes, answering
// HTTP on 127.0.0.1. Tests of webkeep's timestamps hold them against it, not
// against webkeep's own output. Command opensslts (cmd/opensslts) serves it for
// the JavaScript tests.
//
// In its directory it leaves ca.pem and ca.key (the root CA, which tests may issue
// more certificates with), tsa.pem and tsa.key (the authority's certificate, EC
// P-256, extended key usage critical timeStamping), chain.pem (tsa.pem then
// ca.pem), ts.cnf (the `openssl ts` configuration) and serial.
package opensslts

import (
	"bytes"
	"context"
	"crypto"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Mode is how the Server answers.
type Mode int32

// Modes of the Server.
const (
	Grant   Mode = iota // openssl's answer
	Reject              // openssl's rejection: its configuration for it accepts no SHA-256 imprint (status rejection, failInfo badAlg)
	Garbage             // 200, application/timestamp-reply, with bytes that are no TimeStampResp
	Fail                // 500
	Replay              // the first answer it granted, whatever is asked (another request's nonce)
)

// Modes by name, for command opensslts's -mode.
var modeNames = map[string]Mode{"grant": Grant, "reject": Reject, "garbage": Garbage, "fail": Fail, "replay": Replay}

// ParseMode returns the Mode named "grant", "reject", "garbage", "fail" or
// "replay".
func ParseMode(name string) (Mode, error) {
	m, ok := modeNames[name]
	if !ok {
		return 0, fmt.Errorf("opensslts: no mode %q (grant, reject, garbage, fail, replay)", name)
	}
	return m, nil
}

// A Server is a timestamp authority on 127.0.0.1.
type Server struct {
	URL      string // http://127.0.0.1:port/
	Dir      string // where its keys, certificates and configuration are
	RootPEM  []byte // the root CA's certificate (Dir/ca.pem)
	ChainPEM []byte // the TSA's certificate, then the root's (Dir/chain.pem)

	mode     atomic.Int32
	requests atomic.Int64
	mu       sync.Mutex // one openssl at a time: they share the serial file
	first    []byte
	srv      *http.Server
}

// Available reports whether the openssl command is on the PATH.
func Available() bool {
	_, err := exec.LookPath("openssl")
	return err == nil
}

// ErrUnavailable reports that openssl is not installed.
var ErrUnavailable = errors.New("opensslts: the openssl command is not installed")

// Start makes a root CA and a TSA certificate in dir and serves on 127.0.0.1, on a
// port of the system's choosing.
func Start(dir string) (*Server, error) { return StartAt(dir, "127.0.0.1:0") }

// StartAt is Start serving on addr ("127.0.0.1:0", "127.0.0.1:3161").
func StartAt(dir, addr string) (*Server, error) {
	if !Available() {
		return nil, ErrUnavailable
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("opensslts: %w", err)
	}
	s := &Server{Dir: abs}
	if err := s.makeCertificates(); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("opensslts: %w", err)
	}
	s.URL = "http://" + ln.Addr().String() + "/"
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln)
	return s, nil
}

// SetMode sets how the Server answers from now on.
func (s *Server) SetMode(m Mode) { s.mode.Store(int32(m)) }

// Requests counts the requests the Server was sent.
func (s *Server) Requests() int { return int(s.requests.Load()) }

// Close stops the Server.
func (s *Server) Close() error { return s.srv.Close() }

// openssl runs the openssl command in the Server's directory, for at most 30
// seconds.
func (s *Server) openssl(args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "openssl", args...)
	cmd.Dir = s.Dir
	cmd.Env = append(os.Environ(), "OPENSSL_CONF="+filepath.Join(s.Dir, "req.cnf"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("opensslts: openssl %s: %v: %s", strings.Join(args, " "), err, bytes.TrimSpace(out))
	}
	return nil
}

// reqConf is the configuration of openssl req and x509 here, so that the system's
// openssl.cnf does not change the certificates.
const reqConf = `[ req ]
distinguished_name = dn
prompt = no
x509_extensions = ca_ext

[ dn ]
CN = unused

[ ca_ext ]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash

[ tsa_ext ]
basicConstraints = CA:FALSE
keyUsage = critical, digitalSignature, nonRepudiation
extendedKeyUsage = critical, timeStamping
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
`

// tsConf is the `openssl ts` configuration: section tsa_config1 grants, section
// tsa_reject (Reject) takes only SHA-512 imprints, so that it refuses webkeep's.
const tsConf = `[ tsa ]
default_tsa = tsa_config1

[ tsa_config1 ]
dir = %[1]s
serial = $dir/serial
crypto_device = builtin
signer_cert = $dir/tsa.pem
certs = $dir/ca.pem
signer_key = $dir/tsa.key
signer_digest = sha256
default_policy = 1.3.6.1.4.1.99999.1
other_policies = 1.3.6.1.4.1.99999.2
digests = sha1, sha256, sha384, sha512
accuracy = secs:1, millisecs:500, microsecs:100
clock_precision_digits = 0
ordering = yes
tsa_name = yes
ess_cert_id_chain = no
ess_cert_id_alg = sha256

[ tsa_reject ]
dir = %[1]s
serial = $dir/serial
crypto_device = builtin
signer_cert = $dir/tsa.pem
certs = $dir/ca.pem
signer_key = $dir/tsa.key
signer_digest = sha256
default_policy = 1.3.6.1.4.1.99999.1
digests = sha512
accuracy = secs:1
ordering = no
tsa_name = yes
ess_cert_id_chain = no
ess_cert_id_alg = sha256
`

// makeCertificates makes the root CA, the TSA's certificate and the configuration.
func (s *Server) makeCertificates() error {
	if strings.ContainsAny(s.Dir, "$\"\n") {
		return fmt.Errorf("opensslts: %q: openssl's configuration cannot name a directory with $, \" or a newline", s.Dir)
	}
	for name, text := range map[string]string{"req.cnf": reqConf, "ts.cnf": fmt.Sprintf(tsConf, s.Dir), "serial": "01\n"} {
		if err := os.WriteFile(filepath.Join(s.Dir, name), []byte(text), 0o600); err != nil {
			return fmt.Errorf("opensslts: %w", err)
		}
	}
	steps := [][]string{
		{"req", "-config", "req.cnf", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "ca.key", "-out", "ca.pem",
			"-days", "3650", "-subj", "/CN=webkeep test root CA/O=webkeep tests"},
		{"req", "-config", "req.cnf", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "tsa.key", "-out", "tsa.csr",
			"-subj", "/CN=webkeep test TSA/O=webkeep tests"},
		{"x509", "-req", "-in", "tsa.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "tsa.pem", "-days", "3650",
			"-extfile", "req.cnf", "-extensions", "tsa_ext"},
	}
	for _, args := range steps {
		if err := s.openssl(args...); err != nil {
			return err
		}
	}
	var err error
	if s.RootPEM, err = os.ReadFile(filepath.Join(s.Dir, "ca.pem")); err != nil {
		return fmt.Errorf("opensslts: %w", err)
	}
	leaf, err := os.ReadFile(filepath.Join(s.Dir, "tsa.pem"))
	if err != nil {
		return fmt.Errorf("opensslts: %w", err)
	}
	s.ChainPEM = append(leaf, s.RootPEM...)
	if err := os.WriteFile(filepath.Join(s.Dir, "chain.pem"), s.ChainPEM, 0o600); err != nil {
		return fmt.Errorf("opensslts: %w", err)
	}
	return nil
}

// Reply runs `openssl ts -reply` on the DER TimeStampReq query and returns the
// DER TimeStampResp it writes.
func (s *Server) Reply(query []byte) ([]byte, error) { return s.reply(query, "tsa_config1") }

// reply runs `openssl ts -reply` with the configuration's section.
func (s *Server) reply(query []byte, section string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q, r := filepath.Join(s.Dir, "query.tsq"), filepath.Join(s.Dir, "reply.tsr")
	if err := os.WriteFile(q, query, 0o600); err != nil {
		return nil, fmt.Errorf("opensslts: %w", err)
	}
	os.Remove(r)
	if err := s.openssl("ts", "-reply", "-config", "ts.cnf", "-section", section, "-queryfile", q, "-out", r); err != nil {
		return nil, err
	}
	resp, err := os.ReadFile(r)
	if err != nil {
		return nil, fmt.Errorf("opensslts: %w", err)
	}
	return resp, nil
}

// serve answers a POST of a TimeStampReq as the Server's Mode says.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "POST a TimeStampReq (application/timestamp-query)", http.StatusMethodNotAllowed)
		return
	}
	query, err := io.ReadAll(io.LimitReader(r.Body, 64<<10))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var reply []byte
	switch Mode(s.mode.Load()) {
	case Reject:
		if reply, err = s.reply(query, "tsa_reject"); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
	case Garbage:
		w.Header().Set("Content-Type", "application/timestamp-reply")
		w.Write([]byte("this is not a time-stamp response"))
		return
	case Fail:
		http.Error(w, "the test authority fails", http.StatusInternalServerError)
		return
	case Replay:
		s.mu.Lock()
		reply = s.first
		s.mu.Unlock()
		if reply == nil {
			http.Error(w, "nothing to replay yet", http.StatusInternalServerError)
			return
		}
	default:
		if reply, err = s.Reply(query); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		s.mu.Lock()
		if s.first == nil {
			s.first = reply
		}
		s.mu.Unlock()
	}
	w.Header().Set("Content-Type", "application/timestamp-reply")
	w.Write(reply)
}

// Issue returns a certificate for host and the public key pub, issued by the
// Server's root CA (valid from an hour ago for 30 days; key usage digital
// signature), and the root after it: a chain in PEM, leaf first, as a team
// archive's WEBKEEP_SIGNING_CERT holds it.
func (s *Server) Issue(host string, pub crypto.PublicKey) ([]byte, error) {
	caPEM, err := os.ReadFile(filepath.Join(s.Dir, "ca.key"))
	if err != nil {
		return nil, err
	}
	block, _ := pem.Decode(caPEM)
	if block == nil {
		return nil, errors.New("opensslts: ca.key is not PEM")
	}
	caKey, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("opensslts: ca.key: %w", err)
	}
	rootBlock, _ := pem.Decode(s.RootPEM)
	root, err := x509.ParseCertificate(rootBlock.Bytes)
	if err != nil {
		return nil, err
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: host}, DNSNames: []string{host},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(30 * 24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, root, pub, caKey)
	if err != nil {
		return nil, fmt.Errorf("opensslts: issuing a certificate for %s: %w", host, err)
	}
	return append(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), s.RootPEM...), nil
}
