package urldb

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/shared/httpmsg"
)

// Response is what the check needs of an HTTP response, however it was
// obtained: fetched here, recorded by the browser, or read from a WARC file.
type Response struct {
	Status int            // HTTP status code
	Header httpmsg.Header // response headers
	// Length and SHA256 describe the body (after content decoding); Length is
	// -1 and SHA256 nil when the body was not read.
	Length int64
	SHA256 []byte
}

// ReadBody reads a body to its end, setting Length and SHA256.
func (r *Response) ReadBody(body io.Reader) error {
	h := sha256.New()
	n, err := io.Copy(h, body)
	if err != nil {
		return err
	}
	r.Length, r.SHA256 = n, h.Sum(nil)
	return nil
}

// IsRedirect reports whether the response is a redirect as wwturldb (Python
// requests) sees one: 301, 302, 303, 307 or 308 with a Location header.
func (r Response) IsRedirect() bool {
	switch r.Status {
	case 301, 302, 303, 307, 308:
		return r.Header.Get("Location") != ""
	}
	return false
}

// contentType returns the Content-Type without parameters, as wwturldb takes it
// (the text before the first ";", not trimmed), and whether there was one.
func (r Response) contentType() (string, bool) {
	values := r.Header.Values("Content-Type")
	if len(values) == 0 {
		return "", false
	}
	ct, _, _ := strings.Cut(strings.Join(values, ", "), ";")
	return ct, true
}

// Verdict codes: what was wrong, for programs; Problem says it in words.
const (
	CodeOK            = "ok"
	CodeDeprecated    = "deprecated"      // not checked
	CodeStatus        = "status"          // HTTP status 400 or more
	CodeRedirect      = "redirect"        // other redirect than recorded, or a redirect for content
	CodeContentType   = "content-type"    // other content type than recorded
	CodeNoContentType = "no-content-type" // response without Content-Type
	CodeLength        = "length"          // static content of another length
	CodeSHA256        = "sha256"          // static content with another digest
	CodeUnverified    = "unverified"      // static record, but the body was not available
	CodeNetwork       = "network"         // no response: connection refused, DNS, TLS, ...
	CodeTimeout       = "timeout"         // no response in time
)

// Verdict is the result of checking one URL: the core's API sends it as is in
// reports and check results.
type Verdict = api.Verdict

// contentTypeNits are the changes of content type wwturldb lets pass, from the
// recorded type to the served one, with the note it prints.
var contentTypeNits = map[[2]string]string{
	{"application/javascript", "application/x-javascript"}: "(ignoring JS content-type nit)",
	{"application/x-zip-compressed", "application/zip"}:    "(ignoring Zip content-type nit)",
}

// CheckResponse judges a response for a record by wwturldb's rules, in its
// order: a status of 400 or more fails; a redirect must be the recorded
// X-<code>-Redirect unless the record is redirect-ok; otherwise the content type
// (without parameters) must be the recorded one unless the record is
// content-type-change-ok, the two nits above aside; then a static record's
// length, then its SHA-256 digest, must match. A deprecated record is not
// checked. A missing Content-Type fails (wwturldb crashed on it).
func CheckResponse(rec *Record, resp Response) Verdict {
	v := Verdict{Path: rec.Path, Status: resp.Status, OK: true, Code: CodeOK}
	fail := func(code, problem, expected, got string) Verdict {
		v.OK, v.Code, v.Problem, v.Expected, v.Got = false, code, problem, expected, got
		return v
	}
	if rec.Has(CategoryDeprecated) {
		v.Code = CodeDeprecated
		return v
	}
	if resp.Status >= 400 {
		return fail(CodeStatus, fmt.Sprintf("HTTP %d", resp.Status), "", fmt.Sprint(resp.Status))
	}
	if resp.IsRedirect() {
		if rec.Has(CategoryRedirectOK) {
			return v
		}
		got := fmt.Sprintf("X-%d-Redirect", resp.Status)
		if got != rec.ContentType {
			return fail(CodeRedirect, fmt.Sprintf("expected %s; got %s", rec.ContentType, got), rec.ContentType, got)
		}
		return v
	}
	if !rec.Has(CategoryContentTypeChangeOK) {
		ct, ok := resp.contentType()
		switch {
		case !ok:
			return fail(CodeNoContentType, fmt.Sprintf("expected content-type %s; got no Content-Type header", rec.ContentType), rec.ContentType, "")
		case ct == rec.ContentType:
		case contentTypeNits[[2]string{rec.ContentType, ct}] != "":
			v.Note = contentTypeNits[[2]string{rec.ContentType, ct}]
		default:
			code := CodeContentType
			if strings.HasPrefix(rec.ContentType, "X-") && strings.HasSuffix(rec.ContentType, "-Redirect") {
				code = CodeRedirect
			}
			return fail(code, fmt.Sprintf("expected content-type %s; got %s", rec.ContentType, ct), rec.ContentType, ct)
		}
	}
	if rec.Static() {
		switch {
		case resp.SHA256 == nil:
			v.Code, v.Note = CodeUnverified, strings.TrimSpace(v.Note+" (content not read)")
		case resp.Length != rec.ContentLength:
			return fail(CodeLength, fmt.Sprintf("content length changed from %d to %d", rec.ContentLength, resp.Length),
				fmt.Sprint(rec.ContentLength), fmt.Sprint(resp.Length))
		case !bytes.Equal(resp.SHA256, rec.ContentSHA256):
			return fail(CodeSHA256, "content SHA256 changed", hex.EncodeToString(rec.ContentSHA256), hex.EncodeToString(resp.SHA256))
		}
	}
	return v
}

// ErrAdd is the error of NewRecord for a response that cannot be recorded.
var ErrAdd = errors.New("cannot record response")

// NewRecord makes the record wwturldb's add makes from a response fetched
// without following redirects: a redirect is stored as X-<code>-Redirect (and
// static is then ignored); otherwise the content type without parameters, and,
// when static, the body's length and digest. A status of 400 or more, a missing
// Content-Type or a static record without the body fail with ErrAdd.
func NewRecord(path string, resp Response, static bool) (*Record, error) {
	r := &Record{Path: path, ContentLength: -1}
	if resp.Status >= 400 {
		return nil, fmt.Errorf("%w: HTTP status %d", ErrAdd, resp.Status)
	}
	if resp.IsRedirect() {
		r.ContentType = fmt.Sprintf("X-%d-Redirect", resp.Status)
		return r, nil
	}
	ct, ok := resp.contentType()
	if !ok {
		return nil, fmt.Errorf("%w: no Content-Type header", ErrAdd)
	}
	r.ContentType = ct
	if static {
		if resp.SHA256 == nil {
			return nil, fmt.Errorf("%w: static record without the body", ErrAdd)
		}
		r.ContentLength, r.ContentSHA256 = resp.Length, resp.SHA256
	}
	return r, nil
}
