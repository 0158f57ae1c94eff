//go:build js && wasm

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"syscall/js"

	"github.com/webkeep/webkeep/wasm/jspromise"
)

// errCancelled reports work the user cancelled.
var errCancelled = errors.New("cancelled")

// call sends a request to the core's API with in (if not nil) as its JSON body, and
// decodes a JSON answer into out (if not nil).
func call(method, path string, in, out any) error {
	init := js.Global().Get("Object").New()
	init.Set("method", method)
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("%s %s: %w", method, path, err)
		}
		headers := js.Global().Get("Object").New()
		headers.Set("Content-Type", "application/json")
		init.Set("headers", headers)
		init.Set("body", string(b))
	}
	res, err := jspromise.Await(js.Global().Call("fetch", path, init))
	if err != nil {
		return fmt.Errorf("%s %s: %w: is the extension still installed and enabled? Reload the page", method, path, err)
	}
	body, err := jspromise.Await(res.Call("text"))
	if err != nil {
		return fmt.Errorf("%s %s: reading the answer: %w", method, path, err)
	}
	return decodeAnswer(method, path, res.Get("status").Int(), body.String(), out)
}

// send uploads body (a File, Blob or FormData, handed over without copying it into
// Go) with XMLHttpRequest, whose upload progress fetch does not report. progress gets
// the bytes sent so far and the total; closing cancel aborts the upload.
func send(method, path string, body js.Value, progress func(done, total int64), cancel <-chan struct{}, out any) error {
	xhr := js.Global().Get("XMLHttpRequest").New()
	xhr.Call("open", method, path)
	done := make(chan string, 1)
	var funcs []js.Func
	handler := func(f func(js.Value)) js.Func {
		fn := js.FuncOf(func(this js.Value, args []js.Value) any {
			f(args[0])
			return nil
		})
		funcs = append(funcs, fn)
		return fn
	}
	defer func() {
		for _, f := range funcs {
			f.Release()
		}
	}()
	xhr.Get("upload").Set("onprogress", handler(func(ev js.Value) {
		if progress != nil && ev.Get("lengthComputable").Bool() {
			progress(int64(ev.Get("loaded").Float()), int64(ev.Get("total").Float()))
		}
	}))
	xhr.Set("onload", handler(func(js.Value) { done <- "" }))
	xhr.Set("onerror", handler(func(js.Value) {
		done <- "the upload failed: is the extension still enabled? Reload the page and try again"
	}))
	xhr.Set("onabort", handler(func(js.Value) { done <- "cancelled" }))
	xhr.Call("send", body)
	var failure string
	select {
	case failure = <-done:
	case <-cancel:
		xhr.Call("abort")
		<-done
		return errCancelled
	}
	if failure != "" {
		return fmt.Errorf("%s %s: %s", method, path, failure)
	}
	return decodeAnswer(method, path, xhr.Get("status").Int(), xhr.Get("responseText").String(), out)
}
