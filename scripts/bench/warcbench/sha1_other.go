//go:build !(js && wasm)

package main

import "crypto/sha1"

// platformSHA1 is nil natively: Go's SHA-1 (with assembly) is the platform's.
var platformSHA1 func(data ...[]byte) ([][sha1.Size]byte, error)
