package cdx

import (
	"encoding/base64"
	"strings"

	"github.com/webkeep/webkeep/shared/httpmsg"
)

// MaxQueryLength is the number of characters (code points) of the body query
// that pywb keeps.
const MaxQueryLength = 4096

// A Dialect selects how JSON bodies are rendered in keys.
type Dialect int

const (
	// Pywb267 is pywb 2.6.7: str() of each value (True, False, None, 44.0).
	Pywb267 Dialect = iota
	// Pywb28 is pywb >= 2.8.4: true, false, null, and whole floats printed
	// as integers (44.0 -> 44), as JavaScript prints them.
	Pywb28
	// WarcioJS is the key ReplayWeb.page looks a request up under at replay
	// (wabac.js 2.27 calling warcio.js 2.4's postToGetUrl on the request's
	// text): POST and PUT only, the body read as UTF-8 text, JSON with
	// JavaScript's property order and number strings, forms as sent, the
	// query decodeURI-ed, and "__wb_method=M&" always followed by "&". Its
	// requestBody is that decoded query, so that the URL ReplayWeb.page
	// rebuilds from a CDXJ line is the URL it looks up.
	WarcioJS
)

// String returns the dialect's name as the CLI spells it.
func (d Dialect) String() string {
	switch d {
	case Pywb28:
		return "pywb-2.8"
	case WarcioJS:
		return "warcio.js"
	}
	return "pywb-2.6.7"
}

// compactJSON reports whether the dialect's CDXJ lines are JavaScript's compact
// JSON.stringify rather than Python's json.dumps.
func (d Dialect) compactJSON() bool { return d == Pywb28 || d == WarcioJS }

// A Request is an HTTP request as recorded: the method, the absolute URL, the
// headers as sent (a missing Content-Length is simply absent) and the body.
type Request struct {
	Method string
	URL    string
	Header httpmsg.Header
	Body   []byte
}

// header returns the first value of the named header, matching the name
// without regard to case, as warcio's get_header does.
func header(h httpmsg.Header, name string) (string, bool) {
	if v, ok := h[httpmsg.CanonicalHeaderKey(name)]; ok && len(v) > 0 {
		return v[0], true
	}
	for k, v := range h {
		if strings.EqualFold(k, name) && len(v) > 0 {
			return v[0], true
		}
	}
	return "", false
}

// EncodeRequest returns the URL with the method/body query appended (unchanged
// for GET) and the appended body query ("" if none), exactly as pywb 2.6.7's
// MethodQueryCanonicalizer computes them.
func EncodeRequest(r *Request) (url string, requestBody string) {
	return Pywb267.EncodeRequest(r)
}

// EncodeRequest is EncodeRequest in dialect d.
func (d Dialect) EncodeRequest(r *Request) (url string, requestBody string) {
	method, query := d.BodyQuery(r)
	if d == WarcioJS {
		return d.AppendQuery(r.URL, method, query), query
	}
	return AppendQuery(r.URL, method, query), query
}

// AppendQuery appends the method and body query to url as the dialect does: the
// key a replay tool of the dialect looks a request up under.
func (d Dialect) AppendQuery(url, method, query string) string {
	if d == WarcioJS && method != "GET" {
		return jsAppendQuery(url, method, query)
	}
	return AppendQuery(url, method, query)
}

// AppendQuery appends "__wb_method=METHOD" and the body query to url as
// pywb's append_query does: after "?" if url has none, else after "&" (even
// when url already ends in "&"). A GET leaves url unchanged.
func AppendQuery(url, method, query string) string {
	if method == "GET" {
		return url
	}
	sep := "&"
	if !strings.Contains(url, "?") {
		sep = "?"
	}
	s := url + sep + "__wb_method=" + method
	if query != "" {
		s += "&" + query
	}
	return s
}

// BodyQuery returns the upper-cased method and the body query of r: empty
// unless the method is POST or PUT and Content-Length is a positive integer;
// otherwise the first Content-Length bytes of the body encoded by the content
// type, cut at MaxQueryLength characters.
//
// In the WarcioJS dialect the method is normalized as fetch() does, and the
// query is the one ReplayWeb.page computes at replay (see WarcioJS).
func (d Dialect) BodyQuery(r *Request) (method, query string) {
	if d == WarcioJS {
		method, query, _ = replayQuery(r)
		return method, safeQuery(query)
	}
	method = strings.ToUpper(r.Method)
	if method != "POST" && method != "PUT" {
		return method, ""
	}
	cl, _ := header(r.Header, "Content-Length")
	n, ok := pyInt(cl)
	if !ok || n <= 0 {
		return method, ""
	}
	body := r.Body
	if int64(len(body)) > n {
		body = body[:n]
	}
	mime, _ := header(r.Header, "Content-Type")
	return method, truncateRunes(d.encodeBody(mime, body), MaxQueryLength)
}

// binaryQuery is the fallback of every content type: the whole body in
// padded standard base64.
func binaryQuery(body []byte) string {
	return "__wb_post_data=" + base64.StdEncoding.EncodeToString(body)
}

// encodeBody dispatches on the content type by case-sensitive prefix, in
// pywb's order.
func (d Dialect) encodeBody(mime string, body []byte) string {
	switch {
	case strings.HasPrefix(mime, "application/x-www-form-urlencoded"):
		q, ok := formQuery(body)
		if !ok {
			return binaryQuery(body)
		}
		return q
	case strings.HasPrefix(mime, "multipart/"):
		q, err := multipartQuery(mime, body)
		if err != nil {
			return binaryQuery(body)
		}
		return q
	case strings.HasPrefix(mime, "application/x-amf"):
		q, err := amfQuery(body)
		if err != nil {
			return ""
		}
		return q
	case strings.HasPrefix(mime, "application/json"):
		q, err := jsonQuery(body, d)
		if err != nil {
			return ""
		}
		return q
	case strings.HasPrefix(mime, "text/plain"):
		q, err := jsonQuery(body, d)
		if err != nil {
			return binaryQuery(body)
		}
		return q
	}
	return binaryQuery(body)
}
