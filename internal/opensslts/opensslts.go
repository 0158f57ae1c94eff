// Package opensslts is a real RFC 3161 timestamp authority for tests: OpenSSL's
// `openssl ts -reply`, with a root CA and a TSA certificate it makes, answering
// HTTP on 127.0.0.1. Tests of webkeep's timestamps hold them against it, not
// against webkeep's own output.
package opensslts

import (
	"bytes"
	"context"
	"crypto"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
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
	Reject              // a rejection (status 2, failInfo badRequest), as a TSA refuses
	Garbage             // 200 with bytes that are no TimeStampResp
	Fail                // 500
	Replay              // the first answer it gave, whatever is asked (a wrong nonce)
)

// A Server is a timestamp authority on 127.0.0.1.
type Server struct {
	URL      string // http://127.0.0.1:port/
	Dir      string // where its keys, certificates and configuration are
	RootPEM  []byte // the root CA's certificate
	ChainPEM []byte // the TSA's certificate, then the root's

	mode     atomic.Int32
	requests atomic.Int64
	mu       sync.Mutex // one openssl at a time: they share the serial file
	first    []byte
	srv      *http.Server
	ln       net.Listener
}

// Available reports whether the openssl command is on the PATH.
func Available() bool {
	_, err := exec.LookPath("openssl")
	return err == nil
}

// Start makes a root CA and a TSA certificate (EC P-256, extended key usage
// critical timeStamping) in dir and serves on 127.0.0.1.
func Start(dir string) (*Server, error) {
	s := &Server{Dir: dir}
	if err := s.makeCertificates(); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s.ln = ln
	s.URL = "http://" + ln.Addr().String() + "/"
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln)
	return s, nil
}

// SetMode sets how the Server answers from now on.
func (s *Server) SetMode(m Mode) { s.mode.Store(int32(m)) }

// Requests counts the requests answered.
func (s *Server) Requests() int64 { return s.requests.Load() }

// Close stops the Server.
func (s *Server) Close() error { return s.srv.Close() }

func (s *Server) openssl(args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "openssl", args...)
	cmd.Dir = s.Dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("opensslts: openssl %s: %v: %s", strings.Join(args, " "), err, bytes.TrimSpace(out))
	}
	return nil
}

func (s *Server) makeCertificates() error {
	ext := `[tsa_ext]
basicConstraints = CA:FALSE
keyUsage = critical, digitalSignature, nonRepudiation
extendedKeyUsage = critical, timeStamping
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
`
	conf := fmt.Sprintf(`[ tsa ]
default_tsa = tsa_config1

[ tsa_config1 ]
dir = %s
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
`, s.Dir)
	for name, text := range map[string]string{"ext.cnf": ext, "ts.cnf": conf, "serial": "01\n"} {
		if err := os.WriteFile(filepath.Join(s.Dir, name), []byte(text), 0o600); err != nil {
			return err
		}
	}
	steps := [][]string{
		{"req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "3650",
			"-subj", "/CN=webkeep test root CA/O=webkeep tests", "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"},
		{"req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "tsa.key", "-out", "tsa.csr", "-subj", "/CN=webkeep test TSA/O=webkeep tests"},
		{"x509", "-req", "-in", "tsa.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "tsa.pem", "-days", "3650", "-extfile", "ext.cnf", "-extensions", "tsa_ext"},
	}
	for _, args := range steps {
		if err := s.openssl(args...); err != nil {
			return err
		}
	}
	var err error
	if s.RootPEM, err = os.ReadFile(filepath.Join(s.Dir, "ca.pem")); err != nil {
		return err
	}
	leaf, err := os.ReadFile(filepath.Join(s.Dir, "tsa.pem"))
	if err != nil {
		return err
	}
	s.ChainPEM = append(leaf, s.RootPEM...)
	return os.WriteFile(filepath.Join(s.Dir, "chain.pem"), s.ChainPEM, 0o600)
}

// Reply runs `openssl ts -reply` on the DER TimeStampReq query.
func (s *Server) Reply(query []byte) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q, r := filepath.Join(s.Dir, "query.tsq"), filepath.Join(s.Dir, "reply.tsr")
	if err := os.WriteFile(q, query, 0o600); err != nil {
		return nil, err
	}
	os.Remove(r)
	if err := s.openssl("ts", "-reply", "-config", "ts.cnf", "-queryfile", q, "-out", r); err != nil {
		return nil, err
	}
	return os.ReadFile(r)
}

// rejection is a TimeStampResp of status rejection (2), failInfo badRequest (bit 2).
func rejection() []byte {
	type statusInfo struct {
		Status       int
		StatusString []asn1.RawValue
		FailInfo     asn1.BitString
	}
	text, err := asn1.MarshalWithParams("request refused by the test authority", "utf8")
	if err != nil {
		panic(err)
	}
	der, err := asn1.Marshal(struct{ Status statusInfo }{statusInfo{Status: 2, StatusString: []asn1.RawValue{{FullBytes: text}},
		FailInfo: asn1.BitString{Bytes: []byte{0x20}, BitLength: 3}}})
	if err != nil {
		panic(err)
	}
	return der
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	if r.Method != http.MethodPost {
		http.Error(w, "POST a TimeStampReq", http.StatusMethodNotAllowed)
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
		reply = rejection()
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

// ErrUnavailable reports that openssl is not installed.
var ErrUnavailable = errors.New("opensslts: the openssl command is not installed")

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
