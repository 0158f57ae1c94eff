package capture

import (
	"bytes"
	"encoding/json"
	"errors"
	"mime"
	"net/url"
	"slices"
	"strings"
)

// passwordName says whether a form field's name is one a password goes by: it holds
// "password", "passwd" or "passphrase", or is (or ends in) pass, pwd or pw once its
// punctuation is set aside ("user_pass", "wpPassword", "pwd").
func passwordName(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"password", "passwd", "passphrase"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	for _, w := range []string{"pass", "pwd", "pw"} {
		if n == w || strings.HasSuffix(n, "_"+w) || strings.HasSuffix(n, "-"+w) || strings.HasSuffix(n, "["+w+"]") {
			return true
		}
	}
	return false
}

// passwordFields finds the password fields of a request body sent as contentType:
// those named in fromDOM (fields of type password in the page that sent it) and
// those passwordName recognises. It returns the body with their values replaced by
// redactedValue when redact is set (the rest of the body byte for byte as it was),
// and the names found, in the order of the body. Forms (urlencoded and multipart) and
// JSON objects are read; any other body is returned as it is, with no name.
func passwordFields(contentType string, body []byte, fromDOM []string, redact bool) ([]byte, []string) {
	isPassword := func(name string) bool { return slices.Contains(fromDOM, name) || passwordName(name) }
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return body, nil
	}
	switch {
	case mt == "application/x-www-form-urlencoded":
		return redactURLEncoded(body, isPassword, redact)
	case mt == "multipart/form-data" && params["boundary"] != "":
		return redactMultipart(body, params["boundary"], isPassword, redact)
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		return redactJSON(body, isPassword, redact)
	}
	return body, nil
}

// redactURLEncoded redacts the values of the password fields of a urlencoded form.
func redactURLEncoded(body []byte, isPassword func(string) bool, redact bool) ([]byte, []string) {
	var out bytes.Buffer
	var found []string
	for i, pair := range bytes.Split(body, []byte("&")) {
		if i > 0 {
			out.WriteByte('&')
		}
		k, _, hasValue := bytes.Cut(pair, []byte("="))
		name, err := url.QueryUnescape(string(k))
		if err != nil || !isPassword(name) {
			out.Write(pair)
			continue
		}
		found = append(found, name)
		if !redact {
			out.Write(pair)
			continue
		}
		out.Write(k)
		if hasValue {
			out.WriteString("=" + url.QueryEscape(redactedValue))
		}
	}
	if !redact {
		return body, found
	}
	return out.Bytes(), found
}

// redactMultipart redacts the contents of the password fields of a multipart form:
// parts with no file name whose name is a password's. The delimiters and the other
// parts stay as they were.
func redactMultipart(body []byte, boundary string, isPassword func(string) bool, redact bool) ([]byte, []string) {
	delim := []byte("--" + boundary)
	var out bytes.Buffer
	var found []string
	rest := body
	i := bytes.Index(rest, delim)
	if i < 0 {
		return body, nil
	}
	out.Write(rest[:i+len(delim)])
	rest = rest[i+len(delim):]
	for {
		next := bytes.Index(rest, append([]byte("\r\n"), delim...))
		if next < 0 {
			out.Write(rest) // the closing "--" and the epilogue
			break
		}
		part := rest[:next]
		headEnd := bytes.Index(part, []byte("\r\n\r\n"))
		if headEnd >= 0 {
			name, file := partName(part[:headEnd])
			if file == "" && name != "" && isPassword(name) {
				found = append(found, name)
				if redact {
					part = append(part[:headEnd+4:headEnd+4], redactedValue...)
				}
			}
		}
		out.Write(part)
		out.Write([]byte("\r\n"))
		out.Write(delim)
		rest = rest[next+2+len(delim):]
	}
	if !redact {
		return body, found
	}
	return out.Bytes(), found
}

// partName returns the field name and file name of a multipart part's header.
func partName(head []byte) (name, file string) {
	for _, line := range strings.Split(string(head), "\r\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "Content-Disposition") {
			continue
		}
		if _, params, err := mime.ParseMediaType(strings.TrimSpace(v)); err == nil {
			return params["name"], params["filename"]
		}
	}
	return "", ""
}

// maxJSONDepth bounds the nesting of a JSON body that is looked into: a deeper one is
// left as it is.
const maxJSONDepth = 200

// redactJSON redacts the string values, at any depth, of the object members whose
// names are a password's. The other bytes stay as they were. A body that is not JSON
// is left as it is.
func redactJSON(body []byte, isPassword func(string) bool, redact bool) ([]byte, []string) {
	dec := json.NewDecoder(bytes.NewReader(body))
	type span struct{ from, to int64 }
	var spans []span
	var found []string
	var value func(depth int) error
	value = func(depth int) error {
		if depth > maxJSONDepth {
			return errors.New("too deep")
		}
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'):
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				if key, _ := k.(string); isPassword(key) {
					// The value follows the colon after the key.
					from := dec.InputOffset()
					for from < int64(len(body)) && strings.IndexByte(" \t\r\n:", body[from]) >= 0 {
						from++
					}
					if from < int64(len(body)) && body[from] == '"' {
						if _, err := dec.Token(); err != nil {
							return err
						}
						found = append(found, key)
						spans = append(spans, span{from, dec.InputOffset()})
						continue
					}
				}
				if err := value(depth + 1); err != nil {
					return err
				}
			}
			_, err = dec.Token()
			return err
		case json.Delim('['):
			for dec.More() {
				if err := value(depth + 1); err != nil {
					return err
				}
			}
			_, err = dec.Token()
			return err
		}
		return nil
	}
	if err := value(0); err != nil {
		return body, nil
	}
	if !redact || len(spans) == 0 {
		return body, found
	}
	var out bytes.Buffer
	var at int64
	quoted, _ := json.Marshal(redactedValue)
	for _, s := range spans {
		out.Write(body[at:s.from])
		out.Write(quoted)
		at = s.to
	}
	out.Write(body[at:])
	return out.Bytes(), found
}
