package cdx

import (
	"encoding/base64"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/webkeep/webkeep/internal/pyfmt"
)

// This file is the WarcioJS dialect: the key ReplayWeb.page computes when a replayed
// page sends a POST or PUT (wabac.js's convertPostToGet, which calls warcio.js's
// postToGetUrl on the request's text). Each function below is named after the
// JavaScript operation it reproduces; docs/cdx-dialects.md lists where the result
// differs from pywb's.

// fetchMethod normalizes a method as the Fetch standard does: the six methods it
// knows are upper-cased whatever their case; any other is kept as given.
func fetchMethod(m string) string {
	switch u := strings.ToUpper(m); u {
	case "DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT":
		return u
	}
	return m
}

// replayQuery returns the query ReplayWeb.page appends after "__wb_method=M&" when a
// page sends r at replay, and whether it converts the request at all (POST and PUT
// only). The body is read as Request.text() reads it (UTF-8, BOM removed, errors
// replaced); the query is then decodeURI-ed, or empty when decodeURI throws.
func replayQuery(r *Request) (method, query string, converted bool) {
	method = fetchMethod(r.Method)
	if method != "POST" && method != "PUT" {
		return method, "", false
	}
	ctype := strings.Join(headerValues(r.Header, "Content-Type"), ", ")
	text := decodeUTF8(r.Body)
	var q string
	switch mime, _, _ := strings.Cut(ctype, ";"); mime {
	case "application/x-www-form-urlencoded":
		q = text
	case "application/json":
		q, _ = jsonToQueryString(text)
	case "text/plain":
		var ok bool
		if q, ok = jsonToQueryString(text); !ok {
			q = binaryToString(text)
		}
	case "multipart/form-data":
		q = mfdToQueryString(text, ctype)
	default:
		q = binaryToString(text)
	}
	dq, ok := decodeURI(q)
	if !ok {
		dq = ""
	}
	return method, dq, true
}

// safeQuery makes the query one that ReplayWeb.page can read back: it runs
// decodeURIComponent over every URL it loads from an index, which throws on a "%"
// that is not the start of a UTF-8 escape (decodeURI turns "%25" into such a "%").
// Each such "%" becomes "%25"; the key then differs from the one looked up, and
// ReplayWeb.page finds the capture by its fuzzy match instead of failing.
func safeQuery(q string) string {
	if _, ok := decodeURIPart(q, ""); ok {
		return q
	}
	var sb strings.Builder
	for i := 0; i < len(q); i++ {
		if q[i] == '%' {
			if n := validEscape(q[i:]); n > 0 {
				sb.WriteString(q[i : i+n])
				i += n - 1
				continue
			}
			sb.WriteString("%25")
			continue
		}
		sb.WriteByte(q[i])
	}
	return sb.String()
}

// validEscape returns the length of the UTF-8 escape sequence s starts with, or 0.
func validEscape(s string) int {
	for n := 3; n <= 12 && n <= len(s); n += 3 {
		if _, ok := decodeURIPart(s[:n], ""); ok {
			return n
		}
	}
	return 0
}

// jsAppendQuery is warcio.js's appendRequestQuery: "&" or "?", then
// "__wb_method=M&" and the query, even when it is empty.
func jsAppendQuery(url, method, query string) string {
	sep := "?"
	if strings.Index(url, "?") > 0 {
		sep = "&"
	}
	return url + sep + "__wb_method=" + method + "&" + query
}

// headerValues returns every value of the named header, the name matched without
// regard to case, each normalized as a Headers object keeps it (HTTP white space
// removed from both ends), for get() to join.
func headerValues(h map[string][]string, name string) []string {
	var out []string
	keys := slices.Sorted(maps.Keys(h))
	for _, k := range keys {
		if vs := h[k]; strings.EqualFold(k, name) {
			for _, v := range vs {
				out = append(out, strings.Trim(v, "\t\n\r "))
			}
		}
	}
	return out
}

// decodeUTF8 is the Encoding standard's "UTF-8 decode", which Request.text() does: a
// leading BOM is dropped and each maximal invalid subpart becomes one U+FFFD.
func decodeUTF8(b []byte) string {
	if len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF {
		b = b[3:]
	}
	return pyfmt.DecodeUTF8(b)
}

// binaryToString is warcio.js's fallback for a body it cannot read as a form or
// JSON: "__wb_post_data=" and btoa() of the text, which throws (leaving the value
// empty) when a character is beyond U+00FF.
func binaryToString(text string) string {
	latin1 := make([]byte, 0, len(text))
	for _, r := range text {
		if r > 0xFF {
			return "__wb_post_data="
		}
		latin1 = append(latin1, byte(r))
	}
	return "__wb_post_data=" + base64.StdEncoding.EncodeToString(latin1)
}

// decodeURI is ECMAScript's decodeURI: escapes of characters outside ";/?:@&=+$,#"
// are decoded; ok is false where it throws URIError (a "%" without two hex digits, or
// escapes that are not UTF-8).
func decodeURI(s string) (string, bool) { return decodeURIPart(s, ";/?:@&=+$,#") }

// decodeURIPart is ECMAScript's Decode(string, reservedSet): decodeURI with
// ";/?:@&=+$,#", decodeURIComponent with "".
func decodeURIPart(s, reserved string) (string, bool) {
	if !strings.Contains(s, "%") {
		return s, true
	}
	escaped := func(i int) (byte, bool) {
		if i+3 > len(s) || s[i] != '%' {
			return 0, false
		}
		return hexByte(s[i+1 : i+3])
	}
	var sb strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '%' {
			sb.WriteByte(s[i])
			i++
			continue
		}
		if i+3 > len(s) {
			return "", false
		}
		b, ok := escaped(i)
		if !ok {
			return "", false
		}
		if b < 0x80 {
			if strings.IndexByte(reserved, b) >= 0 {
				sb.WriteString(s[i : i+3])
			} else {
				sb.WriteByte(b)
			}
			i += 3
			continue
		}
		n := 0
		switch {
		case b&0xE0 == 0xC0:
			n = 2
		case b&0xF0 == 0xE0:
			n = 3
		case b&0xF8 == 0xF0:
			n = 4
		default:
			return "", false
		}
		seq := []byte{b}
		j := i + 3
		for k := 1; k < n; k++ {
			if j+3 > len(s) {
				return "", false
			}
			c, ok := escaped(j)
			if !ok || c&0xC0 != 0x80 {
				return "", false
			}
			seq = append(seq, c)
			j += 3
		}
		if _, size := utf8.DecodeRune(seq); size != n { // U+FFFD itself is valid
			return "", false
		}
		sb.Write(seq)
		i = j
	}
	return sb.String(), true
}

// jsValue is a value JSON.parse makes: nil (null), bool, float64, string (lone
// surrogates kept as WTF-8), []jsValue, or *jsObject.
type jsValue any

// jsObject is an object with its properties in the order Object.entries gives:
// array-index keys ascending, then the others in the order they were first made.
type jsObject struct {
	keys []string
	vals map[string]jsValue
}

func (o *jsObject) set(k string, v jsValue) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// entries returns the keys in Object.entries order.
func (o *jsObject) entries() []string {
	var idx, rest []string
	for _, k := range o.keys {
		if _, ok := arrayIndex(k); ok {
			idx = append(idx, k)
		} else {
			rest = append(rest, k)
		}
	}
	slices.SortFunc(idx, func(a, b string) int {
		x, _ := arrayIndex(a)
		y, _ := arrayIndex(b)
		return int(x) - int(y)
	})
	return append(idx, rest...)
}

// arrayIndex reports whether k is a canonical array index (0 to 2^32-2).
func arrayIndex(k string) (int64, bool) {
	if k == "" || len(k) > 10 || (k[0] == '0' && len(k) > 1) {
		return 0, false
	}
	n, err := strconv.ParseInt(k, 10, 64)
	if err != nil || n > math.MaxUint32-1 {
		return 0, false
	}
	return n, true
}

// maxJSDepth bounds the nesting the JSON reader follows: deeper, the body is read
// as JavaScript would fail to (see jsonToQueryString).
const maxJSDepth = 1000

// jsParser is JSON.parse over UTF-8 text.
type jsParser struct {
	s     string
	i     int
	depth int
}

func (p *jsParser) ws() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

func (p *jsParser) value() (jsValue, bool) {
	p.ws()
	if p.i >= len(p.s) {
		return nil, false
	}
	switch c := p.s[p.i]; {
	case c == '{':
		if p.depth++; p.depth > maxJSDepth {
			return nil, false
		}
		defer func() { p.depth-- }()
		p.i++
		o := &jsObject{vals: map[string]jsValue{}}
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return o, true
		}
		for {
			p.ws()
			if p.i >= len(p.s) || p.s[p.i] != '"' {
				return nil, false
			}
			k, ok := p.str()
			if !ok {
				return nil, false
			}
			p.ws()
			if p.i >= len(p.s) || p.s[p.i] != ':' {
				return nil, false
			}
			p.i++
			v, ok := p.value()
			if !ok {
				return nil, false
			}
			o.set(k, v)
			p.ws()
			if p.i < len(p.s) && p.s[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.s) && p.s[p.i] == '}' {
				p.i++
				return o, true
			}
			return nil, false
		}
	case c == '[':
		if p.depth++; p.depth > maxJSDepth {
			return nil, false
		}
		defer func() { p.depth-- }()
		p.i++
		a := []jsValue{}
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return a, true
		}
		for {
			v, ok := p.value()
			if !ok {
				return nil, false
			}
			a = append(a, v)
			p.ws()
			if p.i < len(p.s) && p.s[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.s) && p.s[p.i] == ']' {
				p.i++
				return a, true
			}
			return nil, false
		}
	case c == '"':
		return p.str()
	case c == 't' && strings.HasPrefix(p.s[p.i:], "true"):
		p.i += 4
		return true, true
	case c == 'f' && strings.HasPrefix(p.s[p.i:], "false"):
		p.i += 5
		return false, true
	case c == 'n' && strings.HasPrefix(p.s[p.i:], "null"):
		p.i += 4
		return nil, true
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	return nil, false
}

func (p *jsParser) number() (jsValue, bool) {
	start := p.i
	digits := func() int {
		n := 0
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.s[p.i] == '-' {
		p.i++
	}
	if p.i < len(p.s) && p.s[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		return nil, false
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return nil, false
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return nil, false
		}
	}
	f, err := strconv.ParseFloat(p.s[start:p.i], 64)
	if err != nil && !math.IsInf(f, 0) && f != 0 {
		return nil, false
	}
	return f, true
}

// str reads a string; a \u escape of a lone surrogate is kept as its three-byte
// WTF-8 form, so that keys stay distinct as they are in JavaScript.
func (p *jsParser) str() (string, bool) {
	p.i++ // the opening quote
	var sb strings.Builder
	for {
		if p.i >= len(p.s) {
			return "", false
		}
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return sb.String(), true
		case c < 0x20:
			return "", false
		case c != '\\':
			sb.WriteByte(c)
			p.i++
			continue
		}
		p.i++
		if p.i >= len(p.s) {
			return "", false
		}
		e := p.s[p.i]
		p.i++
		switch e {
		case '"', '\\', '/':
			sb.WriteByte(e)
		case 'b':
			sb.WriteByte('\b')
		case 'f':
			sb.WriteByte('\f')
		case 'n':
			sb.WriteByte('\n')
		case 'r':
			sb.WriteByte('\r')
		case 't':
			sb.WriteByte('\t')
		case 'u':
			u, ok := p.hex4()
			if !ok {
				return "", false
			}
			if u >= 0xD800 && u <= 0xDBFF && strings.HasPrefix(p.s[p.i:], `\u`) {
				save := p.i
				p.i += 2
				if lo, ok := p.hex4(); ok && lo >= 0xDC00 && lo <= 0xDFFF {
					sb.WriteRune(rune((u-0xD800)<<10 + (lo - 0xDC00) + 0x10000))
					continue
				}
				p.i = save
			}
			if u >= 0xD800 && u <= 0xDFFF {
				sb.WriteString(string([]byte{0xED, byte(0xA0 | (u>>6)&0x1F), byte(0x80 | u&0x3F)}))
				continue
			}
			sb.WriteRune(rune(u))
		default:
			return "", false
		}
	}
}

func (p *jsParser) hex4() (uint32, bool) {
	if p.i+4 > len(p.s) {
		return 0, false
	}
	r, ok := hex4(p.s[p.i : p.i+4])
	if !ok {
		return 0, false
	}
	p.i += 4
	return uint32(r), true
}

// searchParams is a URLSearchParams list.
type searchParams struct {
	names, values []string
}

func (q *searchParams) has(name string) bool { return slices.Contains(q.names, name) }

// set is URLSearchParams.set: the first pair of that name takes the value and the
// others go; with none, the pair is appended.
func (q *searchParams) set(name, value string) {
	first := -1
	for i := 0; i < len(q.names); i++ {
		if q.names[i] != name {
			continue
		}
		if first < 0 {
			first = i
			q.values[i] = value
			continue
		}
		q.names = slices.Delete(q.names, i, i+1)
		q.values = slices.Delete(q.values, i, i+1)
		i--
	}
	if first < 0 {
		q.names = append(q.names, name)
		q.values = append(q.values, value)
	}
}

// String is URLSearchParams.toString: application/x-www-form-urlencoded.
func (q *searchParams) String() string {
	var sb strings.Builder
	for i := range q.names {
		if i > 0 {
			sb.WriteByte('&')
		}
		formEncode(&sb, q.names[i])
		sb.WriteByte('=')
		formEncode(&sb, q.values[i])
	}
	return sb.String()
}

// formEncode writes s form-urlencoded as UTF-8; a lone surrogate (WTF-8) is written
// as U+FFFD, as the conversion to a USVString does.
func formEncode(sb *strings.Builder, s string) {
	const hexDigits = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '*', c == '-', c == '.', c == '_':
			sb.WriteByte(c)
		case c == ' ':
			sb.WriteByte('+')
		case c == 0xED && i+2 < len(s) && s[i+1] >= 0xA0 && s[i+1] <= 0xBF:
			sb.WriteString("%EF%BF%BD")
			i += 2
		default:
			sb.WriteByte('%')
			sb.WriteByte(hexDigits[c>>4])
			sb.WriteByte(hexDigits[c&15])
		}
	}
}

// jsonToQueryString is warcio.js's jsonToQueryString: text that JSON.parse cannot
// read counts as {}; each scalar becomes a pair named after its nearest key (arrays
// pass their key on; a repeated name gets ".N_"), null is "null" and empty strings
// are left out. ok is false where the JavaScript would throw (here: nesting deeper
// than maxJSDepth, where it runs out of stack).
func jsonToQueryString(text string) (string, bool) {
	p := &jsParser{s: text}
	v, ok := p.value()
	if ok {
		p.ws()
		ok = p.i == len(p.s)
	}
	if !ok {
		if p.depth > maxJSDepth {
			return "", false
		}
		v = &jsObject{vals: map[string]jsValue{}}
	}
	q := &searchParams{}
	dupes := map[string]int{}
	key := func(k string) string {
		if !q.has(k) {
			return k
		}
		if _, ok := dupes[k]; !ok {
			dupes[k] = 1
		}
		dupes[k]++
		return k + "." + strconv.Itoa(dupes[k]) + "_"
	}
	var walk func(v jsValue, k string)
	walk = func(v jsValue, k string) {
		s := ""
		switch v := v.(type) {
		case nil:
			s = "null"
		case *jsObject:
			for _, name := range v.entries() {
				walk(v.vals[name], name)
			}
		case []jsValue:
			for _, e := range v {
				walk(e, k)
			}
		case string:
			s = v
		case float64:
			s = jsNumber(v)
		case bool:
			s = strconv.FormatBool(v)
		}
		if s != "" {
			q.set(key(k), s)
		}
	}
	walk(v, "")
	return q.String(), true
}

// jsNumber is Number.prototype.toString() for a float64.
func jsNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0"
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	// The shortest digits that read back as f, and the decimal exponent n: the
	// value is 0.digits × 10^n.
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	n, k := x+1, len(digits)
	switch {
	case k <= n && n <= 21:
		return sign + digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return sign + digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return sign + "0." + strings.Repeat("0", -n) + digits
	}
	es := "+"
	if n-1 < 0 {
		es = "-"
	}
	ex := strconv.Itoa(abs(n - 1))
	if k == 1 {
		return sign + digits + "e" + es + ex
	}
	return sign + digits[:1] + "." + digits[1:] + "e" + es + ex
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// mfdPart is warcio.js's pattern for a part: the first name="..." followed by a blank
// line, and the rest of that line (JavaScript's "." stops at any line terminator).
var mfdPart = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)name="([^"]+)"\r\n\r\n([^\n\r\x{2028}\x{2029}]*)`)
})

// mfdToQueryString is warcio.js's mfdToQueryString: the text is split on the
// boundary (everything after the content type's first "boundary=", used as a
// case-insensitive regular expression between runs of "-"), and each part's first
// name="..." gives a pair whose value is the rest of the line after the blank line.
// Any failure gives no pairs.
func mfdToQueryString(text, ctype string) string {
	q := &searchParams{}
	parts := strings.Split(ctype, "boundary=")
	boundary := "undefined"
	if len(parts) > 1 {
		boundary = parts[1]
	}
	re, ok := jsBoundaryPattern(boundary)
	if !ok {
		return ""
	}
	for _, part := range jsSplit(text, re) {
		if m := mfdPart().FindStringSubmatch(jsTrim(part)); m != nil {
			q.set(m[1], m[2])
		}
	}
	return q.String()
}

// jsBoundaryPattern compiles "-*" + boundary + "-*" with the flags "mi" as
// JavaScript reads it: letters match either case (ASCII only, as case folding
// without the "u" flag does), "." matches anything but a line terminator, and "(",
// ")", "+" and "?" keep their meaning. Other regular-expression characters are not
// read as JavaScript would (a browser's boundary never has them): ok is false.
func jsBoundaryPattern(boundary string) (*regexp.Regexp, bool) {
	var sb strings.Builder
	sb.WriteString(`\A(?:-*`)
	for i := 0; i < len(boundary); i++ {
		c := boundary[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			lower, upper := c|0x20, c&^0x20
			sb.WriteString("[" + string(lower) + string(upper) + "]")
		case c == '.':
			sb.WriteString(`[^\n\r\x{2028}\x{2029}]`)
		case c == '(' || c == ')' || c == '+' || c == '?':
			if c == '(' && i+1 < len(boundary) && boundary[i+1] == '?' {
				return nil, false // a group modifier or lookahead: JavaScript's own syntax
			}
			sb.WriteByte(c)
		case strings.IndexByte(`\[]{}*^$|/`, c) >= 0:
			return nil, false
		default:
			sb.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	sb.WriteString(`-*)`)
	re, err := regexp.Compile(sb.String())
	return re, err == nil
}

// jsSplit is String.prototype.split with a regular expression (anchored at \A):
// matches are tried at each position; an empty match where the last piece began does
// not split; captured groups go into the result between the pieces.
func jsSplit(s string, re *regexp.Regexp) []string {
	if s == "" {
		if re.MatchString("") {
			return nil
		}
		return []string{""}
	}
	var out []string
	p, q := 0, 0
	for q < len(s) {
		m := re.FindStringSubmatchIndex(s[q:])
		if m == nil {
			_, size := utf8.DecodeRuneInString(s[q:])
			q += size
			continue
		}
		e := q + m[1]
		if e == p {
			_, size := utf8.DecodeRuneInString(s[q:])
			q += size
			continue
		}
		out = append(out, s[p:q])
		for g := 1; g < len(m)/2; g++ {
			if m[2*g] >= 0 {
				out = append(out, s[q+m[2*g]:q+m[2*g+1]])
			} else {
				out = append(out, "")
			}
		}
		p, q = e, e
	}
	return append(out, s[p:])
}

// jsTrim is String.prototype.trim: white space and line terminators at both ends.
func jsTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		switch r {
		case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
			return true
		}
		return r >= 0x2000 && r <= 0x200A
	})
}

// replayLoaderMimes are the content types for which ReplayWeb.page's CDXJ loader
// stores a POST's key as the URL parser writes it (with each query value cut at
// replayLoaderValueMax characters); any other key is cut at replayLoaderURLMax.
var replayLoaderMimes = map[string]bool{
	"text/javascript": true, "application/javascript": true, "application/x-javascript": true,
	"application/json": true, "application/octet-stream": true, "text/html": true,
}

const (
	replayLoaderValueMax = 1024
	replayLoaderURLMax   = 512
)

// ReplayWebPageURL returns the URL under which ReplayWeb.page (wabac.js 2.27) stores
// a line of a WACZ index with this url, method, requestBody (as the WarcioJS dialect
// writes them) and response mime: the key a page list entry must name to open that
// capture. A GET's is its url.
func ReplayWebPageURL(url, method, requestBody, mime string) string {
	if method == "" || method == "GET" {
		return url
	}
	key := jsAppendQuery(url, method, requestBody)
	if !replayLoaderMimes[mime] {
		if len(utf16Units(key)) > replayLoaderURLMax {
			return string(utf16.Decode(utf16Units(key)[:replayLoaderURLMax]))
		}
		return key
	}
	// The URL parser drops leading and trailing controls and spaces, and every tab
	// and line break; a URL with no path gets "/".
	key = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, strings.TrimFunc(key, func(r rune) bool { return r <= ' ' }))
	base, query, ok := strings.Cut(key, "?")
	if !ok || strings.ContainsAny(query, "#") {
		return key // not one this function follows the URL parser through
	}
	if scheme, rest, ok := strings.Cut(base, "://"); ok && !strings.Contains(rest, "/") {
		base = scheme + "://" + rest + "/"
	}
	q := parseFormQuery(query)
	cut := false
	for i, v := range q.values {
		if u := utf16Units(v); len(u) > replayLoaderValueMax {
			q.values[i] = string(utf16.Decode(u[:replayLoaderValueMax]))
			cut = true
		}
	}
	if cut {
		// searchParams.set() writes the whole query again, form-encoded.
		return base + "?" + q.String()
	}
	return base + "?" + encodeQuery(query)
}

// encodeQuery percent-encodes a query as the URL parser does for http(s) URLs:
// controls, space, '"', "'", '<', '>' and every non-ASCII byte (as UTF-8).
func encodeQuery(q string) string {
	const hexDigits = "0123456789ABCDEF"
	var sb strings.Builder
	for i := 0; i < len(q); i++ {
		c := q[i]
		if c <= ' ' || c == '"' || c == '\'' || c == '<' || c == '>' || c >= 0x7F {
			sb.WriteByte('%')
			sb.WriteByte(hexDigits[c>>4])
			sb.WriteByte(hexDigits[c&15])
			continue
		}
		sb.WriteByte(c)
	}
	return sb.String()
}

// parseFormQuery is the application/x-www-form-urlencoded parser: pairs split on
// "&" and the first "=", "+" read as a space, escapes decoded as UTF-8.
func parseFormQuery(q string) *searchParams {
	p := &searchParams{}
	for _, pair := range strings.Split(q, "&") {
		if pair == "" {
			continue
		}
		name, value, _ := strings.Cut(pair, "=")
		p.names = append(p.names, formDecode(name))
		p.values = append(p.values, formDecode(value))
	}
	return p
}

func formDecode(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' && i+2 < len(s) {
			if v, ok := hexByte(s[i+1 : i+3]); ok {
				b = append(b, v)
				i += 2
				continue
			}
		}
		if c == '+' {
			c = ' '
		}
		b = append(b, c)
	}
	return pyfmt.DecodeUTF8(b)
}

// utf16Units is s as JavaScript sees it: UTF-16 code units.
func utf16Units(s string) []uint16 { return utf16.Encode([]rune(s)) }
