package cdx

// A JSON reader with the semantics of Python's json.loads (the C scanner),
// which pywb applies to application/json and text/plain bodies, and pywb's
// json_parse, which flattens the result into query arguments.

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/webkeep/webkeep/internal/pyfmt"
)

// ErrJSON is returned (wrapped with the offset) for a body that Python's
// json.loads rejects.
var ErrJSON = errors.New("cdx: invalid JSON body")

// maxJSONDepth bounds nesting as Python's recursion limit (1000 frames, some
// of them used by pywb's own callers) does: deeper bodies fail to parse.
const maxJSONDepth = 980

// A jsonObject keeps its members in the order of their first appearance with
// the value of their last, as a Python dict built from pairs does.
type jsonObject struct {
	names  []string
	values map[string]any
}

// A jsonNumber is a number literal; float tells whether Python reads it as a
// float (it has a fraction or an exponent) or as an int.
type jsonNumber struct {
	text  string
	float bool
}

// jsonLiteral is NaN, Infinity or -Infinity.
type jsonLiteral float64

// decodeJSONText converts a JSON body to text as json.loads(bytes) does:
// detect_encoding (BOMs, then the pattern of zero bytes), then decode with
// errors="surrogatepass". Lone surrogates are kept as their 3-byte WTF-8 form,
// which later fails to encode exactly where Python's would.
func decodeJSONText(b []byte) (string, error) {
	switch {
	case hasPrefix(b, "\x00\x00\xfe\xff"):
		return decodeUTF32(b[4:], true)
	case hasPrefix(b, "\xff\xfe\x00\x00"):
		return decodeUTF32(b[4:], false)
	case hasPrefix(b, "\xfe\xff"):
		return decodeUTF16(b[2:], true)
	case hasPrefix(b, "\xff\xfe"):
		return decodeUTF16(b[2:], false)
	case hasPrefix(b, "\xef\xbb\xbf"):
		return decodeWTF8(b[3:])
	}
	if len(b) >= 4 {
		if b[0] == 0 {
			if b[1] != 0 {
				return decodeUTF16(b, true)
			}
			return decodeUTF32(b, true)
		}
		if b[1] == 0 {
			if b[2] != 0 || b[3] != 0 {
				return decodeUTF16(b, false)
			}
			return decodeUTF32(b, false)
		}
	} else if len(b) == 2 {
		if b[0] == 0 {
			return decodeUTF16(b, true)
		}
		if b[1] == 0 {
			return decodeUTF16(b, false)
		}
	}
	return decodeWTF8(b)
}

func hasPrefix(b []byte, p string) bool { return len(b) >= len(p) && string(b[:len(p)]) == p }

// appendWTF8 appends r, encoding a surrogate code point as its 3-byte form.
func appendWTF8(dst []byte, r rune) []byte {
	if r >= 0xD800 && r <= 0xDFFF {
		return append(dst, byte(0xE0|r>>12), byte(0x80|(r>>6)&0x3F), byte(0x80|r&0x3F))
	}
	return utf8.AppendRune(dst, r)
}

// decodeWTF8 accepts UTF-8 plus encoded surrogates (Python's surrogatepass).
func decodeWTF8(b []byte) (string, error) {
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		if b[i] == 0xED && i+2 < len(b) && b[i+1] >= 0xA0 && b[i+1] <= 0xBF && b[i+2] >= 0x80 && b[i+2] <= 0xBF {
			i += 3
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return "", fmt.Errorf("%w: invalid UTF-8 at byte %d", ErrJSON, i)
		}
		i += size
	}
	return string(b), nil
}

func decodeUTF16(b []byte, bigEndian bool) (string, error) {
	if len(b)%2 != 0 {
		return "", fmt.Errorf("%w: truncated UTF-16 data", ErrJSON)
	}
	units := make([]uint16, len(b)/2)
	for i := range units {
		if bigEndian {
			units[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
		} else {
			units[i] = uint16(b[2*i+1])<<8 | uint16(b[2*i])
		}
	}
	out := make([]byte, 0, len(units))
	for i := 0; i < len(units); i++ {
		u := rune(units[i])
		if utf16.IsSurrogate(u) && u < 0xDC00 && i+1 < len(units) {
			if r := utf16.DecodeRune(u, rune(units[i+1])); r != utf8.RuneError {
				out = utf8.AppendRune(out, r)
				i++
				continue
			}
		}
		out = appendWTF8(out, u)
	}
	return string(out), nil
}

func decodeUTF32(b []byte, bigEndian bool) (string, error) {
	if len(b)%4 != 0 {
		return "", fmt.Errorf("%w: truncated UTF-32 data", ErrJSON)
	}
	out := make([]byte, 0, len(b)/4)
	for i := 0; i < len(b); i += 4 {
		var r uint32
		if bigEndian {
			r = uint32(b[i])<<24 | uint32(b[i+1])<<16 | uint32(b[i+2])<<8 | uint32(b[i+3])
		} else {
			r = uint32(b[i+3])<<24 | uint32(b[i+2])<<16 | uint32(b[i+1])<<8 | uint32(b[i])
		}
		if r > unicode10FFFF {
			return "", fmt.Errorf("%w: code point out of range at byte %d", ErrJSON, i)
		}
		out = appendWTF8(out, rune(r))
	}
	return string(out), nil
}

const unicode10FFFF = 0x10FFFF

// jsonParser reads the grammar of CPython's _json scanner.
type jsonParser struct {
	s   string
	pos int
}

func (p *jsonParser) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s at offset %d", ErrJSON, fmt.Sprintf(format, args...), p.pos)
}

func (p *jsonParser) skipSpace() {
	for p.pos < len(p.s) {
		switch p.s[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// parseJSON is json.loads on text: one value, surrounded by whitespace.
func parseJSON(text string) (any, error) {
	p := &jsonParser{s: text}
	p.skipSpace()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos != len(p.s) {
		return nil, p.errorf("extra data")
	}
	return v, nil
}

func (p *jsonParser) literal(word string, v any) (any, error) {
	if len(p.s)-p.pos >= len(word) && p.s[p.pos:p.pos+len(word)] == word {
		p.pos += len(word)
		return v, nil
	}
	return nil, p.errorf("expecting value")
}

func (p *jsonParser) value(depth int) (any, error) {
	if p.pos >= len(p.s) {
		return nil, p.errorf("expecting value")
	}
	switch c := p.s[p.pos]; c {
	case '"':
		return p.str()
	case '{':
		if depth >= maxJSONDepth {
			return nil, p.errorf("maximum recursion depth exceeded")
		}
		return p.object(depth + 1)
	case '[':
		if depth >= maxJSONDepth {
			return nil, p.errorf("maximum recursion depth exceeded")
		}
		return p.array(depth + 1)
	case 'n':
		return p.literal("null", nil)
	case 't':
		return p.literal("true", true)
	case 'f':
		return p.literal("false", false)
	case 'N':
		return p.literal("NaN", jsonLiteral(math.NaN()))
	case 'I':
		return p.literal("Infinity", jsonLiteral(math.Inf(1)))
	case '-':
		if len(p.s)-p.pos >= 9 && p.s[p.pos:p.pos+9] == "-Infinity" {
			p.pos += 9
			return jsonLiteral(math.Inf(-1)), nil
		}
		return p.number()
	default:
		if c >= '0' && c <= '9' {
			return p.number()
		}
		return nil, p.errorf("expecting value")
	}
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func (p *jsonParser) number() (any, error) {
	start, i := p.pos, p.pos
	if p.s[i] == '-' {
		i++
	}
	switch {
	case i < len(p.s) && p.s[i] >= '1' && p.s[i] <= '9':
		for i < len(p.s) && isDigit(p.s[i]) {
			i++
		}
	case i < len(p.s) && p.s[i] == '0':
		i++
	default:
		return nil, p.errorf("expecting value")
	}
	float := false
	if i+1 < len(p.s) && p.s[i] == '.' && isDigit(p.s[i+1]) {
		float = true
		i += 2
		for i < len(p.s) && isDigit(p.s[i]) {
			i++
		}
	}
	if i < len(p.s) && (p.s[i] == 'e' || p.s[i] == 'E') {
		j := i + 1
		if j < len(p.s) && (p.s[j] == '+' || p.s[j] == '-') {
			j++
		}
		k := j
		for k < len(p.s) && isDigit(p.s[k]) {
			k++
		}
		if k > j {
			float = true
			i = k
		}
	}
	p.pos = i
	return jsonNumber{text: p.s[start:i], float: float}, nil
}

func (p *jsonParser) hex4(at int) (rune, bool) {
	if at+4 > len(p.s) {
		return 0, false
	}
	return hex4(p.s[at : at+4])
}

func (p *jsonParser) str() (string, error) {
	p.pos++ // opening quote
	var out []byte
	for {
		start := p.pos
		for p.pos < len(p.s) && p.s[p.pos] != '"' && p.s[p.pos] != '\\' && p.s[p.pos] >= 0x20 {
			p.pos++
		}
		out = append(out, p.s[start:p.pos]...)
		if p.pos >= len(p.s) {
			return "", p.errorf("unterminated string")
		}
		c := p.s[p.pos]
		if c == '"' {
			p.pos++
			return string(out), nil
		}
		if c < 0x20 {
			return "", p.errorf("invalid control character")
		}
		// backslash
		p.pos++
		if p.pos >= len(p.s) {
			return "", p.errorf("unterminated string")
		}
		esc := p.s[p.pos]
		p.pos++
		switch esc {
		case '"', '\\', '/':
			out = append(out, esc)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := p.hex4(p.pos)
			if !ok {
				return "", p.errorf("invalid \\uXXXX escape")
			}
			p.pos += 4
			if r >= 0xD800 && r <= 0xDBFF && p.pos+6 < len(p.s) &&
				p.s[p.pos] == '\\' && p.s[p.pos+1] == 'u' {
				r2, ok := p.hex4(p.pos + 2)
				if !ok {
					return "", p.errorf("invalid \\uXXXX escape")
				}
				if r2 >= 0xDC00 && r2 <= 0xDFFF {
					r = utf16.DecodeRune(r, r2)
					p.pos += 6
				}
			}
			out = appendWTF8(out, r)
		default:
			return "", p.errorf("invalid \\escape")
		}
	}
}

func (p *jsonParser) object(depth int) (any, error) {
	p.pos++
	obj := &jsonObject{values: map[string]any{}}
	p.skipSpace()
	if p.pos < len(p.s) && p.s[p.pos] == '}' {
		p.pos++
		return obj, nil
	}
	for {
		if p.pos >= len(p.s) || p.s[p.pos] != '"' {
			return nil, p.errorf("expecting property name enclosed in double quotes")
		}
		name, err := p.str()
		if err != nil {
			return nil, err
		}
		p.skipSpace()
		if p.pos >= len(p.s) || p.s[p.pos] != ':' {
			return nil, p.errorf("expecting ':' delimiter")
		}
		p.pos++
		p.skipSpace()
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		if _, seen := obj.values[name]; !seen {
			obj.names = append(obj.names, name)
		}
		obj.values[name] = v
		p.skipSpace()
		if p.pos < len(p.s) && p.s[p.pos] == '}' {
			p.pos++
			return obj, nil
		}
		if p.pos >= len(p.s) || p.s[p.pos] != ',' {
			return nil, p.errorf("expecting ',' delimiter")
		}
		p.pos++
		p.skipSpace()
	}
}

func (p *jsonParser) array(depth int) (any, error) {
	p.pos++
	var arr []any
	p.skipSpace()
	if p.pos < len(p.s) && p.s[p.pos] == ']' {
		p.pos++
		return arr, nil
	}
	for {
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
		p.skipSpace()
		if p.pos < len(p.s) && p.s[p.pos] == ']' {
			p.pos++
			return arr, nil
		}
		if p.pos >= len(p.s) || p.s[p.pos] != ',' {
			return nil, p.errorf("expecting ',' delimiter")
		}
		p.pos++
		p.skipSpace()
	}
}

// pyStr renders a scalar as pywb's json_parse stores it: str(value) in pywb
// 2.6.7; pywb 2.8.4 spells booleans and null as JavaScript does and prints
// whole floats as integers (and fails, as int(inf) does, on infinities).
func pyStr(v any, d Dialect) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case bool:
		switch {
		case d == Pywb28 && v:
			return "true", nil
		case d == Pywb28:
			return "false", nil
		case v:
			return "True", nil
		}
		return "False", nil
	case nil:
		if d == Pywb28 {
			return "null", nil
		}
		return "None", nil
	case jsonLiteral:
		return pyFloatStr(float64(v), d)
	case jsonNumber:
		if !v.float {
			if v.text == "-0" {
				return "0", nil
			}
			return v.text, nil
		}
		f, err := strconv.ParseFloat(v.text, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return "", err
		}
		return pyFloatStr(f, d)
	}
	return "", fmt.Errorf("cdx: unexpected JSON value %T", v)
}

func pyFloatStr(f float64, d Dialect) (string, error) {
	if d == Pywb28 && !math.IsNaN(f) {
		if math.IsInf(f, 0) {
			return "", fmt.Errorf("%w: cannot convert float infinity to integer", ErrJSON)
		}
		if _, frac := math.Modf(f); frac == 0 {
			return pyIntOfFloat(f), nil
		}
	}
	return pyfmt.FloatRepr(f), nil
}

// jsonQuery is pywb's MethodQueryCanonicalizer.json_parse: it flattens the
// parsed body into name=value arguments, naming each scalar by the member
// that holds it (arrays pass their member's name down), numbering repeated
// names "name.2_", "name.3_", ..., and returns urlencode() of the result.
func jsonQuery(body []byte, d Dialect) (string, error) {
	text, err := decodeJSONText(body)
	if err != nil {
		return "", err
	}
	v, err := parseJSON(text)
	if err != nil {
		return "", err
	}
	f := flattener{values: map[string]string{}, dupes: map[string]int{}, dialect: d}
	if err := f.walk(v, ""); err != nil {
		return "", err
	}
	var out []byte
	for i, k := range f.keys {
		v := f.values[k]
		if !utf8.ValidString(k) || !utf8.ValidString(v) {
			return "", fmt.Errorf("%w: lone surrogate cannot be encoded as UTF-8", ErrJSON)
		}
		if i > 0 {
			out = append(out, '&')
		}
		out = appendQuotePlus(out, k)
		out = append(out, '=')
		out = appendQuotePlus(out, v)
	}
	return string(out), nil
}

type flattener struct {
	keys    []string
	values  map[string]string
	dupes   map[string]int
	dialect Dialect
}

func (f *flattener) key(n string) string {
	if _, ok := f.values[n]; !ok {
		return n
	}
	if _, ok := f.dupes[n]; !ok {
		f.dupes[n] = 1
	}
	f.dupes[n]++
	return n + "." + strconv.Itoa(f.dupes[n]) + "_"
}

func (f *flattener) walk(v any, name string) error {
	switch v := v.(type) {
	case *jsonObject:
		for _, n := range v.names {
			if err := f.walk(v.values[n], n); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range v {
			if err := f.walk(e, name); err != nil {
				return err
			}
		}
	default:
		if name == "" {
			return nil
		}
		s, err := pyStr(v, f.dialect)
		if err != nil {
			return err
		}
		k := f.key(name)
		if _, ok := f.values[k]; !ok {
			f.keys = append(f.keys, k)
		}
		f.values[k] = s
	}
	return nil
}
