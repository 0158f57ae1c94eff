//go:build js && wasm

// Package jspromise waits for JavaScript promises from Go compiled to WebAssembly.
package jspromise

import (
	"syscall/js"
)

// Await waits for a promise (or any value, as Promise.resolve takes it) and returns
// its value, or its rejection as a *Rejection. It must not be called on the goroutine
// that runs JavaScript callbacks: that would wait for itself.
func Await(p js.Value) (js.Value, error) {
	type result struct {
		v   js.Value
		err error
	}
	ch := make(chan result, 1)
	onValue := js.FuncOf(func(this js.Value, args []js.Value) any {
		ch <- result{v: arg(args)}
		return nil
	})
	onError := js.FuncOf(func(this js.Value, args []js.Value) any {
		ch <- result{err: &Rejection{Value: arg(args)}}
		return nil
	})
	defer onValue.Release()
	defer onError.Release()
	js.Global().Get("Promise").Call("resolve", p).Call("then", onValue, onError)
	r := <-ch
	return r.v, r.err
}

// arg is a callback's first argument, undefined if it has none.
func arg(args []js.Value) js.Value {
	if len(args) == 0 {
		return js.Undefined()
	}
	return args[0]
}

// Rejection is the error of a rejected promise: the value it was rejected with.
type Rejection struct {
	Value js.Value
}

// Error says why the promise was rejected: an Error's message (or any object's
// string message), a string as it is, and anything else, undefined and null
// included, as "promise rejected with " and the value.
func (r *Rejection) Error() string {
	v := r.Value
	switch v.Type() {
	case js.TypeString:
		return v.String()
	case js.TypeObject:
		if m := v.Get("message"); m.Type() == js.TypeString {
			return m.String()
		}
	}
	return "promise rejected with " + js.Global().Call("String", v).String()
}
