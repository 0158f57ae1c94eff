//go:build !js

package wacz

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"fmt"
	"math/big"
)

// What Go's crypto/ecdsa does here is left out of WebAssembly builds, which have
// the platform's WebCrypto (sign_js.go): it would make the extension's core 1.6 MB
// larger. The signer over a Go key is waczauth's (it links crypto/x509 anyway).

// MarshalPublicKey returns the DER SubjectPublicKeyInfo of an ECDSA public key, as
// WebCrypto's exportKey("spki") and x509.MarshalPKIXPublicKey write it.
func MarshalPublicKey(pub *ecdsa.PublicKey) ([]byte, error) {
	point, err := pub.Bytes()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrPublicKey, err)
	}
	for _, c := range spkiPrefixes {
		if c.curve == pub.Curve.Params().Name && len(point) == 1+2*c.size {
			return append([]byte(c.prefix), point...), nil
		}
	}
	return nil, fmt.Errorf("%w: curve %s", ErrPublicKey, pub.Curve.Params().Name)
}

// curves are the curves ParsePublicKey reads, by name.
var curves = map[string]func() elliptic.Curve{"P-256": elliptic.P256, "P-384": elliptic.P384, "P-521": elliptic.P521}

// ECDSAPublicKey returns pub as a crypto/ecdsa key, checking its point is on its
// curve.
func ECDSAPublicKey(pub *PublicKey) (*ecdsa.PublicKey, error) {
	curve, ok := curves[pub.Curve]
	if !ok {
		return nil, fmt.Errorf("%w: curve %s", ErrPublicKey, pub.Curve)
	}
	k, err := ecdsa.ParseUncompressedPublicKey(curve(), pub.Point)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrPublicKey, err)
	}
	return k, nil
}

func verifyECDSA(pub *PublicKey, data, sig []byte) error {
	k, err := ECDSAPublicKey(pub)
	if err != nil {
		return err
	}
	n := pub.size()
	sum := sha256.Sum256(data)
	r, s := new(big.Int).SetBytes(sig[:n]), new(big.Int).SetBytes(sig[n:])
	if !ecdsa.Verify(k, sum[:], r, s) {
		return ErrBadSignature
	}
	return nil
}
