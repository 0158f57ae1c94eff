//go:build !js

package tsa

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"encoding/asn1"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"time"

	"github.com/digitorus/pkcs7"
	"github.com/digitorus/timestamp"
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
	Chain   []*x509.Certificate // signer first, to the root (without Roots: as far as it links)
	Trusted bool                // the chain ends in one of VerifyOptions.Roots
}

// ErrSignature reports a token whose signature or certificates do not hold.
var ErrSignature = errors.New("tsa: the authority's signature does not hold")

// OIDs of the signed attributes RFC 3161 and RFC 5652 require.
var (
	oidContentType    = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 3}
	oidSigningCert    = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 16, 2, 12} // ESS signingCertificate (SHA-1)
	oidSigningCertV2  = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 16, 2, 47} // ESS signingCertificateV2
	oidExtKeyUsage    = asn1.ObjectIdentifier{2, 5, 29, 37}
	oidSHA256Digest   = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 1}
	essHashesByOID    = map[string]func() hash.Hash{"1.3.14.3.2.26": sha1.New, "2.16.840.1.101.3.4.2.1": sha256.New, "2.16.840.1.101.3.4.2.2": sha512.New384, "2.16.840.1.101.3.4.2.3": sha512.New}
	errNoSigningCerts = errors.New("no ESS signing certificate attribute")
)

// Verify checks an RFC 3161 TimeStampResp of data, and says in its error which
// check failed: that it reads (Parse); that its CMS signature holds
// (github.com/digitorus/timestamp), over a TSTInfo, made by the certificate its
// ESS signing-certificate attribute names; that it stamps data (Stamp.Covers);
// that the certificate's extended key usage is timeStamping alone, critical (RFC
// 3161, section 2.3); and that certificate's chain, valid at opts.At, anchored in
// opts.Roots when they are set. The token's certificates and opts.Intermediates
// build the chain.
func Verify(resp, data []byte, opts VerifyOptions) (*Verified, error) {
	st, err := Parse(resp)
	if err != nil {
		return nil, err
	}
	signer, certs, err := checkSignature(st, opts.Intermediates)
	if err != nil {
		return nil, err
	}
	if err := st.Covers(data); err != nil {
		return nil, err
	}
	if err := timeStamping(signer); err != nil {
		return nil, fmt.Errorf("%w: the certificate that signed it (%s) %v", ErrSignature, signer.Subject, err)
	}
	at := opts.At
	if at.IsZero() {
		at = st.Time
	}
	v := &Verified{Stamp: st, Signer: signer}
	if opts.Roots != nil {
		inter := x509.NewCertPool()
		for _, c := range certs {
			inter.AddCert(c)
		}
		chains, err := signer.Verify(x509.VerifyOptions{Roots: opts.Roots, Intermediates: inter, CurrentTime: at, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageTimeStamping}})
		if err != nil {
			return nil, fmt.Errorf("%w: the authority's certificate (%s) is not anchored in the trusted roots at %s: %v", ErrSignature, signer.Subject, at.UTC().Format(time.RFC3339), err)
		}
		v.Chain, v.Trusted = chains[0], true
		return v, nil
	}
	if v.Chain, err = linkChain(signer, certs, at); err != nil {
		return nil, err
	}
	return v, nil
}

// checkSignature checks the token's CMS signature and returns the certificate
// that made it, and the certificates to build its chain with (the token's, then
// extra).
func checkSignature(st *Stamp, extra []*x509.Certificate) (*x509.Certificate, []*x509.Certificate, error) {
	p7, err := pkcs7.Parse(st.Token)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: its token is not a CMS SignedData: %v", ErrFormat, err)
	}
	if len(p7.Signers) != 1 {
		return nil, nil, fmt.Errorf("%w: the token has %d signers, where RFC 3161 has one", ErrSignature, len(p7.Signers))
	}
	certs := append(append([]*x509.Certificate{}, p7.Certificates...), extra...)
	if signer := p7.GetOnlySigner(); signer != nil {
		// The token carries its signer's certificate, as a request with certReq
		// TRUE asks: github.com/digitorus/timestamp reads it and checks its
		// signature.
		ts, err := timestamp.Parse(st.Token)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %s", ErrSignature, signatureError(err))
		}
		if !bytes.Equal(ts.HashedMessage, st.Digest) || ts.SerialNumber == nil || ts.SerialNumber.String() != st.Serial || !ts.Time.Equal(st.Time) {
			return nil, nil, fmt.Errorf("%w: its TSTInfo reads differently as signed (serial %v, time %s, digest %x)", ErrFormat, ts.SerialNumber, ts.Time, ts.HashedMessage)
		}
	} else {
		// The signer's certificate is among extra (wacz-auth's timestampCert).
		p7.Certificates = certs
		if p7.GetOnlySigner() == nil {
			return nil, nil, fmt.Errorf("%w: neither the token nor the certificates given with it hold the certificate that signed it", ErrSignature)
		}
		if err := p7.Verify(); err != nil {
			return nil, nil, fmt.Errorf("%w: %s", ErrSignature, signatureError(err))
		}
	}
	signer := p7.GetOnlySigner()
	if !bytes.Equal(p7.Content, st.info) {
		return nil, nil, fmt.Errorf("%w: the TSTInfo read is not the content signed", ErrFormat)
	}
	var ct asn1.ObjectIdentifier
	if err := p7.UnmarshalSignedAttribute(oidContentType, &ct); err != nil || !ct.Equal(oidTSTInfo) {
		return nil, nil, fmt.Errorf("%w: its signed content-type attribute does not say TSTInfo (%v)", ErrSignature, ct)
	}
	if err := checkSigningCertificate(p7, signer); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrSignature, err)
	}
	return signer, certs, nil
}

// signatureError says in words what the CMS verification found.
func signatureError(err error) string {
	var digest *pkcs7.MessageDigestMismatchError
	if errors.As(err, &digest) {
		return fmt.Sprintf("the TSTInfo is not what was signed (its digest is %x, the signed one %x)", digest.ActualDigest, digest.ExpectedDigest)
	}
	var structural asn1.StructuralError
	var syntax asn1.SyntaxError
	var parse timestamp.ParseError
	if errors.As(err, &structural) || errors.As(err, &syntax) || errors.As(err, &parse) {
		return fmt.Sprintf("its token cannot be read to check its signature (%v)", err)
	}
	return fmt.Sprintf("the signature over the token does not verify with the certificate it names (%v)", err)
}

// essCertIDs reads the certificate hashes of an ESS SigningCertificate (RFC 2634)
// or SigningCertificateV2 (RFC 5035) attribute: SEQUENCE { certs SEQUENCE OF
// ESSCertID(v2), policies OPTIONAL }, an ESSCertIDv2 being SEQUENCE {
// hashAlgorithm DEFAULT sha256, certHash OCTET STRING, issuerSerial OPTIONAL }.
type essSigningCertificate struct {
	Certs    []asn1.RawValue
	Policies asn1.RawValue `asn1:"optional"`
}

// checkSigningCertificate checks that the token's ESS signing-certificate
// attribute, which RFC 3161 requires, names signer: its first ESSCertID is the
// hash of signer's certificate.
func checkSigningCertificate(p7 *pkcs7.PKCS7, signer *x509.Certificate) error {
	var sc essSigningCertificate
	v2 := true
	if err := p7.UnmarshalSignedAttribute(oidSigningCertV2, &sc); err != nil {
		v2 = false
		if err := p7.UnmarshalSignedAttribute(oidSigningCert, &sc); err != nil {
			return fmt.Errorf("the token names no signing certificate (an ESS signing-certificate attribute, as RFC 3161 requires)")
		}
	}
	if len(sc.Certs) == 0 {
		return fmt.Errorf("its ESS signing-certificate attribute names no certificate")
	}
	var first asn1.RawValue
	if _, err := asn1.Unmarshal(sc.Certs[0].Bytes, &first); err != nil {
		return fmt.Errorf("its ESS signing-certificate attribute cannot be read: %v", err)
	}
	alg, certHash := "1.3.14.3.2.26", first.Bytes // ESSCertID: SHA-1
	if v2 {
		alg = oidSHA256Digest.String()
		if first.Tag == asn1.TagSequence {
			var id algorithmIdentifier
			if _, err := asn1.Unmarshal(first.FullBytes, &id); err != nil {
				return fmt.Errorf("its ESS signing-certificate attribute cannot be read: %v", err)
			}
			alg = id.Algorithm.String()
			var next asn1.RawValue
			if _, err := asn1.Unmarshal(sc.Certs[0].Bytes[len(first.FullBytes):], &next); err != nil {
				return fmt.Errorf("its ESS signing-certificate attribute cannot be read: %v", err)
			}
			first = next
		}
		certHash = first.Bytes
	}
	if first.Class != asn1.ClassUniversal || first.Tag != asn1.TagOctetString {
		return fmt.Errorf("its ESS signing-certificate attribute cannot be read")
	}
	newHash, ok := essHashesByOID[alg]
	if !ok {
		return fmt.Errorf("its ESS signing-certificate attribute hashes with %s, not a hash this package computes", alg)
	}
	h := newHash()
	h.Write(signer.Raw)
	if sum := h.Sum(nil); !bytes.Equal(sum, certHash) {
		return fmt.Errorf("its ESS signing-certificate attribute names another certificate (hash %s) than the one that signed it, %s (%s)", hex.EncodeToString(certHash), signer.Subject, hex.EncodeToString(sum))
	}
	return nil
}

// timeStamping checks that c's extended key usage is timeStamping alone, and
// critical (RFC 3161, section 2.3).
func timeStamping(c *x509.Certificate) error {
	if len(c.ExtKeyUsage) != 1 || c.ExtKeyUsage[0] != x509.ExtKeyUsageTimeStamping || len(c.UnknownExtKeyUsage) > 0 {
		return errors.New("is not for timestamping: its extended key usage is not timeStamping alone")
	}
	for _, e := range c.Extensions {
		if e.Id.Equal(oidExtKeyUsage) {
			if !e.Critical {
				return errors.New("has the extended key usage timeStamping, but not critical, as RFC 3161 requires")
			}
			return nil
		}
	}
	return errors.New("has no extended key usage extension")
}

// linkChain follows c's issuers among pool, checking each signature and that each
// certificate is valid at at, up to a self-signed certificate or the last issuer
// found.
func linkChain(c *x509.Certificate, pool []*x509.Certificate, at time.Time) ([]*x509.Certificate, error) {
	chain := []*x509.Certificate{c}
	for {
		last := chain[len(chain)-1]
		if at.Before(last.NotBefore) || at.After(last.NotAfter) {
			return nil, fmt.Errorf("%w: the certificate %s is valid from %s to %s, not at %s", ErrSignature, last.Subject,
				last.NotBefore.UTC().Format(time.RFC3339), last.NotAfter.UTC().Format(time.RFC3339), at.UTC().Format(time.RFC3339))
		}
		if len(chain) > len(pool) || bytes.Equal(last.RawIssuer, last.RawSubject) && last.CheckSignatureFrom(last) == nil {
			return chain, nil
		}
		var next *x509.Certificate
		for _, p := range pool {
			if bytes.Equal(last.RawIssuer, p.RawSubject) && !p.Equal(last) && last.CheckSignatureFrom(p) == nil {
				next = p
				break
			}
		}
		if next == nil {
			return chain, nil
		}
		chain = append(chain, next)
	}
}
