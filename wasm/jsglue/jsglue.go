//go:build js && wasm

// Package jsglue is the seam between Go compiled to WebAssembly and the JavaScript of a
// browser extension: making promises, reading streams, and answering a fetch Request with
// an httpmsg.Handler whose response body streams back as a ReadableStream.
package jsglue

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"syscall/js"

	"github.com/webkeep/webkeep/shared/httpmsg"
	"github.com/webkeep/webkeep/wasm/jspromise"
)

// Promise returns a JavaScript promise settled by f, which runs on its own goroutine.
func Promise(f func() (any, error)) js.Value {
	var executor js.Func
	executor = js.FuncOf(func(this js.Value, args []js.Value) any {
		resolve, reject := args[0], args[1]
		go func() {
			defer executor.Release()
			v, err := f()
			if err != nil {
				reject.Invoke(js.Global().Get("Error").New(err.Error()))
				return
			}
			resolve.Invoke(v)
		}()
		return nil
	})
	return js.Global().Get("Promise").New(executor)
}

// Bytes copies a Uint8Array (or ArrayBuffer) into Go.
func Bytes(v js.Value) []byte {
	if v.IsNull() || v.IsUndefined() {
		return nil
	}
	if v.InstanceOf(js.Global().Get("ArrayBuffer")) {
		v = js.Global().Get("Uint8Array").New(v)
	}
	b := make([]byte, v.Get("byteLength").Int())
	js.CopyBytesToGo(b, v)
	return b
}

// Uint8Array copies b into a new JavaScript Uint8Array.
func Uint8Array(b []byte) js.Value {
	a := js.Global().Get("Uint8Array").New(len(b))
	js.CopyBytesToJS(a, b)
	return a
}

// streamChunk is how much of a response body crosses into JavaScript at a time.
const streamChunk = 256 << 10

// NewStreamReader returns a reader of a JavaScript ReadableStream of bytes (a
// Request's or Response's body): it takes a chunk from the stream when the last is
// used up, so what is read is never held whole. Close cancels the stream.
func NewStreamReader(stream js.Value) io.ReadCloser {
	return &streamReader{reader: stream.Call("getReader")}
}

// streamReader reads a ReadableStream through its default reader.
type streamReader struct {
	reader  js.Value
	chunk   js.Value // the Uint8Array being read
	off     int      // bytes of chunk already read
	n       int      // chunk's length
	err     error    // io.EOF once the stream is done, or its error
	unswept int      // bytes read since Go's last collection (collectEvery)
}

// collectEvery is how many bytes a streamReader reads between collections of Go's
// garbage. Each chunk read is held by the js.Values Go made of it until Go's collector
// finalizes them, and reading a stream makes little garbage of Go's own: without
// these collections a 1 GB upload held a few hundred MB of chunks read at a time.
const collectEvery = 16 << 20

func (r *streamReader) Read(p []byte) (int, error) {
	for r.off == r.n {
		if r.err != nil {
			return 0, r.err
		}
		v, err := jspromise.Await(r.reader.Call("read"))
		switch {
		case err != nil:
			r.err = fmt.Errorf("reading a stream: %w", err)
		case v.Get("done").Bool():
			r.err = io.EOF
		default:
			r.chunk, r.off, r.n = v.Get("value"), 0, v.Get("value").Get("byteLength").Int()
		}
	}
	n := min(len(p), r.n-r.off)
	js.CopyBytesToGo(p[:n], r.chunk.Call("subarray", r.off, r.off+n))
	r.off += n
	if r.off == r.n {
		if r.unswept += r.n; r.unswept >= collectEvery {
			runtime.GC()
			r.unswept = 0
		}
		// The chunk is let go, not detached (ArrayBuffer.transfer(0)): in Chromium a
		// detached chunk's memory stays until a collection, which then comes later,
		// the heap no longer counting it. A 1 GB upload read by the service worker
		// grew the extension's process by 483 MB with its chunks detached, 115 MB
		// without (scripts/probe/streamrelease.mjs).
		r.chunk = js.Undefined()
	}
	return n, nil
}

func (r *streamReader) Close() error {
	if r.err == nil {
		r.err = errors.New("reading a stream: closed")
		r.reader.Call("cancel")
	}
	return nil
}

// NewRequest makes an *httpmsg.Request of a fetch Request, its body streamed from the
// Request's (see NewStreamReader), its ContentLength that of the Content-Length
// header, if any, else -1 (0 without a body).
func NewRequest(ctx context.Context, request js.Value) (*httpmsg.Request, error) {
	body := io.ReadCloser(httpmsg.NoBody)
	if b := request.Get("body"); b.Truthy() {
		body = NewStreamReader(b)
	}
	req, err := httpmsg.NewRequest(ctx, request.Get("method").String(), request.Get("url").String(), body)
	if err != nil {
		body.Close()
		return nil, err
	}
	headers := js.Global().Get("Array").Call("from", request.Get("headers").Call("entries"))
	for i := 0; i < headers.Length(); i++ {
		kv := headers.Index(i)
		req.Header.Add(kv.Index(0).String(), kv.Index(1).String())
	}
	req.ContentLength = 0
	if body != httpmsg.NoBody {
		req.ContentLength = -1
		if n, err := strconv.ParseInt(req.Header.Get("Content-Length"), 10, 64); err == nil && n >= 0 {
			req.ContentLength = n
		}
	}
	return req, nil
}

// Serve answers a fetch Request with h. The request's body streams into the handler
// (see NewRequest). The promise it returns is of a Response: one whose body is what
// the handler wrote when the handler ends before writing a chunk (streamChunk bytes) or
// flushing, as API answers do; otherwise one whose body is a ReadableStream fed as the
// handler writes, holding at most one chunk in flight, so that an upload or a download
// of any size keeps memory flat.
func Serve(h httpmsg.Handler, request js.Value) js.Value {
	return Promise(func() (any, error) {
		ctx, cancel := context.WithCancel(context.Background())
		req, err := NewRequest(ctx, request)
		if err != nil {
			cancel()
			return nil, err
		}
		rw := &responseWriter{header: httpmsg.Header{}, ready: make(chan js.Value, 1), chunks: make(chan []byte), cancel: cancel, ctx: ctx}
		go func() {
			defer cancel()
			defer rw.finish()
			defer func() {
				if p := recover(); p != nil && p != httpmsg.ErrAbortHandler {
					rw.abort(fmt.Errorf("%v", p))
				} else if p != nil {
					rw.abort(errors.New("response aborted"))
				}
			}()
			defer req.Body.Close()
			h.ServeHTTP(rw, req)
		}()
		return <-rw.ready, nil
	})
}

// responseWriter answers with a JavaScript Response: whole when the handler ends with
// less than a chunk written, streamed once a chunk fills or the handler flushes.
type responseWriter struct {
	header  httpmsg.Header
	status  int           // 0 until the handler writes its head or body
	pending []byte        // body written and not yet sent, less than a chunk
	started bool          // the streamed Response was made
	ready   chan js.Value // the Response
	chunks  chan []byte   // body chunks for the stream; closed at the end
	failed  error
	ctx     context.Context
	cancel  context.CancelFunc
	funcs   []js.Func
}

func (w *responseWriter) Header() httpmsg.Header { return w.header }

func (w *responseWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

func (w *responseWriter) Write(p []byte) (int, error) {
	w.WriteHeader(httpmsg.StatusOK)
	if err := w.ctx.Err(); err != nil {
		return 0, err
	}
	if !httpmsg.StatusHasBody(w.status) {
		return 0, httpmsg.ErrBodyNotAllowed
	}
	n := 0
	for len(p) > 0 {
		if w.started && w.pending == nil {
			w.pending = make([]byte, 0, streamChunk)
		}
		k := min(len(p), streamChunk-len(w.pending))
		w.pending = append(w.pending, p[:k]...)
		p, n = p[k:], n+k
		if len(w.pending) == streamChunk {
			if err := w.send(); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}

// Flush sends the head, and what is written of the body, now: the answer streams.
func (w *responseWriter) Flush() { w.send() }

// send streams the pending bytes, making the streamed Response first if need be.
func (w *responseWriter) send() error {
	w.WriteHeader(httpmsg.StatusOK)
	if !w.started {
		w.start()
	}
	if len(w.pending) == 0 { // always so for a status with no body: Write refuses one
		return nil
	}
	select {
	case w.chunks <- w.pending:
		w.pending = nil // the stream has it; the next write takes a new chunk
		return nil
	case <-w.ctx.Done():
		return w.ctx.Err()
	}
}

// response makes the Response of the status and headers, with body.
func (w *responseWriter) response(body js.Value) js.Value {
	headers := js.Global().Get("Headers").New()
	for name, values := range w.header {
		for _, v := range values {
			headers.Call("append", name, v)
		}
	}
	init := js.Global().Get("Object").New()
	init.Set("status", w.status)
	init.Set("headers", headers)
	return js.Global().Get("Response").New(body, init)
}

// start makes the streamed Response: its body a stream that pulls chunks.
func (w *responseWriter) start() {
	w.started = true
	if !httpmsg.StatusHasBody(w.status) {
		close(w.chunks)
		w.ready <- w.response(js.Null())
		return
	}
	pull := js.FuncOf(func(this js.Value, args []js.Value) any {
		controller := args[0]
		return Promise(func() (any, error) {
			chunk, ok := <-w.chunks
			switch {
			case ok:
				controller.Call("enqueue", Uint8Array(chunk))
			case w.failed != nil:
				controller.Call("error", js.Global().Get("Error").New(w.failed.Error()))
				w.release()
			default:
				controller.Call("close")
				w.release()
			}
			return nil, nil
		})
	})
	cancel := js.FuncOf(func(this js.Value, args []js.Value) any {
		w.cancel()
		go w.release()
		return nil
	})
	w.funcs = append(w.funcs, pull, cancel)
	source := js.Global().Get("Object").New()
	source.Set("pull", pull)
	source.Set("cancel", cancel)
	w.ready <- w.response(js.Global().Get("ReadableStream").New(source))
}

func (w *responseWriter) release() {
	for _, f := range w.funcs {
		f.Release()
	}
	w.funcs = nil
}

// abort ends the response with an error: before anything was sent, as a 500 saying
// it; after, by erroring the stream so the download fails visibly instead of ending
// short.
func (w *responseWriter) abort(err error) {
	if !w.started {
		w.header = httpmsg.Header{"Content-Type": {"text/plain; charset=utf-8"}}
		w.status = httpmsg.StatusInternalServerError
		w.pending = []byte(err.Error())
		return
	}
	w.failed = err
}

// finish answers with what the handler left: the whole Response if none was made yet,
// else the rest of the stream.
func (w *responseWriter) finish() {
	w.WriteHeader(httpmsg.StatusOK)
	if !w.started {
		body := js.Null()
		if httpmsg.StatusHasBody(w.status) {
			body = Uint8Array(w.pending)
		}
		w.ready <- w.response(body)
		return
	}
	if w.failed == nil {
		w.send()
	}
	if httpmsg.StatusHasBody(w.status) {
		close(w.chunks)
	}
}

var _ interface{ Flush() } = (*responseWriter)(nil)
