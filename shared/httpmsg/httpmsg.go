// Package httpmsg is HTTP as webkeep's shared packages use it, without net/http:
// headers, requests and responses, handlers and their routing, status texts, and the
// HTTP/1.1 message reading that WARC records need.
//
// The service worker's core (wasm/core) answers its pages' requests in process and
// makes its own through the browser's fetch, so it needs none of net/http's server,
// client, TLS or HTTP/2; but a package that imports net/http at all links its
// initialisers, and those keep the elliptic-curve, RSA and ML-KEM code of crypto/tls
// alive: about a megabyte of core.wasm. The names and fields here are net/http's, so
// that code reads the same; package nethttp converts between the two for native
// builds (the CLI) and tests.
package httpmsg

import (
	"context"
	"errors"
	"io"
	"net/textproto"
	"net/url"
	"strings"
	"time"
)

// A Header is the fields of an HTTP message, under canonical names (see
// CanonicalHeaderKey), as net/http.Header: the two convert to each other.
type Header map[string][]string

// Add adds value to the values of key.
func (h Header) Add(key, value string) { textproto.MIMEHeader(h).Add(key, value) }

// Set replaces the values of key by value.
func (h Header) Set(key, value string) { textproto.MIMEHeader(h).Set(key, value) }

// Get returns the first value of key, or "".
func (h Header) Get(key string) string { return textproto.MIMEHeader(h).Get(key) }

// Values returns the values of key.
func (h Header) Values(key string) []string { return textproto.MIMEHeader(h).Values(key) }

// Del deletes the values of key.
func (h Header) Del(key string) { textproto.MIMEHeader(h).Del(key) }

// Clone returns a copy of h, or nil if h is nil.
func (h Header) Clone() Header {
	if h == nil {
		return nil
	}
	c := make(Header, len(h))
	for k, vs := range h {
		c[k] = append([]string(nil), vs...)
	}
	return c
}

// CanonicalHeaderKey returns the canonical form of a field name, as net/http's does
// ("content-type" is "Content-Type").
func CanonicalHeaderKey(s string) string { return textproto.CanonicalMIMEHeaderKey(s) }

// The methods webkeep sends and routes.
const (
	MethodGet    = "GET"
	MethodPost   = "POST"
	MethodPut    = "PUT"
	MethodPatch  = "PATCH"
	MethodDelete = "DELETE"
)

// A Request is an HTTP request: one a handler answers (see Handler) or one sent by
// a Doer.
type Request struct {
	Method string
	URL    *url.URL
	Header Header
	// Body is the request's body; NoBody when it has none. A Doer closes it.
	Body io.ReadCloser
	// ContentLength is the body's length in bytes, -1 if unknown.
	ContentLength int64

	ctx        context.Context
	pathValues map[string]string
}

// NoBody is the Body of a request or response without one.
var NoBody = noBody{}

type noBody struct{}

func (noBody) Read([]byte) (int, error) { return 0, io.EOF }
func (noBody) Close() error             { return nil }

// NewRequest returns a request of method (GET if "") for rawURL with body, under
// ctx. Its ContentLength is 0 without a body, the body's Len for one that has that
// method (*bytes.Reader, *bytes.Buffer, *strings.Reader, as net/http knows them),
// else -1.
func NewRequest(ctx context.Context, method, rawURL string, body io.Reader) (*Request, error) {
	if method == "" {
		method = MethodGet
	}
	if ctx == nil {
		return nil, errors.New("httpmsg: nil Context")
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, err
	}
	r := &Request{Method: method, URL: u, Header: Header{}, Body: NoBody, ContentLength: 0, ctx: ctx}
	if body != nil && body != io.Reader(NoBody) {
		r.ContentLength = -1
		if n, ok := body.(interface{ Len() int }); ok {
			r.ContentLength = int64(n.Len())
		}
		rc, ok := body.(io.ReadCloser)
		if !ok {
			rc = io.NopCloser(body)
		}
		r.Body = rc
		if r.ContentLength == 0 {
			r.Body = NoBody
		}
	}
	return r, nil
}

// Context returns the request's context: a handler's ends when its answer is no
// longer wanted.
func (r *Request) Context() context.Context {
	if r.ctx == nil {
		return context.Background()
	}
	return r.ctx
}

// WithContext returns a shallow copy of r under ctx.
func (r *Request) WithContext(ctx context.Context) *Request {
	c := *r
	c.ctx = ctx
	return &c
}

// PathValue returns the value of the wildcard name in the pattern the request was
// routed by (see Mux), or "".
func (r *Request) PathValue(name string) string { return r.pathValues[name] }

// SetPathValue sets the value of the wildcard name.
func (r *Request) SetPathValue(name, value string) {
	if r.pathValues == nil {
		r.pathValues = map[string]string{}
	}
	r.pathValues[name] = value
}

// A Response is the answer to a request a Doer sent.
type Response struct {
	Status     string // "200 OK"
	StatusCode int
	Proto      string // "HTTP/1.1"
	ProtoMajor int
	ProtoMinor int
	Header     Header
	// Body streams the response's body; the caller closes it.
	Body io.ReadCloser
	// ContentLength is the body's length in bytes, -1 if unknown.
	ContentLength int64
	// Uncompressed says that the body was sent compressed and is read decoded, its
	// Content-Encoding and Content-Length fields dropped.
	Uncompressed bool
	// Request is the request answered; after redirects, the last one's.
	Request *Request
}

// A Doer sends HTTP requests: the browser's fetch in the extension's core
// (wasm/jsfetch), net/http's client natively (nethttp.Client).
type Doer interface {
	Do(*Request) (*Response, error)
}

// A ResponseWriter is where a Handler writes its answer, as net/http's.
type ResponseWriter interface {
	Header() Header
	Write([]byte) (int, error)
	WriteHeader(statusCode int)
}

// A Handler answers requests.
type Handler interface {
	ServeHTTP(ResponseWriter, *Request)
}

// HandlerFunc is a function that is a Handler.
type HandlerFunc func(ResponseWriter, *Request)

// ServeHTTP calls f(w, r).
func (f HandlerFunc) ServeHTTP(w ResponseWriter, r *Request) { f(w, r) }

// ErrAbortHandler, panicked with by a handler, ends its answer where it is: the
// body is cut, which its reader sees as an error, not as an answer ending short.
var ErrAbortHandler = errors.New("httpmsg: abort Handler")

// ErrBodyNotAllowed is what a ResponseWriter's Write returns when the response's
// status has no body (StatusHasBody).
var ErrBodyNotAllowed = errors.New("httpmsg: the response status does not allow a body")

// timeFormats are the date forms HTTP/1.1 allows (RFC 9110, 5.6.7): the first is
// the one to send.
var timeFormats = []string{
	"Mon, 02 Jan 2006 15:04:05 GMT",
	time.RFC850,
	time.ANSIC,
}

// ParseTime parses an HTTP date in any of the three forms HTTP/1.1 allows, as
// net/http's ParseTime.
func ParseTime(text string) (t time.Time, err error) {
	for _, layout := range timeFormats {
		if t, err = time.Parse(layout, text); err == nil {
			return t, nil
		}
	}
	return t, err
}

// contains reports whether a comma-separated field value lists token, in any case.
func contains(value, token string) bool {
	for _, v := range strings.Split(value, ",") {
		if strings.EqualFold(strings.TrimSpace(v), token) {
			return true
		}
	}
	return false
}
