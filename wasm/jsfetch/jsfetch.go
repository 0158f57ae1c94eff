//go:build js && wasm

// Package jsfetch makes HTTP requests with the JavaScript fetch API, as net/http's
// client does in a browser, but without net/http: its requests and responses are
// package httpmsg's, so a binary that uses it links none of net/http, nor the TLS,
// X.509 and HTTP/2 code it brings, which the browser makes unneeded.
package jsfetch

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"syscall/js"

	"github.com/webkeep/webkeep/shared/httpmsg"
	"github.com/webkeep/webkeep/wasm/jsglue"
	"github.com/webkeep/webkeep/wasm/jspromise"
)

// Client does HTTP requests with the global fetch. Its zero value is ready to use.
// Redirects are followed by fetch itself; a response's Request then has the URL it
// was redirected to.
type Client struct{}

// Do sends req with fetch and returns its response, whose body streams from the
// fetch Response's. Like http.Client.Do, it closes req.Body, and its errors are
// *url.Error, with the text net/http's client gives in a browser: a request fetch
// rejected is "net/http: fetch() failed: " and the rejection; one whose context ended
// is the context's error (the fetch is aborted).
func (Client) Do(req *httpmsg.Request) (*httpmsg.Response, error) {
	resp, err := roundTrip(req)
	if err != nil {
		return nil, &url.Error{Op: urlErrorOp(req.Method), URL: redacted(req.URL), Err: err}
	}
	return resp, nil
}

// urlErrorOp is the Op of a *url.Error for a method, as net/http's client has it.
func urlErrorOp(method string) string {
	if method == "" {
		return "Get"
	}
	return method[:1] + strings.ToLower(method[1:])
}

// redacted is the URL with any password hidden, as net/http's client says it.
func redacted(u *url.URL) string {
	if _, has := u.User.Password(); has {
		c := *u
		c.User = url.UserPassword(u.User.Username(), "***")
		return c.String()
	}
	return u.String()
}

func roundTrip(req *httpmsg.Request) (*httpmsg.Response, error) {
	if req.Body != nil {
		defer req.Body.Close()
	}
	ctx := req.Context()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	abort := js.Global().Get("AbortController").New()
	opt := js.Global().Get("Object").New()
	method := req.Method
	if method == "" {
		method = httpmsg.MethodGet
	}
	opt.Set("method", method)
	opt.Set("credentials", "same-origin")
	opt.Set("signal", abort.Get("signal"))
	headers := js.Global().Get("Headers").New()
	for name, values := range req.Header {
		for _, v := range values {
			headers.Call("append", name, v)
		}
	}
	opt.Set("headers", headers)
	if req.Body != nil {
		// fetch streams a request body only over HTTP/2 and with duplex set; as
		// net/http's client does, the body is sent whole.
		body, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		if len(body) > 0 {
			opt.Set("body", jsglue.Uint8Array(body))
		}
	}
	type answer struct {
		v   js.Value
		err error
	}
	answered := make(chan answer, 1)
	go func() {
		v, err := jspromise.Await(js.Global().Call("fetch", req.URL.String(), opt))
		answered <- answer{v, err}
	}()
	var a answer
	select {
	case a = <-answered:
	case <-ctx.Done():
		abort.Call("abort")
		if a = <-answered; a.err == nil {
			cancelBody(a.v)
		}
		return nil, ctx.Err()
	}
	if a.err != nil {
		return nil, fetchFailed(a.err)
	}
	return response(req, a.v)
}

// fetchFailed is the error of a rejected fetch, said as net/http's client says it:
// the rejection's toString (its name and message) and that of its cause, if any.
func fetchFailed(err error) error {
	var r *jspromise.Rejection
	if !errors.As(err, &r) || r.Value.Type() != js.TypeObject {
		return fmt.Errorf("net/http: fetch() failed: %w", err)
	}
	msg := r.Value.Call("toString").String()
	if cause := r.Value.Get("cause"); !cause.IsUndefined() {
		if !cause.Get("toString").IsUndefined() {
			msg += ": " + cause.Call("toString").String()
		} else if cause.Type() == js.TypeString {
			msg += ": " + cause.String()
		}
	}
	return fmt.Errorf("net/http: fetch() failed: %s", msg)
}

// cancelBody drops the body of a Response no one will read.
func cancelBody(r js.Value) {
	if b := r.Get("body"); b.Truthy() {
		b.Call("cancel")
	}
}

// response makes an *httpmsg.Response of a fetch Response, as net/http's client does
// (which says HTTP/1.1 of every fetch Response).
func response(req *httpmsg.Request, r js.Value) (*httpmsg.Response, error) {
	header := httpmsg.Header{}
	entries := js.Global().Get("Array").Call("from", r.Get("headers").Call("entries"))
	for i := 0; i < entries.Length(); i++ {
		kv := entries.Index(i)
		header.Add(kv.Index(0).String(), kv.Index(1).String())
	}
	length := int64(-1)
	if cl := header.Get("Content-Length"); cl != "" {
		n, err := strconv.ParseInt(cl, 10, 64)
		if err != nil || n < 0 {
			cancelBody(r)
			return nil, fmt.Errorf("net/http: invalid Content-Length header: %q", cl)
		}
		length = n
	}
	uncompressed := false
	if strings.EqualFold(header.Get("Content-Encoding"), "gzip") {
		// fetch has decoded the body but leaves the header.
		header.Del("Content-Encoding")
		header.Del("Content-Length")
		length, uncompressed = -1, true
	}
	body := io.ReadCloser(httpmsg.NoBody)
	if b := r.Get("body"); b.Truthy() {
		body = jsglue.NewStreamReader(b)
	}
	if r.Get("redirected").Bool() {
		if u, err := url.Parse(r.Get("url").String()); err == nil {
			req = req.WithContext(req.Context())
			req.URL = u
		}
	}
	code := r.Get("status").Int()
	return &httpmsg.Response{
		Status:        fmt.Sprintf("%d %s", code, httpmsg.StatusText(code)),
		StatusCode:    code,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        header,
		ContentLength: length,
		Uncompressed:  uncompressed,
		Body:          body,
		Request:       req,
	}, nil
}
