package recorder

import (
	"bytes"
	"fmt"
	"mime"
	"strconv"
	"strings"
)

// A FormField is one field of a request body that the browser reported parsed instead
// of as bytes: Firefox gives a form it submits itself (by navigation, or any multipart
// body) only as webRequest's requestBody.formData, each name with its values, a file
// part as its file name. The Firefox shim sends the fields in the order it was given
// them, in the request's webkeepFormFields (not a DevTools field).
type FormField struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// WhyRebuilt begins the note of a request body rebuilt from its form fields.
const WhyRebuilt = "request body rebuilt from the form fields the browser reported"

// rebuildFormBody encodes fields as the browser encodes a form it submits, for the
// request's Content-Type, and says how far the bytes can be trusted. contentLength is
// the request's Content-Length, or -1 when not known. The encoding is deterministic
// (the HTML standard's urlencoded and multipart serializers, which Firefox follows),
// so the body is exact unless the reported fields lost something:
//   - the order of fields sharing a name (reported together) or named by numbers
//     (reported first, in numeric order);
//   - a multipart file part, reported as its file name only;
//   - a length that differs from the Content-Length sent.
//
// Then truncated is true and note says what may differ. note is never empty: an exact
// body's note says that it was rebuilt.
func rebuildFormBody(contentType string, contentLength int64, fields []FormField) (body []byte, note string, truncated bool) {
	mediaType, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		mediaType = strings.ToLower(strings.TrimSpace(strings.Split(contentType, ";")[0]))
	}
	switch mediaType {
	case "application/x-www-form-urlencoded":
		body = urlencodedForm(fields)
	case "multipart/form-data":
		if params["boundary"] == "" {
			return nil, fmt.Sprintf("%s: none, as the multipart Content-Type %q names no boundary", WhyRebuilt, contentType), true
		}
		body = multipartForm(params["boundary"], fields)
	default:
		return nil, fmt.Sprintf("request body not available from the browser, which reported only form fields for a body of type %q", contentType), true
	}
	var doubts []string
	if contentLength >= 0 && int64(len(body)) != contentLength {
		why := "it is %d bytes where the request sent %d"
		if mediaType == "multipart/form-data" {
			why += ": a file part, which the browser reports as its file name only, is not in it"
		}
		doubts = append(doubts, fmt.Sprintf(why, len(body), contentLength))
	}
	if order := orderDoubt(fields); order != "" {
		doubts = append(doubts, order)
	}
	if mediaType == "multipart/form-data" && contentLength < 0 {
		doubts = append(doubts, "the request's length is not known, so a file part (reported as its file name only) cannot be ruled out")
	}
	if len(doubts) > 0 {
		return body, WhyRebuilt + ", and it may differ from what was sent: " + strings.Join(doubts, "; "), true
	}
	note = WhyRebuilt + " (they are encoded exactly as the browser encodes its forms"
	if contentLength >= 0 {
		note += "; the length matches the one sent"
	}
	return body, note + ")", false
}

// orderDoubt says why the fields may not be in the order they were sent, or "".
func orderDoubt(fields []FormField) string {
	seen := map[string]bool{}
	numeric := false
	for _, f := range fields {
		if seen[f.Name] {
			return fmt.Sprintf("the fields named %q are reported together, so their place among the others may differ", f.Name)
		}
		seen[f.Name] = true
		numeric = numeric || arrayIndex(f.Name)
	}
	if numeric && len(fields) > 1 {
		return "fields named by numbers are reported first, in numeric order, which may not be the order sent"
	}
	return ""
}

// arrayIndex reports whether a JavaScript object orders the key s before other keys:
// the canonical decimal form of an integer below 2^32-1.
func arrayIndex(s string) bool {
	n, err := strconv.ParseUint(s, 10, 32)
	return err == nil && n < 1<<32-1 && strconv.FormatUint(n, 10) == s
}

// urlencodedForm is the HTML standard's application/x-www-form-urlencoded serializer
// over UTF-8.
func urlencodedForm(fields []FormField) []byte {
	var b []byte
	for i, f := range fields {
		if i > 0 {
			b = append(b, '&')
		}
		b = appendFormEscaped(b, f.Name)
		b = append(b, '=')
		b = appendFormEscaped(b, f.Value)
	}
	return b
}

func appendFormEscaped(b []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == ' ':
			b = append(b, '+')
		case c == '*' || c == '-' || c == '.' || c == '_' || '0' <= c && c <= '9' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z':
			b = append(b, c)
		default:
			b = append(b, '%', hex[c>>4], hex[c&15])
		}
	}
	return b
}

// multipartForm is the HTML standard's multipart/form-data encoding of text fields.
func multipartForm(boundary string, fields []FormField) []byte {
	entries := make([]uploadEntry, len(fields))
	for i, f := range fields {
		entries[i] = uploadEntry{Name: f.Name, Value: f.Value}
	}
	var b bytes.Buffer
	writeMultipart(&b, boundary, entries, nil)
	return b.Bytes()
}
