//go:build js

package waczauth

import (
	"github.com/webkeep/webkeep/shared/tsa"
	"github.com/webkeep/webkeep/shared/wacz"
)

// CheckTimestamp answers tsa.ErrNotChecked in WebAssembly builds (the Worker signs
// and stamps; it does not check WACZ files).
func (c *Checker) CheckTimestamp(sd *wacz.SignedData) (*wacz.Timestamp, error) {
	return nil, &wacz.FieldError{Field: "timeSignature", Err: tsa.ErrNotChecked}
}
