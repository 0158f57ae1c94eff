//go:build js && wasm

package main

import "github.com/webkeep/webkeep/wasm/webcrypto"

// platformSHA1 is the SHA-1 the extension's core gives the writer: WebCrypto's.
var platformSHA1 = webcrypto.SHA1
