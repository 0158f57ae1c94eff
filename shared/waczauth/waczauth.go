// Package waczauth is the X.509 half of WACZ signing (wacz-auth 0.1.0): the
// domain-name form, whose signature is made with the key of a certificate for a
// host name, and the check of RFC 3161 timestamps by their authority's
// certificate. Package wacz signs and checks the anonymous form in every build;
// this package links crypto/x509, which the extension's core leaves out, so it is
// used by the command line and the team archive's Worker.
//
// The domain-name form is written as authsign writes it (domainCert the PEM chain,
// leaf first; timeSignature the base64 DER TimeStampResp whose imprint is the
// SHA-256 of the signature's base64 text), with one difference, so that
// ReplayWeb.page's own check accepts it: the signature is in WebCrypto's IEEE
// P1363 form (r then s), as in the anonymous form, where authsign writes ASN.1
// DER. Checker accepts both.
package waczauth

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/webkeep/webkeep/shared/wacz"
)

// ErrCertificate reports a certificate chain that cannot sign: unreadable, not for
// a host name, or not of the signer's key.
var ErrCertificate = errors.New("waczauth: certificate")

// ParseChain reads the CERTIFICATE blocks of a PEM file, in order (leaf first).
func ParseChain(pemData []byte) ([]*x509.Certificate, error) {
	var certs []*x509.Certificate
	for n := 1; ; n++ {
		var b *pem.Block
		b, pemData = pem.Decode(pemData)
		if b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%w: PEM block %d: %v", ErrCertificate, n, err)
		}
		certs = append(certs, c)
	}
	if len(certs) == 0 {
		return nil, fmt.Errorf("%w: no PEM CERTIFICATE block", ErrCertificate)
	}
	return certs, nil
}

// DomainOf is the host name a certificate is for: its subject's common name, or
// else its first DNS subject alternative name, as authsign reads it.
func DomainOf(c *x509.Certificate) string {
	if c.Subject.CommonName != "" {
		return c.Subject.CommonName
	}
	if len(c.DNSNames) > 0 {
		return c.DNSNames[0]
	}
	return ""
}

// EncodeChain writes certs in PEM with a blank line between certificates:
// ReplayWeb.page reads domainCert's leaf as what comes before the first blank line.
func EncodeChain(certs []*x509.Certificate) string {
	var parts []string
	for _, c := range certs {
		parts = append(parts, strings.TrimRight(string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})), "\n"))
	}
	return strings.Join(parts, "\n\n") + "\n"
}

// NewDomainAuthority returns the Authority that signs in the domain-name form with
// signer, whose key must be that of chain's leaf certificate (PEM, leaf first),
// stamped by ts, which the form requires.
func NewDomainAuthority(signer wacz.Signer, chainPEM []byte, ts wacz.Timestamper, software string) (*wacz.KeyAuthority, error) {
	if ts == nil {
		return nil, fmt.Errorf("%w: the domain-name form is stamped by a timestamp authority (wacz-auth 0.1.0): none is set", ErrCertificate)
	}
	certs, err := ParseChain(chainPEM)
	if err != nil {
		return nil, err
	}
	leaf := certs[0]
	if !bytes.Equal(leaf.RawSubjectPublicKeyInfo, signer.PublicKey()) {
		return nil, fmt.Errorf("%w: the certificate for %q is of another key than the signing key %s", ErrCertificate, DomainOf(leaf), wacz.Fingerprint(signer.PublicKey()))
	}
	domain := DomainOf(leaf)
	if domain == "" {
		return nil, fmt.Errorf("%w: the certificate names no host (no common name, no DNS name)", ErrCertificate)
	}
	return &wacz.KeyAuthority{Signer: signer, Software: software, Domain: domain, DomainCert: EncodeChain(certs), Timestamper: ts}, nil
}

// Checker is the wacz.CertificateChecker of the command line.
type Checker struct {
	// Roots are the roots a domain certificate's or a timestamp authority's chain
	// must end in; nil: chains are checked link by link but not anchored, and
	// reported as such.
	Roots *x509.CertPool
}

func fieldErr(field, format string, args ...any) error {
	return &wacz.FieldError{Field: field, Err: fmt.Errorf(format, args...)}
}

// CheckDomain checks a domain-name signature, as wacz.CertificateChecker says:
// the chain (each certificate signed by the next, the leaf valid when the
// signature was created, and, with Roots, ending in one of them), the leaf's name
// is the domain, and the signature is the leaf key's, in either encoding.
func (c *Checker) CheckDomain(sd *wacz.SignedData) (*wacz.DomainCertificate, error) {
	certs, err := ParseChain([]byte(sd.DomainCert))
	if err != nil {
		return nil, fieldErr("domainCert", "%v", err)
	}
	leaf := certs[0]
	for i := 0; i+1 < len(certs); i++ {
		if err := certs[i].CheckSignatureFrom(certs[i+1]); err != nil {
			return nil, fieldErr("domainCert", "certificate %d (%s) is not signed by certificate %d (%s): %v", i+1, certs[i].Subject, i+2, certs[i+1].Subject, err)
		}
	}
	domain := DomainOf(leaf)
	if !strings.EqualFold(domain, sd.Domain) {
		return nil, fieldErr("domain", "says %q; the certificate is for %q", sd.Domain, domain)
	}
	if err := verifyWithCertificate(leaf, sd); err != nil {
		return nil, err
	}
	created, err := time.Parse(time.RFC3339Nano, sd.Created)
	if err != nil {
		return nil, fieldErr("created", "not an RFC 3339 time: %q", sd.Created)
	}
	if created.Before(leaf.NotBefore) || created.After(leaf.NotAfter) {
		return nil, fieldErr("domainCert", "the certificate for %s is valid from %s to %s, not when the signature was created, %s", domain,
			leaf.NotBefore.UTC().Format(time.RFC3339), leaf.NotAfter.UTC().Format(time.RFC3339), sd.Created)
	}
	sum := sha256.Sum256(leaf.Raw)
	dc := &wacz.DomainCertificate{
		Domain: domain, Subject: leaf.Subject.String(), Issuer: leaf.Issuer.String(), Fingerprint: hex.EncodeToString(sum[:]),
		PublicKey: leaf.RawSubjectPublicKeyInfo, NotBefore: leaf.NotBefore, NotAfter: leaf.NotAfter,
	}
	if c.Roots != nil {
		inter := x509.NewCertPool()
		for _, x := range certs[1:] {
			inter.AddCert(x)
		}
		if _, err := leaf.Verify(x509.VerifyOptions{Roots: c.Roots, Intermediates: inter, CurrentTime: created, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}}); err != nil {
			return nil, fieldErr("domainCert", "the certificate for %s does not chain to a trusted root: %v", domain, err)
		}
		dc.Trusted = true
	}
	return dc, nil
}

// verifyWithCertificate checks sd.Signature of sd.Hash with cert's ECDSA key, the
// signature in the IEEE P1363 form or in ASN.1 DER.
func verifyWithCertificate(cert *x509.Certificate, sd *wacz.SignedData) error {
	pub, ok := cert.PublicKey.(*ecdsa.PublicKey)
	if !ok {
		return fieldErr("domainCert", "the certificate's key is %s, not ECDSA", cert.PublicKeyAlgorithm)
	}
	sig, err := base64.StdEncoding.DecodeString(sd.Signature)
	if err != nil {
		return fieldErr("signature", "not base64: %v", err)
	}
	sum := sha256.Sum256([]byte(sd.Hash))
	n := (pub.Curve.Params().BitSize + 7) / 8
	if len(sig) == 2*n {
		r, s := new(big.Int).SetBytes(sig[:n]), new(big.Int).SetBytes(sig[n:])
		if ecdsa.Verify(pub, sum[:], r, s) {
			return nil
		}
	} else if ecdsa.VerifyASN1(pub, sum[:], sig) {
		return nil
	}
	return fieldErr("signature", "%v with the key of the certificate for %s", wacz.ErrBadSignature, DomainOf(cert))
}
