// Package nethttp converts between package httpmsg and net/http, for the builds that
// have net/http anyway (the CLI, the Worker, tests): an httpmsg.Handler served by a
// net/http server, and a net/http client as an httpmsg.Doer.
package nethttp

import (
	"errors"
	"net/http"

	"github.com/webkeep/webkeep/shared/httpmsg"
)

// Handler returns h as a net/http Handler.
func Handler(h httpmsg.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req := Request(r)
		defer func() {
			if p := recover(); p != nil {
				if p == httpmsg.ErrAbortHandler {
					p = http.ErrAbortHandler
				}
				panic(p)
			}
		}()
		h.ServeHTTP(ResponseWriter(w), req)
	})
}

// Request returns r as an httpmsg.Request, sharing its URL, header and body.
func Request(r *http.Request) *httpmsg.Request {
	body := r.Body
	if body == nil || body == http.NoBody {
		body = httpmsg.NoBody
	}
	req := &httpmsg.Request{Method: r.Method, URL: r.URL, Header: httpmsg.Header(r.Header), Body: body, ContentLength: r.ContentLength}
	return req.WithContext(r.Context())
}

// ResponseWriter returns w as an httpmsg.ResponseWriter (a Flusher too).
func ResponseWriter(w http.ResponseWriter) httpmsg.ResponseWriter { return responseWriter{w} }

// responseWriter is a net/http ResponseWriter as an httpmsg one.
type responseWriter struct{ w http.ResponseWriter }

func (w responseWriter) Header() httpmsg.Header { return httpmsg.Header(w.w.Header()) }
func (w responseWriter) WriteHeader(code int)   { w.w.WriteHeader(code) }

// Write writes to the net/http ResponseWriter; a body its status does not allow is
// refused with httpmsg.ErrBodyNotAllowed, as the service worker's answers refuse it.
func (w responseWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	if errors.Is(err, http.ErrBodyNotAllowed) {
		err = httpmsg.ErrBodyNotAllowed
	}
	return n, err
}

// Flush sends what is buffered, if the net/http ResponseWriter can.
func (w responseWriter) Flush() {
	if f, ok := w.w.(http.Flusher); ok {
		f.Flush()
	}
}

// Client is a net/http client as an httpmsg.Doer.
type Client struct {
	*http.Client
}

// Do sends req with the client.
func (c Client) Do(req *httpmsg.Request) (*httpmsg.Response, error) {
	client := c.Client
	if client == nil {
		client = http.DefaultClient
	}
	body := req.Body
	if body == httpmsg.NoBody {
		body = nil
	}
	r, err := http.NewRequestWithContext(req.Context(), req.Method, req.URL.String(), body)
	if err != nil {
		return nil, err
	}
	r.URL = req.URL
	r.Header = http.Header(req.Header.Clone())
	if r.Header == nil {
		r.Header = http.Header{}
	}
	if body != nil {
		r.ContentLength = req.ContentLength
	}
	resp, err := client.Do(r)
	if err != nil {
		return nil, err
	}
	return Response(resp, req), nil
}

// Response returns resp as an httpmsg.Response to req.
func Response(resp *http.Response, req *httpmsg.Request) *httpmsg.Response {
	if resp.Request != nil && resp.Request.URL != nil && resp.Request.URL != req.URL {
		req = req.WithContext(req.Context())
		req.URL = resp.Request.URL
	}
	return &httpmsg.Response{
		Status:        resp.Status,
		StatusCode:    resp.StatusCode,
		Proto:         resp.Proto,
		ProtoMajor:    resp.ProtoMajor,
		ProtoMinor:    resp.ProtoMinor,
		Header:        httpmsg.Header(resp.Header),
		Body:          resp.Body,
		ContentLength: resp.ContentLength,
		Uncompressed:  resp.Uncompressed,
		Request:       req,
	}
}

// NewClient returns net/http's default client, following redirects, or, with follow
// unset, one that answers a redirect with the redirect itself (its CheckRedirect
// returns http.ErrUseLastResponse), as a check of a URL looks at it.
func NewClient(follow bool) Client {
	if follow {
		return Client{Client: http.DefaultClient}
	}
	return Client{Client: &http.Client{
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}
