package cdx

// Form bodies: application/x-www-form-urlencoded as pywb decodes it, and
// multipart/* as Python's cgi.FieldStorage (which pywb 2.6.7 calls with
// keep_blank_values=True and encoding="utf-8") reads it.

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/webkeep/webkeep/internal/pyfmt"
)

// ErrBoundary is returned for a multipart body whose content type has no
// valid boundary; pywb then falls back to the binary encoding.
var ErrBoundary = errors.New("cdx: invalid multipart boundary")

// formQuery decodes the body as strict UTF-8 and unquote_plus'es it; the
// result is not re-encoded. ok is false when the body is not UTF-8.
func formQuery(body []byte) (string, bool) {
	if !utf8.Valid(body) {
		return "", false
	}
	return unquotePlus(string(body)), true
}

// parseHeaderParams is cgi.parse_header: the value before the first ";" and a
// map of parameters (names lower-cased, one level of quotes removed, the last
// occurrence of a name winning).
func parseHeaderParams(line string) (string, map[string]string) {
	var parts []string
	s := ";" + line
	for strings.HasPrefix(s, ";") {
		s = s[1:]
		end := strings.IndexByte(s, ';')
		for end > 0 && (strings.Count(s[:end], `"`)-strings.Count(s[:end], `\"`))%2 != 0 {
			next := strings.IndexByte(s[end+1:], ';')
			if next < 0 {
				end = -1
				break
			}
			end += 1 + next
		}
		if end < 0 {
			end = len(s)
		}
		parts = append(parts, pyStrip(s[:end]))
		s = s[end:]
	}
	params := map[string]string{}
	for _, p := range parts[1:] {
		i := strings.IndexByte(p, '=')
		if i < 0 {
			continue
		}
		name := strings.ToLower(pyStrip(p[:i]))
		value := pyStrip(p[i+1:])
		if len(value) >= 2 && value[0] == '"' && value[len(value)-1] == '"' {
			value = value[1 : len(value)-1]
			value = strings.ReplaceAll(value, `\\`, `\`)
			value = strings.ReplaceAll(value, `\"`, `"`)
		}
		params[name] = value
	}
	return parts[0], params
}

// pyStrip is str.strip() for the ASCII whitespace that matters in headers.
func pyStrip(s string) string {
	return strings.TrimFunc(s, pyIsSpace)
}

// bytesStrip is bytes.strip(): ASCII whitespace only.
func bytesStrip(b []byte) []byte {
	return bytes.Trim(b, " \t\n\r\x0b\x0c")
}

// validBoundary is Python's email boundary check, compiled on first use: its
// {0,200} makes it dear to compile, and a program that reads no multipart body (the
// extension's core answering its first request) need not compile it at start.
var validBoundary = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[ -~]{0,200}[!-~]\n?$`) })

// lineReader is the readline() of a BytesIO.
type lineReader struct {
	b   []byte
	pos int
}

// readLine returns the next line including its "\n", at most max bytes
// (max <= 0: no limit), or nil at the end.
func (r *lineReader) readLine(max int) []byte {
	rest := r.b[r.pos:]
	if len(rest) == 0 {
		return nil
	}
	n := bytes.IndexByte(rest, '\n') + 1
	if n == 0 {
		n = len(rest)
	}
	if max > 0 && n > max {
		n = max
	}
	r.pos += n
	return rest[:n]
}

// A formPart is one item of FieldStorage.list: its name (nil when the part
// has none: Python's None), its value as urlencode renders it (one string,
// or one per element when the value is a list), and repr(item) for when the
// item itself is an element of an enclosing list.
type formPart struct {
	name   *string
	values []string
	repr   string
}

// multipartQuery is cgi.FieldStorage(...).list turned into
// urlencode([(item.name, item.value)...], doseq=True).
func multipartQuery(mime string, body []byte) (string, error) {
	_, params := parseHeaderParams(mime)
	ib, ok := params["boundary"]
	if !ok || !validBoundary().MatchString(ib) {
		return "", fmt.Errorf("%w: %q", ErrBoundary, ib)
	}
	fs := &fieldStorage{r: &lineReader{b: body}, length: int64(len(body)), limit: int64(len(body))}
	parts, err := fs.readMulti([]byte(ib), nil)
	if err != nil {
		return "", err
	}
	var out []byte
	for _, p := range parts {
		name := "None"
		if p.name != nil {
			name = *p.name
		}
		for _, v := range p.values {
			if len(out) > 0 {
				out = append(out, '&')
			}
			out = appendQuotePlus(out, name)
			out = append(out, '=')
			out = appendQuotePlus(out, v)
		}
	}
	return string(out), nil
}

// fieldStorage holds the reading state of one cgi.FieldStorage.
type fieldStorage struct {
	r         *lineReader
	bytesRead int64
	length    int64 // -1 when unknown
	limit     int64 // -1 when None
	done      int
}

// readMulti is FieldStorage.read_multi for boundary ib; outer is the
// boundary of the enclosing part (nil at the top).
func (fs *fieldStorage) readMulti(ib, outer []byte) ([]formPart, error) {
	var parts []formPart
	first := fs.r.readLine(0)
	fs.bytesRead += int64(len(first))
	delim := append([]byte("--"), ib...)
	for first != nil && !bytes.Equal(bytesStrip(first), delim) {
		first = fs.r.readLine(0)
		fs.bytesRead += int64(len(first))
	}
	for {
		var hdr []byte
		for {
			line := fs.r.readLine(0)
			hdr = append(hdr, line...)
			if len(bytesStrip(line)) == 0 {
				break
			}
		}
		if len(hdr) == 0 {
			break
		}
		fs.bytesRead += int64(len(hdr))
		headers := parseMIMEHeaders(string(appendDecodeReplace(nil, hdr)))
		limit := int64(-1)
		if fs.limit >= 0 {
			limit = fs.limit - fs.bytesRead
		}
		part := &fieldStorage{r: fs.r, length: -1, limit: limit}
		item, err := part.readPart(headers, ib)
		if err != nil {
			return nil, err
		}
		parts = append(parts, item)
		fs.bytesRead += part.bytesRead
		if part.done != 0 || (fs.length > 0 && fs.bytesRead >= fs.length) {
			break
		}
	}
	fs.skipLines(outer)
	return parts, nil
}

// readPart reads one part whose headers are h and whose enclosing boundary
// is outer, and returns it as an item of the enclosing list.
func (fs *fieldStorage) readPart(h mimeHeader, outer []byte) (formPart, error) {
	var item formPart
	_, disp := parseHeaderParams(h.get("content-disposition"))
	nameRepr, fileRepr := "None", "None"
	if name, ok := disp["name"]; ok {
		item.name = &name
		nameRepr = pyfmt.Repr(name)
	}
	filename, binary := disp["filename"]
	if binary {
		fileRepr = pyfmt.Repr(filename)
	}
	ctype, ctParams := "text/plain", map[string]string{}
	if _, ok := h.lookup("content-type"); ok {
		ctype, ctParams = parseHeaderParams(h.get("content-type"))
	}
	var valueRepr string
	switch {
	case ctype == "application/x-www-form-urlencoded":
		// read_urlencoded with an unknown length reads the rest of the
		// stream; the item's value is then a list of MiniFieldStorage,
		// which urlencode renders with str().
		rest := fs.r.b[fs.r.pos:]
		fs.r.pos = len(fs.r.b)
		fs.bytesRead += int64(len(rest))
		for _, kv := range parseQSL(string(appendDecodeReplace(nil, rest))) {
			item.values = append(item.values, "MiniFieldStorage("+pyfmt.Repr(kv[0])+", "+pyfmt.Repr(kv[1])+")")
		}
		valueRepr = "[" + strings.Join(item.values, ", ") + "]"
		fs.skipLines(outer)
	case strings.HasPrefix(ctype, "multipart/"):
		inner, ok := ctParams["boundary"]
		if !ok || !validBoundary().MatchString(inner) {
			return item, fmt.Errorf("%w in a nested part: %q", ErrBoundary, inner)
		}
		fs.length = -1
		parts, err := fs.readMulti([]byte(inner), outer)
		if err != nil {
			return item, err
		}
		for _, p := range parts {
			item.values = append(item.values, p.repr)
		}
		valueRepr = "[" + strings.Join(item.values, ", ") + "]"
	default:
		var data []byte
		for _, p := range fs.readLinesToOuterBoundary(outer) {
			if binary {
				data = append(data, p...)
			} else {
				data = appendDecodeReplace(data, p)
			}
		}
		item.values = []string{string(data)}
		if binary {
			valueRepr = pyfmt.ReprBytes(data)
		} else {
			valueRepr = pyfmt.Repr(string(data))
		}
	}
	item.repr = "FieldStorage(" + nameRepr + ", " + fileRepr + ", " + valueRepr + ")"
	return item, nil
}

// readLinesToOuterBoundary is FieldStorage.read_lines_to_outerboundary: it
// returns the pieces written to the part's file.
func (fs *fieldStorage) readLinesToOuterBoundary(outer []byte) [][]byte {
	next := append([]byte("--"), outer...)
	last := append(append([]byte(nil), next...), "--"...)
	var delim []byte
	lastLineLFEnd := true
	var read int64
	var pieces [][]byte
	for {
		if fs.limit >= 0 && fs.limit <= read {
			break
		}
		line := fs.r.readLine(1 << 16)
		fs.bytesRead += int64(len(line))
		read += int64(len(line))
		if line == nil {
			fs.done = -1
			break
		}
		if string(delim) == "\r" {
			line = append([]byte("\r"), line...)
			delim = nil
		}
		if bytes.HasPrefix(line, []byte("--")) && lastLineLFEnd {
			stripped := bytes.TrimRight(line, " \t\n\r\x0b\x0c")
			if bytes.Equal(stripped, next) {
				break
			}
			if bytes.Equal(stripped, last) {
				fs.done = 1
				break
			}
		}
		odelim := delim
		switch {
		case bytes.HasSuffix(line, []byte("\r\n")):
			delim, line, lastLineLFEnd = []byte("\r\n"), line[:len(line)-2], true
		case bytes.HasSuffix(line, []byte("\n")):
			delim, line, lastLineLFEnd = []byte("\n"), line[:len(line)-1], true
		case bytes.HasSuffix(line, []byte("\r")):
			delim, line, lastLineLFEnd = []byte("\r"), line[:len(line)-1], false
		default:
			delim, lastLineLFEnd = nil, false
		}
		pieces = append(pieces, append(append([]byte(nil), odelim...), line...))
	}
	return pieces
}

// skipLines is FieldStorage.skip_lines.
func (fs *fieldStorage) skipLines(outer []byte) {
	if outer == nil || fs.done != 0 {
		return
	}
	next := append([]byte("--"), outer...)
	last := append(append([]byte(nil), next...), "--"...)
	lastLineLFEnd := true
	for {
		line := fs.r.readLine(1 << 16)
		fs.bytesRead += int64(len(line))
		if line == nil {
			fs.done = -1
			return
		}
		if bytes.HasSuffix(line, []byte("--")) && lastLineLFEnd {
			stripped := bytesStrip(line)
			if bytes.Equal(stripped, next) {
				return
			}
			if bytes.Equal(stripped, last) {
				fs.done = 1
				return
			}
		}
		lastLineLFEnd = bytes.HasSuffix(line, []byte("\n"))
	}
}

// parseQSL is urllib.parse.parse_qsl(qs, keep_blank_values=True).
func parseQSL(qs string) [][2]string {
	var out [][2]string
	for _, nv := range strings.Split(qs, "&") {
		if nv == "" {
			continue
		}
		name, value, _ := strings.Cut(nv, "=")
		out = append(out, [2]string{unquotePlus(name), unquotePlus(value)})
	}
	return out
}

// A mimeHeader is the header block of a part as email.feedparser reads it
// (policy compat32): names compared without case, first occurrence wins.
type mimeHeader [][2]string

func (h mimeHeader) lookup(name string) (string, bool) {
	for _, kv := range h {
		if strings.EqualFold(kv[0], name) {
			return kv[1], true
		}
	}
	return "", false
}

func (h mimeHeader) get(name string) string {
	v, _ := h.lookup(name)
	return v
}

var headerLineRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(From |[\x21-\x39\x3b-\x7e]*:|[\t ])`) })

// parseMIMEHeaders parses header text as email.feedparser does: lines end in
// CRLF, CR or LF; continuation lines start with a space or tab; the first
// line that is not a header ends the headers.
func parseMIMEHeaders(text string) mimeHeader {
	var lines []string
	for len(text) > 0 {
		i := strings.IndexAny(text, "\r\n")
		if i < 0 {
			lines = append(lines, text)
			break
		}
		end := i + 1
		if text[i] == '\r' && i+1 < len(text) && text[i+1] == '\n' {
			end++
		}
		lines = append(lines, text[:end])
		text = text[end:]
	}
	var h mimeHeader
	var lastName string
	var lastValue []string
	flush := func() {
		if lastName != "" {
			name, value, _ := strings.Cut(lastValue[0], ":")
			value = strings.TrimLeft(value, " \t") + strings.Join(lastValue[1:], "")
			h = append(h, [2]string{name, strings.TrimRight(value, "\r\n")})
		}
		lastName, lastValue = "", nil
	}
	for _, line := range lines {
		if !headerLineRE().MatchString(line) {
			break
		}
		if line[0] == ' ' || line[0] == '\t' {
			if lastName != "" {
				lastValue = append(lastValue, line)
			}
			continue
		}
		flush()
		if strings.HasPrefix(line, "From ") {
			continue
		}
		i := strings.IndexByte(line, ':')
		if i <= 0 {
			continue
		}
		lastName, lastValue = line[:i], []string{line}
	}
	flush()
	return h
}
