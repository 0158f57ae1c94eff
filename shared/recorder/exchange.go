package recorder

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/webkeep/webkeep/shared/httpmsg"
)

// Field is one HTTP header line as it was sent or received.
type Field struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Fields is an ordered list of HTTP header lines.
type Fields []Field

// Get returns the first value of the named field (case-insensitive), or "".
func (f Fields) Get(name string) string {
	for _, kv := range f {
		if strings.EqualFold(kv.Name, name) {
			return kv.Value
		}
	}
	return ""
}

// Has reports whether the named field is present.
func (f Fields) Has(name string) bool {
	for _, kv := range f {
		if strings.EqualFold(kv.Name, name) {
			return true
		}
	}
	return false
}

// Without returns the fields other than the named ones.
func (f Fields) Without(names ...string) Fields {
	out := make(Fields, 0, len(f))
next:
	for _, kv := range f {
		for _, n := range names {
			if strings.EqualFold(kv.Name, n) {
				continue next
			}
		}
		out = append(out, kv)
	}
	return out
}

// HTTPHeader returns the fields as an httpmsg.Header (net/http.Header's twin).
func (f Fields) HTTPHeader() httpmsg.Header {
	h := make(httpmsg.Header, len(f))
	for _, kv := range f {
		h.Add(kv.Name, kv.Value)
	}
	return h
}

// fieldsFromMap turns a DevTools header object into fields. DevTools joins repeated
// headers with "\n"; they are split again. Names are sorted so output is deterministic.
func fieldsFromMap(m map[string]string) Fields {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	var f Fields
	for _, n := range names {
		for _, v := range strings.Split(m[n], "\n") {
			f = append(f, Field{Name: n, Value: v})
		}
	}
	return f
}

// Exchange is one HTTP request and its response, as the browser saw them.
type Exchange struct {
	Started   time.Time // when the request was sent
	Method    string
	URL       string
	Protocol  string // "HTTP/1.1", "h2", ... as the browser reports it
	ReqHeader Fields
	ReqBody   []byte
	ReqNote   string // why the request body is incomplete, if it is
	// ReqTruncated says the request body is not the whole body that was sent.
	ReqTruncated bool
	Status       int // 0 when no response arrived
	StatusText   string
	RespHeader   Fields
	RespBody     []byte
	// respSpool holds a large body instead of RespBody: in the store, not in memory.
	respSpool *spool
	RespNote  string // why the response body is incomplete, if it is
	// CacheNote says how the browser's cache served the response, when it did: from
	// a cache, without the network, or revalidated (a 304). It is archived as a note,
	// and is no problem of the exchange's.
	CacheNote string
	// RespTruncated is the reason the body was cut ("length"), empty if whole.
	RespTruncated string
	RemoteIP      string
	Failure       string // the browser's error text when the request failed
	Redirected    bool   // the response is a redirect that the browser followed
	PageURL       string // the top-level document this request belongs to
	ResourceType  string // Document, Script, Fetch, XHR, ...
	// PasswordFields names the password fields the request body holds (a login
	// POST); Redaction says what of them was replaced, when something was.
	PasswordFields []string
	Redaction      string
	// PasswordDOM names the fields of type password in the page that sent the
	// request, when the recorder asked it: what redaction looks for in the body
	// besides the names that say "password". It is not archived.
	PasswordDOM []string `json:"-"`
}

// httpVersion maps the browser's protocol name onto the version written in the
// archived message's start line. HTTP/2 and HTTP/3 exchanges are archived in HTTP/1.1
// form, as other browser-based archivers do, since their framing has no text form.
func (e *Exchange) httpVersion() string {
	switch strings.ToLower(e.Protocol) {
	case "http/1.0":
		return "HTTP/1.0"
	default:
		return "HTTP/1.1"
	}
}

// hopHeaders describe the transfer rather than the content. The archived body is the
// decoded entity the browser delivered, so encodings of the transfer are dropped and
// Content-Length is set to the archived length.
var hopHeaders = []string{"Content-Encoding", "Transfer-Encoding", "Content-Length"}

// RequestMessage returns the request as an HTTP/1.x message: start line, headers, body.
func (e *Exchange) RequestMessage() []byte {
	var b bytes.Buffer
	target := e.URL
	host := ""
	if i := strings.Index(target, "://"); i >= 0 {
		rest := target[i+3:]
		j := strings.IndexByte(rest, '/')
		if j < 0 {
			host, target = rest, "/"
		} else {
			host, target = rest[:j], rest[j:]
		}
	}
	if k := strings.IndexByte(target, '#'); k >= 0 {
		target = target[:k]
	}
	fmt.Fprintf(&b, "%s %s %s\r\n", e.Method, target, e.httpVersion())
	if !e.ReqHeader.Has("Host") && host != "" {
		fmt.Fprintf(&b, "Host: %s\r\n", host)
	}
	for _, kv := range e.ReqHeader {
		if strings.HasPrefix(kv.Name, ":") { // HTTP/2 pseudo-headers
			continue
		}
		fmt.Fprintf(&b, "%s: %s\r\n", kv.Name, kv.Value)
	}
	b.WriteString("\r\n")
	b.Write(e.ReqBody)
	return b.Bytes()
}

// ResponseHead returns the response's start line and headers, ending with the blank line.
func (e *Exchange) ResponseHead() []byte {
	var b bytes.Buffer
	text := e.StatusText
	if text == "" {
		text = httpmsg.StatusText(e.Status)
	}
	fmt.Fprintf(&b, "%s %d %s\r\n", e.httpVersion(), e.Status, text)
	for _, kv := range e.RespHeader.Without(hopHeaders...) {
		if strings.HasPrefix(kv.Name, ":") {
			continue
		}
		fmt.Fprintf(&b, "%s: %s\r\n", kv.Name, kv.Value)
	}
	// The archived body is what the browser delivered: decoded, de-chunked, and for a
	// redirect not given at all. What the wire said is kept under X-Archive-Orig-*.
	for _, name := range hopHeaders {
		if v := e.RespHeader.Get(name); v != "" && (name != "Content-Length" || v != strconv.FormatInt(e.BodyLen(), 10)) {
			fmt.Fprintf(&b, "X-Archive-Orig-%s: %s\r\n", name, v)
		}
	}
	if e.Status >= 200 && httpmsg.StatusHasBody(e.Status) {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", e.BodyLen())
	}
	b.WriteString("\r\n")
	return b.Bytes()
}

// ContentType returns the response's media type without parameters, lower-cased.
func (e *Exchange) ContentType() string {
	ct := e.RespHeader.Get("Content-Type")
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	return strings.ToLower(strings.TrimSpace(ct))
}

// BodyLen is the length of the archived response body.
func (e *Exchange) BodyLen() int64 {
	if e.respSpool != nil {
		return e.respSpool.size
	}
	return int64(len(e.RespBody))
}

// Body returns the archived response body as a stream.
func (e *Exchange) Body() (io.Reader, error) {
	if e.respSpool != nil {
		return e.respSpool.reader()
	}
	return bytes.NewReader(e.RespBody), nil
}

// BodySHA256 returns the SHA-256 of the archived response body, reading a spooled
// body back from the store.
func (e *Exchange) BodySHA256() ([]byte, error) {
	if e.respSpool == nil {
		sum := sha256.Sum256(e.RespBody)
		return sum[:], nil
	}
	r, err := e.respSpool.reader()
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
}

// Release frees what the exchange keeps outside memory: a large body spooled in the
// recorder's Store. The body cannot be read after.
func (e *Exchange) Release() {
	if e.respSpool != nil {
		e.respSpool.remove()
	}
}
