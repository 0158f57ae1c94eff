//go:build js && wasm

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
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
// Go) with fetch. progress gets the bytes the core has taken so far and the total;
// closing cancel aborts the upload.
//
// Where fetch takes a stream as a request's body (Chromium), the body goes as the
// Blob's stream, counted as the core reads it. Not with XMLHttpRequest, whose upload
// progress is built in: Chromium then holds the whole file in the extension's process
// until the core has read it (a 1 GB import grew it by 1 GB, BENCHMARKS.md, "Large
// inputs"). Elsewhere (Firefox, whose pages send an upload to the background page in
// pieces of 4 MiB: extension-firefox/api.js) the Blob is the body and progress is told
// once, at the end.
func send(method, path string, body js.Value, progress func(done, total int64), cancel <-chan struct{}, out any) error {
	fail := func(err error) error { return fmt.Errorf("%s %s: %w", method, path, err) }
	contentType := body.Get("type").String()
	if body.InstanceOf(js.Global().Get("FormData")) {
		// A form (a folder's files, capped in size) is encoded whole, as a Blob. Its
		// type is the Response's header: a Blob's type is lowercased, and the
		// boundary with it.
		encoded := js.Global().Get("Response").New(body)
		b, err := jspromise.Await(encoded.Call("blob"))
		if err != nil {
			return fail(err)
		}
		body, contentType = b, encoded.Get("headers").Call("get", "Content-Type").String()
	}
	total := int64(body.Get("size").Float())
	abort := js.Global().Get("AbortController").New()
	init := js.Global().Get("Object").New()
	init.Set("method", method)
	init.Set("signal", abort.Get("signal"))
	if contentType != "" {
		headers := js.Global().Get("Object").New()
		headers.Set("Content-Type", contentType)
		init.Set("headers", headers)
	}
	init.Set("body", body)
	if requestStreams() && progress != nil {
		var sent, collected int64
		count := js.FuncOf(func(this js.Value, args []js.Value) any {
			sent += int64(args[0].Get("byteLength").Float())
			progress(sent, total)
			args[1].Call("enqueue", args[0])
			// Go holds each chunk it was passed until its own garbage collection,
			// which this page, allocating little, would not have before the end:
			// every chunk of the file would stay in memory.
			if sent-collected >= uploadCollect {
				runtime.GC()
				collected = sent
			}
			return nil
		})
		defer count.Release()
		counter := js.Global().Get("Object").New()
		counter.Set("transform", count)
		init.Set("body", body.Call("stream").Call("pipeThrough", js.Global().Get("TransformStream").New(counter)))
		init.Set("duplex", "half")
	}
	type answer struct {
		status int
		text   string
	}
	answered := make(chan answer, 1)
	failed := make(chan error, 1)
	go func() {
		res, err := jspromise.Await(js.Global().Call("fetch", path, init))
		if err == nil {
			var text js.Value
			if text, err = jspromise.Await(res.Call("text")); err == nil {
				answered <- answer{res.Get("status").Int(), text.String()}
				return
			}
		}
		failed <- err
	}()
	select {
	case a := <-answered:
		if progress != nil {
			progress(total, total)
		}
		return decodeAnswer(method, path, a.status, a.text, out)
	case err := <-failed:
		return fail(fmt.Errorf("the upload failed (%v): is the extension still enabled? Reload the page and try again", err))
	case <-cancel:
		abort.Call("abort")
		select {
		case <-answered:
		case <-failed:
		}
		return errCancelled
	}
}

// uploadCollect is how many bytes an upload sends between collections of Go's garbage,
// which let the chunks sent go.
const uploadCollect = 16 << 20

// requestStreams reports whether fetch takes a ReadableStream as a request's body: a
// browser that does asks for the request's duplex option, and does not turn the
// stream into text (which would give the request a Content-Type).
func requestStreams() bool {
	asked := false
	duplex := js.FuncOf(func(js.Value, []js.Value) any {
		asked = true
		return "half"
	})
	defer duplex.Release()
	init := js.Global().Get("Object").New()
	init.Set("method", "POST")
	init.Set("body", js.Global().Get("ReadableStream").New())
	getter := js.Global().Get("Object").New()
	getter.Set("get", duplex)
	js.Global().Get("Object").Call("defineProperty", init, "duplex", getter)
	req := js.Global().Get("Request").New(js.Global().Get("location").Get("href"), init)
	return asked && !req.Get("headers").Call("has", "Content-Type").Bool()
}
