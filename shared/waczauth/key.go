package waczauth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
)

// Signer is a wacz.Signer over an ECDSA private key held in memory: the command
// line's key file, the Worker's secret.
type Signer struct {
	key  *ecdsa.PrivateKey
	spki []byte
}

// NewSigner returns a Signer over key, which must be on P-256, P-384 or P-521
// (ReplayWeb.page verifies anonymous signatures of P-384 keys only: see
// GenerateKey).
func NewSigner(key *ecdsa.PrivateKey) (*Signer, error) {
	spki, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return nil, fmt.Errorf("waczauth: the key's public key: %w", err)
	}
	return &Signer{key: key, spki: spki}, nil
}

// GenerateKey makes a new signing key: ECDSA on P-384, the curve ReplayWeb.page
// verifies WACZ signatures with.
func GenerateKey() (*ecdsa.PrivateKey, error) {
	return ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
}

// Sign signs SHA-256(data) and returns r and s, each the curve's size (IEEE P1363,
// WebCrypto's form), as wacz.Signer says.
func (s *Signer) Sign(data []byte) ([]byte, error) {
	sum := sha256.Sum256(data)
	r, ss, err := ecdsa.Sign(rand.Reader, s.key, sum[:])
	if err != nil {
		return nil, err
	}
	n := (s.key.Curve.Params().BitSize + 7) / 8
	sig := make([]byte, 2*n)
	r.FillBytes(sig[:n])
	ss.FillBytes(sig[n:])
	return sig, nil
}

// PublicKey returns the DER SubjectPublicKeyInfo of the key.
func (s *Signer) PublicKey() []byte { return s.spki }

// ErrNoPrivateKey reports PEM data with no ECDSA private key.
var ErrNoPrivateKey = errors.New("waczauth: no PEM private key (PRIVATE KEY or EC PRIVATE KEY)")

// ParsePrivateKey reads the first ECDSA private key of PEM data: PKCS #8
// ("PRIVATE KEY", as `openssl genpkey` and `webkeep wacz keygen` write it) or SEC 1
// ("EC PRIVATE KEY").
func ParsePrivateKey(data []byte) (*ecdsa.PrivateKey, error) {
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			return nil, ErrNoPrivateKey
		}
		switch block.Type {
		case "PRIVATE KEY":
			k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
			if err != nil {
				return nil, fmt.Errorf("waczauth: the PKCS #8 private key: %w", err)
			}
			ek, ok := k.(*ecdsa.PrivateKey)
			if !ok {
				return nil, fmt.Errorf("waczauth: the private key is a %T, not an ECDSA key", k)
			}
			return ek, nil
		case "EC PRIVATE KEY":
			k, err := x509.ParseECPrivateKey(block.Bytes)
			if err != nil {
				return nil, fmt.Errorf("waczauth: the EC private key: %w", err)
			}
			return k, nil
		}
	}
}
