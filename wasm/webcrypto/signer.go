//go:build js && wasm

package webcrypto

import (
	"errors"
	"fmt"
	"sync"
	"syscall/js"
	"time"

	"github.com/webkeep/webkeep/wasm/jspromise"
)

// The WACZ signing key is an ECDSA P-384 key pair that WebCrypto makes, the first
// time it is asked for, with a private key that is not extractable: no script, the
// extension's own included, can read it, only sign with it. The key pair is kept in
// IndexedDB as CryptoKeys (structured clones: the private key's bytes never reach
// JavaScript), in its own database, apart from the store of sessions
// (extension/store.js): deleting or clearing sessions never loses it.
const (
	keyDB    = "webkeep-keys"
	keyStore = "keys"
	waczKey  = "wacz-signing"
)

// Signer signs WACZ files (it is a shared/wacz Signer) with the browser's key: ECDSA
// P-384 with SHA-256, the signature as r and s (IEEE P1363), as ReplayWeb.page
// checks it.
type Signer struct {
	private js.Value // CryptoKey, not extractable
	spki    []byte
	created string
}

var (
	signerMu sync.Mutex
	signer   *Signer
)

// WACZSigner returns the browser's WACZ signing key, read from IndexedDB, or made and
// kept there the first time. Where there is no IndexedDB (node, in tests), the key is
// made anew and kept in memory only. It waits for promises, so it must not be called
// on the goroutine that runs JavaScript callbacks.
func WACZSigner() (*Signer, error) {
	signerMu.Lock()
	defer signerMu.Unlock()
	if signer != nil {
		return signer, nil
	}
	subtle, err := subtleCrypto()
	if err != nil {
		return nil, err
	}
	idb := js.Global().Get("indexedDB")
	if idb.Type() != js.TypeObject {
		s, _, err := makeKey(subtle)
		if err != nil {
			return nil, err
		}
		signer = s
		return s, nil
	}
	db, err := openKeys(idb)
	if err != nil {
		return nil, fmt.Errorf("webcrypto: opening the key store: %w", err)
	}
	defer db.Call("close")
	s, err := readKey(db)
	if err != nil {
		return nil, err
	}
	if s == nil {
		made, value, err := makeKey(subtle)
		if err != nil {
			return nil, err
		}
		tx := db.Call("transaction", keyStore, "readwrite")
		if _, err := request(tx.Call("objectStore", keyStore).Call("add", value, waczKey)); err != nil {
			// Another instance kept its key first (ConstraintError): that one is the key.
			if s, err = readKey(db); s == nil && err == nil {
				err = errors.New("the key made could not be kept, nor another read")
			}
			if err != nil {
				return nil, fmt.Errorf("webcrypto: keeping the signing key: %w", err)
			}
		} else {
			s = made
		}
	}
	signer = s
	return s, nil
}

func subtleCrypto() (js.Value, error) {
	crypto := js.Global().Get("crypto")
	if crypto.Type() != js.TypeObject || crypto.Get("subtle").Type() != js.TypeObject {
		return js.Value{}, ErrUnavailable
	}
	return crypto.Get("subtle"), nil
}

// makeKey has WebCrypto make a key pair; it returns its Signer and the value that
// keeps it in IndexedDB.
func makeKey(subtle js.Value) (*Signer, js.Value, error) {
	usages := js.Global().Get("Array").New("sign", "verify")
	pair, err := jspromise.Await(subtle.Call("generateKey", map[string]any{"name": "ECDSA", "namedCurve": "P-384"}, false, usages))
	if err != nil {
		return nil, js.Value{}, fmt.Errorf("webcrypto: making the signing key: %w", err)
	}
	spki, err := jspromise.Await(subtle.Call("exportKey", "spki", pair.Get("publicKey")))
	if err != nil {
		return nil, js.Value{}, fmt.Errorf("webcrypto: exporting the public key: %w", err)
	}
	spkiBytes := js.Global().Get("Uint8Array").New(spki)
	s := &Signer{private: pair.Get("privateKey"), spki: bytesOf(spkiBytes), created: time.Now().UTC().Format(time.RFC3339)}
	value := js.Global().Get("Object").New()
	value.Set("privateKey", pair.Get("privateKey"))
	value.Set("publicKey", pair.Get("publicKey"))
	value.Set("spki", spkiBytes)
	value.Set("created", s.created)
	return s, value, nil
}

// readKey reads the kept key, or returns nil when there is none.
func readKey(db js.Value) (*Signer, error) {
	tx := db.Call("transaction", keyStore, "readonly")
	v, err := request(tx.Call("objectStore", keyStore).Call("get", waczKey))
	if err != nil {
		return nil, fmt.Errorf("webcrypto: reading the signing key: %w", err)
	}
	if v.Type() != js.TypeObject || v.Get("privateKey").Type() != js.TypeObject || v.Get("spki").Type() != js.TypeObject {
		return nil, nil
	}
	s := &Signer{private: v.Get("privateKey"), spki: bytesOf(v.Get("spki"))}
	if c := v.Get("created"); c.Type() == js.TypeString {
		s.created = c.String()
	}
	return s, nil
}

// openKeys opens the key database, making its store the first time.
func openKeys(idb js.Value) (js.Value, error) {
	req := idb.Call("open", keyDB, 1)
	upgrade := js.FuncOf(func(this js.Value, args []js.Value) any {
		req.Get("result").Call("createObjectStore", keyStore)
		return nil
	})
	defer upgrade.Release()
	req.Set("onupgradeneeded", upgrade)
	return request(req)
}

// request waits for an IndexedDB request and returns its result.
func request(req js.Value) (js.Value, error) {
	type answer struct {
		v   js.Value
		err error
	}
	ch := make(chan answer, 1)
	ok := js.FuncOf(func(this js.Value, args []js.Value) any {
		ch <- answer{v: req.Get("result")}
		return nil
	})
	bad := js.FuncOf(func(this js.Value, args []js.Value) any {
		if len(args) > 0 && args[0].Type() == js.TypeObject {
			args[0].Call("preventDefault") // the error is handled: the transaction need not say it again
		}
		ch <- answer{err: &jspromise.Rejection{Value: req.Get("error")}}
		return nil
	})
	defer ok.Release()
	defer bad.Release()
	req.Set("onsuccess", ok)
	req.Set("onerror", bad)
	a := <-ch
	return a.v, a.err
}

func bytesOf(a js.Value) []byte {
	b := make([]byte, a.Get("byteLength").Int())
	js.CopyBytesToGo(b, a)
	return b
}

// Sign returns the ECDSA signature of data, SHA-256 as its hash, as r and s of 48
// bytes each: crypto.subtle.sign's.
func (s *Signer) Sign(data []byte) ([]byte, error) {
	subtle, err := subtleCrypto()
	if err != nil {
		return nil, err
	}
	in := js.Global().Get("Uint8Array").New(len(data))
	js.CopyBytesToJS(in, data)
	sig, err := jspromise.Await(subtle.Call("sign", map[string]any{"name": "ECDSA", "hash": "SHA-256"}, s.private, in))
	if err != nil {
		return nil, fmt.Errorf("webcrypto: signing: %w", err)
	}
	return bytesOf(js.Global().Get("Uint8Array").New(sig)), nil
}

// PublicKey returns the public key, its DER SubjectPublicKeyInfo (exportKey "spki").
func (s *Signer) PublicKey() []byte { return s.spki }

// Created says when the key was made, RFC 3339, or "" if that is not known.
func (s *Signer) Created() string { return s.created }
