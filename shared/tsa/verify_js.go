//go:build js

package tsa

// VerifyOptions tune Verify; in WebAssembly builds, which check no certificates,
// they are empty.
type VerifyOptions struct{}

// Verified is a stamp whose authority's signature holds; WebAssembly builds make
// none.
type Verified struct{ Stamp *Stamp }

// Verify returns ErrNotChecked: the authority's CMS signature and certificates
// need crypto/x509, which the extension's core does not link. See Parse and
// Stamp.Covers for what a WebAssembly build checks.
func Verify(resp, data []byte, opts VerifyOptions) (*Verified, error) { return nil, ErrNotChecked }
