//go:build !js

package waczauth

import (
	"crypto/x509"
	"encoding/base64"

	"github.com/webkeep/webkeep/shared/tsa"
	"github.com/webkeep/webkeep/shared/wacz"
)

// CheckTimestamp checks sd's timeSignature, as wacz.CertificateChecker says: the
// authority's CMS signature and chain (the token's certificates and
// timestampCert's; with Roots, ending in one of them), and that it stamps the
// signature's text.
func (c *Checker) CheckTimestamp(sd *wacz.SignedData) (*wacz.Timestamp, error) {
	raw, err := base64.StdEncoding.DecodeString(sd.TimeSignature)
	if err != nil {
		return nil, fieldErr("timeSignature", "not base64: %v", err)
	}
	var inter []*x509.Certificate
	if sd.TimestampCert != "" {
		if inter, err = ParseChain([]byte(sd.TimestampCert)); err != nil {
			return nil, fieldErr("timestampCert", "%v", err)
		}
	}
	v, err := tsa.Verify(raw, []byte(sd.Signature), tsa.VerifyOptions{Roots: c.Roots, Intermediates: inter})
	if err != nil {
		return nil, fieldErr("timeSignature", "%v", err)
	}
	if len(inter) > 0 && !inter[0].Equal(v.Signer) {
		return nil, fieldErr("timestampCert", "its first certificate (%s) is not the one that signed the timestamp (%s)", inter[0].Subject, v.Signer.Subject)
	}
	if c.Roots != nil && !v.Trusted {
		return nil, fieldErr("timestampCert", "the timestamp authority %s does not chain to a trusted root", v.Signer.Subject)
	}
	name := v.Stamp.TSA
	if name == "" {
		name = v.Signer.Subject.String()
	}
	return &wacz.Timestamp{Time: v.Stamp.Time, Authority: name, Serial: v.Stamp.Serial, Checked: true, Trusted: v.Trusted}, nil
}
