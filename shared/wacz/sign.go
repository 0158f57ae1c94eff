package wacz

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/webkeep/webkeep/shared/tsa"
)

// Signing follows WACZ Signing and Verification 0.1.0 (wacz-auth,
// https://specs.webrecorder.net/wacz-auth/0.1.0/), its anonymous form, exactly as
// ArchiveWeb.page writes it and ReplayWeb.page (wabac.js, src/wacz/certutils.ts,
// verifyWACZSignature) checks it:
//
//	datapackage-digest.json = {
//	  "path": "datapackage.json",
//	  "hash": "sha256:<hex SHA-256 of the datapackage.json bytes>",
//	  "signedData": {
//	    "hash":      the same string as "hash", "sha256:" included,
//	    "signature": base64 of the ECDSA signature of the UTF-8 bytes of "hash",
//	                 SHA-256 as its hash, in the IEEE P1363 form WebCrypto gives
//	                 (r then s, each the curve's size: 96 bytes on P-384), not DER,
//	    "publicKey": base64 of the key's DER SubjectPublicKeyInfo (SPKI),
//	    "created":   when it was signed, RFC 3339,
//	    "software":  the program that signed it
//	  }
//	}
//
// wabac.js imports the key as ECDSA P-384 (namedCurve "P-384", whatever the key
// says) and verifies with {name: "ECDSA", hash: "SHA-256"}: a key on another curve
// does not import, and ReplayWeb.page then shows no key. Keys made here are P-384.
// Verify checks P-256, P-384 and P-521 signatures.

// A Signer signs a WACZ: Options.Signer, or a KeyAuthority's. The extension's is WebCrypto's (a key that
// never leaves the browser, wasm/webcrypto), the command line's an ECDSASigner (not
// in WebAssembly builds, sign_native.go).
type Signer interface {
	// Sign returns the ECDSA signature of data with SHA-256 as its hash (the hash
	// is computed by Sign, as WebCrypto's sign does), as r and s, each padded to
	// the curve's size (IEEE P1363, WebCrypto's form).
	Sign(data []byte) (sig []byte, err error)
	// PublicKey returns the public key that checks the signatures: its DER
	// SubjectPublicKeyInfo.
	PublicKey() []byte
}

// SignedData is datapackage-digest.json's "signedData" (wacz-auth 0.1.0), in either
// form: anonymous (PublicKey) or domain-name (Domain and DomainCert, with an RFC
// 3161 timestamp); a timestamp may stamp an anonymous signature too. The
// properties are in the order ArchiveWeb.page and authsign write them.
type SignedData struct {
	Hash      string `json:"hash"`
	Signature string `json:"signature"`
	// PublicKey is the base64 DER SubjectPublicKeyInfo of the anonymous form.
	PublicKey string `json:"publicKey,omitempty"`
	// Domain and DomainCert are the domain-name form's: the host name the
	// certificate names, and the certificate chain in PEM, leaf first.
	Domain     string `json:"domain,omitempty"`
	DomainCert string `json:"domainCert,omitempty"`
	Created    string `json:"created"`
	Software   string `json:"software"`
	// TimeSignature is the base64 DER TimeStampResp of an RFC 3161 timestamp
	// authority, its imprint the SHA-256 of the ASCII bytes of Signature (as
	// authsign asks it); TimestampCert the certificates it carries, in PEM.
	TimeSignature string `json:"timeSignature,omitempty"`
	TimestampCert string `json:"timestampCert,omitempty"`
}

// An Authority signs the hash of a datapackage.json ("sha256:<hex>"): it returns the
// whole signedData, in whichever form it signs. A KeyAuthority signs with a key at
// hand; a team archive's /api/sign is one over HTTP.
type Authority interface {
	SignHash(ctx context.Context, hash string, created time.Time) (*SignedData, error)
}

// A Timestamper has an RFC 3161 timestamp authority stamp data (its SHA-256):
// *tsa.Client is one.
type Timestamper interface {
	Stamp(ctx context.Context, data []byte) (*tsa.Stamp, error)
}

// MaxClockSkew is how far a signature's created time may be from its timestamp's
// (wacz-auth 0.1.0, domain-name validation, step 6).
const MaxClockSkew = 10 * time.Minute

// stampTimeout bounds the timestamp authority's answer.
const stampTimeout = 30 * time.Second

// KeyAuthority is an Authority over a Signer: the anonymous form, or the
// domain-name form when DomainCert is set (the Signer's key must then be the
// certificate's: waczauth.NewDomainAuthority checks it), stamped by Timestamper
// when it is set.
type KeyAuthority struct {
	Signer      Signer
	Software    string // empty: "webkeep"
	Domain      string // the host name DomainCert's leaf names
	DomainCert  string // PEM certificate chain, leaf first
	Timestamper Timestamper
}

// SignHash signs hash with a.Signer, checking the signature against the signer's
// own key before it is given out: a WACZ never carries a signature that fails.
func (a *KeyAuthority) SignHash(ctx context.Context, hash string, created time.Time) (*SignedData, error) {
	spki := a.Signer.PublicKey()
	pub, err := ParsePublicKey(spki)
	if err != nil {
		return nil, fmt.Errorf("%w: the signer's public key: %v", ErrSignature, err)
	}
	sig, err := a.Signer.Sign([]byte(hash))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSignature, err)
	}
	if err := VerifySignature(pub, []byte(hash), sig); err != nil {
		return nil, fmt.Errorf("%w: the signature made does not verify with the signer's key: %v", ErrSignature, err)
	}
	software := a.Software
	if software == "" {
		software = "webkeep"
	}
	sd := &SignedData{
		Hash:      hash,
		Signature: base64.StdEncoding.EncodeToString(sig),
		Created:   formatTime(created.Truncate(time.Second)),
		Software:  software,
	}
	if a.DomainCert != "" {
		sd.Domain, sd.DomainCert = a.Domain, a.DomainCert
	} else {
		sd.PublicKey = base64.StdEncoding.EncodeToString(spki)
	}
	if a.Timestamper != nil {
		if err := stamp(ctx, a.Timestamper, sd, created); err != nil {
			return nil, err
		}
	}
	return sd, nil
}

// stamp has ts stamp sd's signature, as wacz-auth's timeSignature, and checks that
// the authority's time is within MaxClockSkew of created.
func stamp(ctx context.Context, ts Timestamper, sd *SignedData, created time.Time) error {
	ctx, cancel := context.WithTimeout(ctx, stampTimeout)
	defer cancel()
	st, err := ts.Stamp(ctx, []byte(sd.Signature))
	if err != nil {
		return fmt.Errorf("%w: the timestamp: %v", ErrSignature, err)
	}
	if skew := st.Time.Sub(created).Abs(); skew > MaxClockSkew {
		return fmt.Errorf("%w: the timestamp authority's time, %s, is %s from this clock's, %s: wacz-auth allows %s", ErrSignature,
			formatTime(st.Time), skew.Round(time.Second), formatTime(created), MaxClockSkew)
	}
	sd.TimeSignature = base64.StdEncoding.EncodeToString(st.Response)
	sd.TimestampCert = st.CertificatesPEM()
	return nil
}

// ErrSignature reports a Signer that failed, or whose signature does not verify
// with its own public key, or a timestamp authority that did not stamp it.
var ErrSignature = errors.New("wacz: signing")

// signManifestHash signs hash with a at created (zero: now), checking what an
// Authority returned is the signature of that hash.
func signManifestHash(ctx context.Context, a Authority, hash string, created time.Time) (*SignedData, error) {
	if created.IsZero() {
		created = time.Now()
	}
	sd, err := a.SignHash(ctx, hash, created)
	if err != nil {
		return nil, err
	}
	if sd.Hash != hash {
		return nil, fmt.Errorf("%w: the authority signed %s, not %s", ErrSignature, sd.Hash, hash)
	}
	if sd.PublicKey != "" {
		spki, err := base64.StdEncoding.DecodeString(sd.PublicKey)
		if err != nil {
			return nil, fmt.Errorf("%w: the authority's public key: %v", ErrSignature, err)
		}
		pub, err := ParsePublicKey(spki)
		if err != nil {
			return nil, fmt.Errorf("%w: the authority's public key: %v", ErrSignature, err)
		}
		sig, err := base64.StdEncoding.DecodeString(sd.Signature)
		if err != nil {
			return nil, fmt.Errorf("%w: the authority's signature: %v", ErrSignature, err)
		}
		if err := VerifySignature(pub, []byte(hash), sig); err != nil {
			return nil, fmt.Errorf("%w: the authority's signature does not verify with its key: %v", ErrSignature, err)
		}
	}
	return sd, nil
}

// SignManifest returns the datapackage-digest.json of the datapackage.json bytes
// manifest, signed by a at the time created (zero: now): what the Writer writes when
// Options.Authority or Options.Signer is set, for signing a WACZ already written.
func SignManifest(ctx context.Context, manifest []byte, a Authority, created time.Time) ([]byte, error) {
	sum := sha256.Sum256(manifest)
	df := digestFile{Path: DatapackagePath, Hash: "sha256:" + hex.EncodeToString(sum[:])}
	var err error
	if df.SignedData, err = signManifestHash(ctx, a, df.Hash, created); err != nil {
		return nil, err
	}
	return marshal(df)
}

// spkiPrefixes are the DER SubjectPublicKeyInfo (RFC 5280, RFC 5480) of an ECDSA
// key on each curve up to its uncompressed point: SEQUENCE { SEQUENCE { id-ecPublicKey,
// the curve's OID }, BIT STRING { 0x04 || x || y } }. DER has one encoding of each
// key, so a key is read, and written, by its prefix; encoding/asn1 would cost the
// extension's core 100 KB.
var spkiPrefixes = []struct {
	curve  string
	size   int
	prefix string
}{
	{"P-256", 32, "\x30\x59\x30\x13\x06\x07\x2a\x86\x48\xce\x3d\x02\x01\x06\x08\x2a\x86\x48\xce\x3d\x03\x01\x07\x03\x42\x00"},
	{"P-384", 48, "\x30\x76\x30\x10\x06\x07\x2a\x86\x48\xce\x3d\x02\x01\x06\x05\x2b\x81\x04\x00\x22\x03\x62\x00"},
	{"P-521", 66, "\x30\x81\x9b\x30\x10\x06\x07\x2a\x86\x48\xce\x3d\x02\x01\x06\x05\x2b\x81\x04\x00\x23\x03\x81\x86\x00"},
}

// ErrPublicKey reports a public key that is not an ECDSA key on P-256, P-384 or
// P-521 in a DER SubjectPublicKeyInfo.
var ErrPublicKey = errors.New("wacz: not an ECDSA P-256, P-384 or P-521 public key")

// PublicKey is an ECDSA public key as a signature holds it.
type PublicKey struct {
	Curve string // "P-256", "P-384" or "P-521", as WebCrypto names them
	Point []byte // the uncompressed point, 0x04 || x || y
	DER   []byte // the DER SubjectPublicKeyInfo
}

// size is the length of a coordinate, and of r and s.
func (k *PublicKey) size() int { return (len(k.Point) - 1) / 2 }

// Equal reports whether k and o are the same key.
func (k *PublicKey) Equal(o *PublicKey) bool {
	return k.Curve == o.Curve && bytes.Equal(k.Point, o.Point)
}

// ParsePublicKey reads a DER SubjectPublicKeyInfo of an ECDSA key on P-256, P-384
// or P-521, its point uncompressed (as WebCrypto exports it). The point is checked
// to be on the curve when a signature is verified with it.
func ParsePublicKey(der []byte) (*PublicKey, error) {
	for _, c := range spkiPrefixes {
		if len(der) == len(c.prefix)+1+2*c.size && string(der[:len(c.prefix)]) == c.prefix && der[len(c.prefix)] == 4 {
			return &PublicKey{Curve: c.curve, Point: der[len(c.prefix):], DER: der}, nil
		}
	}
	if len(der) > 30 && der[0] == 0x30 {
		return nil, fmt.Errorf("%w: another algorithm or curve, or a compressed point (%d bytes)", ErrPublicKey, len(der))
	}
	return nil, fmt.Errorf("%w: not a DER SubjectPublicKeyInfo", ErrPublicKey)
}

// ErrBadSignature reports a signature that does not verify.
var ErrBadSignature = errors.New("the signature does not verify")

// VerifySignature checks sig, an ECDSA signature with SHA-256 in the IEEE P1363
// form (r then s, each the curve's size), of data with pub. A DER signature is
// refused, saying so: ReplayWeb.page would not verify it. In WebAssembly the
// platform's WebCrypto verifies (Go's ECDSA would make the core 1.6 MB larger);
// it must then not be called on the goroutine that runs JavaScript callbacks.
func VerifySignature(pub *PublicKey, data, sig []byte) error {
	n := pub.size()
	if len(sig) != 2*n {
		if len(sig) > 2 && sig[0] == 0x30 && int(sig[1])+2 == len(sig) || len(sig) > 3 && sig[0] == 0x30 && sig[1] == 0x81 {
			return fmt.Errorf("%w: it is in ASN.1 DER form; WebCrypto's (and ReplayWeb.page's) is r and s, %d bytes each", ErrBadSignature, n)
		}
		return fmt.Errorf("%w: %d bytes, where a %s signature has %d", ErrBadSignature, len(sig), pub.Curve, 2*n)
	}
	return verifyECDSA(pub, data, sig)
}

// Fingerprint names a public key: the hex SHA-256 of its DER SubjectPublicKeyInfo,
// what `openssl pkey -pubin -outform DER | sha256sum` prints for it.
func Fingerprint(spki []byte) string {
	sum := sha256.Sum256(spki)
	return hex.EncodeToString(sum[:])
}
