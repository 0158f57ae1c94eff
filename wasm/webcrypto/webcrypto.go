//go:build js && wasm

// Package webcrypto computes digests with the platform's WebCrypto (crypto.subtle) from
// Go compiled to WebAssembly. In a browser or in node, its SHA-1 is native code, several
// times faster than any SHA-1 in WebAssembly; SHA1 fits warc.WriterOptions.SumSHA1.
package webcrypto

import (
	"crypto/sha1"
	"errors"
	"fmt"
	"sync"
	"syscall/js"

	"github.com/webkeep/webkeep/wasm/jspromise"
)

// ErrUnavailable is returned when the platform has no crypto.subtle (an insecure
// context in a browser).
var ErrUnavailable = errors.New("webcrypto: crypto.subtle is not available")

var (
	mu      sync.Mutex
	staging js.Value // a Uint8Array reused to hand bytes to crypto.subtle.digest
	subtle  js.Value
)

// SHA1 returns the SHA-1 sum of each of data, in order, computed by
// crypto.subtle.digest; the digests run concurrently. It waits for their promises, so
// it must not be called on the goroutine that runs JavaScript callbacks (see
// jspromise.Await).
func SHA1(data ...[]byte) ([][sha1.Size]byte, error) {
	promises, err := start(data)
	if err != nil {
		return nil, err
	}
	all, err := jspromise.Await(js.Global().Get("Promise").Call("all", promises))
	if err != nil {
		return nil, fmt.Errorf("webcrypto: SHA-1: %w", err)
	}
	sums := make([][sha1.Size]byte, len(data))
	for i := range sums {
		buf := all.Index(i)
		if n := buf.Get("byteLength").Int(); n != sha1.Size {
			return nil, fmt.Errorf("webcrypto: SHA-1 digest of %d bytes", n)
		}
		js.CopyBytesToGo(sums[i][:], js.Global().Get("Uint8Array").New(buf))
	}
	return sums, nil
}

// start copies data into JavaScript and starts one digest per buffer. A buffer that
// ends where an earlier one ends (a payload, the tail of its block) is not copied
// again. crypto.subtle.digest takes a copy of its input when called, so the staging
// array is free again once start returns.
func start(data [][]byte) (js.Value, error) {
	mu.Lock()
	defer mu.Unlock()
	if subtle.Type() != js.TypeObject {
		crypto := js.Global().Get("crypto")
		if crypto.Type() != js.TypeObject || crypto.Get("subtle").Type() != js.TypeObject {
			return js.Value{}, ErrUnavailable
		}
		subtle = crypto.Get("subtle")
	}
	total := 0
	for i, p := range data {
		if tailOf(data, i) < 0 {
			total += len(p)
		}
	}
	if staging.Type() != js.TypeObject || staging.Length() < total {
		staging = js.Global().Get("Uint8Array").New(max(total, 1<<20))
	}
	promises := js.Global().Get("Array").New(len(data))
	at := make([]int, len(data)) // where each buffer starts in staging
	off := 0
	for i, p := range data {
		if j := tailOf(data, i); j >= 0 {
			at[i] = at[j] + len(data[j]) - len(p)
		} else {
			at[i] = off
			if len(p) > 0 {
				js.CopyBytesToJS(staging.Call("subarray", off, off+len(p)), p)
			}
			off += len(p)
		}
		view := staging.Call("subarray", at[i], at[i]+len(p))
		promises.SetIndex(i, subtle.Call("digest", "SHA-1", view))
	}
	return promises, nil
}

// tailOf returns the index of an earlier buffer of data that data[i] is the tail of
// (they end at the same byte of memory), or -1.
func tailOf(data [][]byte, i int) int {
	p := data[i]
	if len(p) == 0 {
		return -1
	}
	for j := 0; j < i; j++ {
		q := data[j]
		if len(q) >= len(p) && tailOf(data, j) < 0 && &q[len(q)-1] == &p[len(p)-1] {
			return j
		}
	}
	return -1
}
