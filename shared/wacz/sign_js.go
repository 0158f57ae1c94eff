//go:build js

package wacz

import (
	"errors"
	"fmt"
	"syscall/js"
)

// verifyECDSA has the platform's WebCrypto verify the signature, as ReplayWeb.page
// does: crypto.subtle.verify with ECDSA and SHA-256, the key imported from its SPKI.
func verifyECDSA(pub *PublicKey, data, sig []byte) error {
	crypto := js.Global().Get("crypto")
	if crypto.Type() != js.TypeObject || crypto.Get("subtle").Type() != js.TypeObject {
		return errors.New("wacz: crypto.subtle is not available to verify the signature")
	}
	subtle := crypto.Get("subtle")
	usages := js.Global().Get("Array").New("verify")
	key, err := await(subtle.Call("importKey", "spki", bytesJS(pub.DER), map[string]any{"name": "ECDSA", "namedCurve": pub.Curve}, false, usages))
	if err != nil {
		return fmt.Errorf("%w: %v", ErrPublicKey, err)
	}
	ok, err := await(subtle.Call("verify", map[string]any{"name": "ECDSA", "hash": "SHA-256"}, key, bytesJS(sig), bytesJS(data)))
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBadSignature, err)
	}
	if !ok.Truthy() {
		return ErrBadSignature
	}
	return nil
}

func bytesJS(b []byte) js.Value {
	a := js.Global().Get("Uint8Array").New(len(b))
	js.CopyBytesToJS(a, b)
	return a
}

// await waits for a promise; not on the goroutine that runs JavaScript callbacks.
func await(p js.Value) (js.Value, error) {
	type answer struct {
		v   js.Value
		err error
	}
	ch := make(chan answer, 1)
	ok := js.FuncOf(func(this js.Value, args []js.Value) any {
		ch <- answer{v: args[0]}
		return nil
	})
	bad := js.FuncOf(func(this js.Value, args []js.Value) any {
		msg := "rejected"
		if len(args) > 0 {
			if m := args[0].Get("message"); m.Type() == js.TypeString {
				msg = m.String()
			} else {
				msg = js.Global().Call("String", args[0]).String()
			}
		}
		ch <- answer{err: errors.New(msg)}
		return nil
	})
	defer ok.Release()
	defer bad.Release()
	p.Call("then", ok, bad)
	a := <-ch
	return a.v, a.err
}
