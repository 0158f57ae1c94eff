//go:build !js

package tsa

import (
	"crypto/x509"
	"errors"
	"fmt"
	"time"

	"github.com/digitorus/pkcs7"
)

// VerifyOptions tune Verify.
type VerifyOptions struct {
	// Roots are the trusted roots the authority's chain must end in; nil: the
	// chain is checked certificate by certificate but not anchored (Verified.
	// Trusted is false).
	Roots *x509.CertPool
	// Intermediates are more certificates to build the chain with (wacz-auth's
	// timestampCert); the token's own are always used.
	Intermediates []*x509.Certificate
	// At is when the chain must be valid; zero: the stamp's time.
	At time.Time
}

// Verified is a stamp whose authority's signature holds.
type Verified struct {
	Stamp   *Stamp
	Signer  *x509.Certificate   // the certificate whose key signed the token
	Chain   []*x509.Certificate // from Signer to the root, as far as it was built
	Trusted bool                // the chain ends in one of VerifyOptions.Roots
}

// ErrSignature reports a token whose signature or certificates do not hold.
var ErrSignature = errors.New("tsa: the authority's signature does not hold")

// Verify checks an RFC 3161 TimeStampResp of data: it reads (Parse), stamps data
// (Stamp.Covers), its CMS signature holds with the certificate it names (whose
// extended key usage is timeStamping, as RFC 3161 requires), and that
// certificate's chain, to one of opts.Roots when set.
func Verify(resp, data []byte, opts VerifyOptions) (*Verified, error) {
	st, err := Parse(resp)
	if err != nil {
		return nil, err
	}
	if err := st.Covers(data); err != nil {
		return nil, err
	}
	p7, err := pkcs7.Parse(st.Token)
	if err != nil {
		return nil, fmt.Errorf("%w: the token: %v", ErrFormat, err)
	}
	if len(p7.Signers) != 1 {
		return nil, fmt.Errorf("%w: the token has %d signers, where RFC 3161 has one", ErrSignature, len(p7.Signers))
	}
	signer := p7.GetOnlySigner()
	if signer == nil {
		return nil, fmt.Errorf("%w: the token does not carry the certificate that signed it (the request asks for it)", ErrSignature)
	}
	if err := p7.Verify(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSignature, err)
	}
	if !timeStamping(signer) {
		return nil, fmt.Errorf("%w: the certificate that signed it (%s) is not for timestamping (no critical extended key usage timeStamping)", ErrSignature, signer.Subject)
	}
	at := opts.At
	if at.IsZero() {
		at = st.Time
	}
	if at.Before(signer.NotBefore) || at.After(signer.NotAfter) {
		return nil, fmt.Errorf("%w: the certificate that signed it (%s) is valid from %s to %s, not at %s", ErrSignature, signer.Subject,
			signer.NotBefore.UTC().Format(time.RFC3339), signer.NotAfter.UTC().Format(time.RFC3339), at.UTC().Format(time.RFC3339))
	}
	pool := append(append([]*x509.Certificate{}, p7.Certificates...), opts.Intermediates...)
	v := &Verified{Stamp: st, Signer: signer}
	if opts.Roots != nil {
		inter := x509.NewCertPool()
		for _, c := range pool {
			inter.AddCert(c)
		}
		chains, err := signer.Verify(x509.VerifyOptions{Roots: opts.Roots, Intermediates: inter, CurrentTime: at, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageTimeStamping}})
		if err != nil {
			return nil, fmt.Errorf("%w: the authority's certificate (%s) does not chain to a trusted root: %v", ErrSignature, signer.Subject, err)
		}
		v.Chain, v.Trusted = chains[0], true
		return v, nil
	}
	v.Chain, err = linkChain(signer, pool)
	if err != nil {
		return nil, err
	}
	return v, nil
}

// timeStamping reports whether c's extended key usage is timeStamping alone, and
// critical (RFC 3161, section 2.3).
func timeStamping(c *x509.Certificate) bool {
	if len(c.ExtKeyUsage) != 1 || c.ExtKeyUsage[0] != x509.ExtKeyUsageTimeStamping {
		return false
	}
	for _, e := range c.Extensions {
		if e.Id.Equal([]int{2, 5, 29, 37}) {
			return e.Critical
		}
	}
	return false
}

// linkChain follows c's issuers among pool, checking each signature, up to a
// self-signed certificate or the last issuer found.
func linkChain(c *x509.Certificate, pool []*x509.Certificate) ([]*x509.Certificate, error) {
	chain := []*x509.Certificate{c}
	for len(chain) <= len(pool) {
		last := chain[len(chain)-1]
		if last.CheckSignatureFrom(last) == nil {
			break
		}
		var next *x509.Certificate
		for _, p := range pool {
			if !p.Equal(last) && last.CheckSignatureFrom(p) == nil {
				next = p
				break
			}
		}
		if next == nil {
			break
		}
		chain = append(chain, next)
	}
	return chain, nil
}
