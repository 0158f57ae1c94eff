//go:build js

package tsa

import "errors"

// ErrNotChecked is what Verify answers in WebAssembly builds: the authority's CMS
// signature and certificates need crypto/x509, which the extension's core leaves
// out; `webkeep wacz verify` checks them.
var ErrNotChecked = errors.New("tsa: the authority's signature is checked by the command line, not in WebAssembly builds")

// VerifyOptions tune Verify; in WebAssembly builds they are not used.
type VerifyOptions struct{}

// Verified is a stamp whose authority's signature holds.
type Verified struct{ Stamp *Stamp }

// Verify returns ErrNotChecked: see Parse and Stamp.Covers for what a
// WebAssembly build checks.
func Verify(resp, data []byte, opts VerifyOptions) (*Verified, error) { return nil, ErrNotChecked }
