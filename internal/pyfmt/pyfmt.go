// Package pyfmt writes and reads values as the Python programs webkeep must agree
// with do (pywb's indexer, wwturldb's messages): repr() of a str, bytes and float,
// json.dumps of a str (ensure_ascii, or not: then JSON.stringify's too), and
// bytes.decode("utf-8", "replace"). It is the one place the project formats
// anything the Python way, and writes a JSON string.
package pyfmt

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Repr is Python's repr() of a str: single quotes unless the text
// contains a single quote and no double quote; backslash escapes for the
// quote, backslash, \t \n \r and every non-printable character.
func Repr(s string) string {
	quote := byte('\'')
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		quote = '"'
	}
	b := []byte{quote}
	for _, r := range s {
		switch {
		case r == rune(quote) || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\t':
			b = append(b, `\t`...)
		case r == '\n':
			b = append(b, `\n`...)
		case r == '\r':
			b = append(b, `\r`...)
		case r < 0x20 || r == 0x7f:
			b = append(b, '\\', 'x', lowerHex[r>>4], lowerHex[r&15])
		case r < utf8.RuneSelf || unicode.IsPrint(r):
			b = utf8.AppendRune(b, r)
		case r < 0x100:
			b = append(b, '\\', 'x', lowerHex[r>>4], lowerHex[r&15])
		case r < 0x10000:
			b = append(b, '\\', 'u')
			b = appendHexN(b, uint32(r), 4)
		default:
			b = append(b, '\\', 'U')
			b = appendHexN(b, uint32(r), 8)
		}
	}
	return string(append(b, quote))
}

// ReprBytes is Python's repr() of bytes.
func ReprBytes(s []byte) string {
	quote := byte('\'')
	if strings.Contains(string(s), "'") && !strings.Contains(string(s), `"`) {
		quote = '"'
	}
	b := []byte{'b', quote}
	for _, c := range s {
		switch {
		case c == quote || c == '\\':
			b = append(b, '\\', c)
		case c == '\t':
			b = append(b, `\t`...)
		case c == '\n':
			b = append(b, `\n`...)
		case c == '\r':
			b = append(b, `\r`...)
		case c < 0x20 || c >= 0x7f:
			b = append(b, '\\', 'x', lowerHex[c>>4], lowerHex[c&15])
		default:
			b = append(b, c)
		}
	}
	return string(append(b, quote))
}

const lowerHex = "0123456789abcdef"

func appendHexN(b []byte, v uint32, n int) []byte {
	for i := n - 1; i >= 0; i-- {
		b = append(b, lowerHex[(v>>(4*uint(i)))&15])
	}
	return b
}

// FloatRepr is Python's repr(float) (= str(float)): the shortest digits that
// round-trip, positional notation for exponents -4 <= e < 16 with at least one
// digit after the point, scientific notation with a signed two-digit exponent
// otherwise; "nan", "inf", "-inf".
func FloatRepr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // -d.ddddde±XX
	sign := ""
	if e[0] == '-' {
		sign, e = "-", e[1:]
	}
	mant, exps, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	exp, _ := strconv.Atoi(exps)
	decpt := exp + 1
	var b strings.Builder
	b.WriteString(sign)
	switch {
	case decpt > -4 && decpt <= 16:
		switch {
		case decpt <= 0:
			b.WriteString("0.")
			b.WriteString(strings.Repeat("0", -decpt))
			b.WriteString(digits)
		case decpt >= len(digits):
			b.WriteString(digits)
			b.WriteString(strings.Repeat("0", decpt-len(digits)))
			b.WriteString(".0")
		default:
			b.WriteString(digits[:decpt])
			b.WriteByte('.')
			b.WriteString(digits[decpt:])
		}
	default:
		b.WriteString(digits[:1])
		if len(digits) > 1 {
			b.WriteByte('.')
			b.WriteString(digits[1:])
		}
		b.WriteByte('e')
		if exp < 0 {
			b.WriteByte('-')
			exp = -exp
		} else {
			b.WriteByte('+')
		}
		if exp < 10 {
			b.WriteByte('0')
		}
		b.WriteString(strconv.Itoa(exp))
	}
	return b.String()
}

// AppendJSONString appends s as Python's json.dumps writes a str (ensure_ascii):
// '"' and '\\' escaped, \n \r \t \b \f by name, every other character outside
// space to '~' as \uXXXX (astral ones as a surrogate pair). Invalid UTF-8 is
// written as U+FFFD.
func AppendJSONString(dst []byte, s string) []byte {
	return appendJSONString(dst, s, true)
}

// AppendJSONStringUTF8 appends s as json.dumps(s, ensure_ascii=False) writes a str,
// which is also what JavaScript's JSON.stringify writes: '"' and '\\' escaped,
// \n \r \t \b \f by name, the other control characters below space as \u00XX,
// everything else as it is (UTF-8). Invalid UTF-8 is written as U+FFFD.
func AppendJSONStringUTF8(dst []byte, s string) []byte {
	return appendJSONString(dst, s, false)
}

// appendJSONString appends s as a JSON string; ascii says whether every character
// outside space to '~' is escaped, or only the control characters below space.
func appendJSONString(dst []byte, s string, ascii bool) []byte {
	if plainJSON(s) {
		dst = append(dst, '"')
		dst = append(dst, s...)
		return append(dst, '"')
	}
	dst = append(dst, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			dst = append(dst, '\\', byte(r))
		case r == '\n':
			dst = append(dst, '\\', 'n')
		case r == '\r':
			dst = append(dst, '\\', 'r')
		case r == '\t':
			dst = append(dst, '\\', 't')
		case r == '\b':
			dst = append(dst, '\\', 'b')
		case r == '\f':
			dst = append(dst, '\\', 'f')
		case r >= 0x20 && r < 0x7f:
			dst = append(dst, byte(r))
		case !ascii && r >= 0x20:
			dst = utf8.AppendRune(dst, r)
		case r >= 0x10000:
			r1, r2 := utf16.EncodeRune(r)
			dst = append(dst, '\\', 'u')
			dst = appendHexN(dst, uint32(r1), 4)
			dst = append(dst, '\\', 'u')
			dst = appendHexN(dst, uint32(r2), 4)
		default:
			dst = append(dst, '\\', 'u')
			dst = appendHexN(dst, uint32(r), 4)
		}
	}
	return append(dst, '"')
}

// plainJSON reports whether s is printable ASCII without '"' or '\\': a JSON
// string of itself, escaped to ASCII or not.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// DecodeUTF8 decodes UTF-8 as Python's bytes.decode("utf-8", "replace") does, and
// as the Encoding standard's "UTF-8 decode without BOM" (TextDecoder) does: one
// U+FFFD for each maximal invalid subpart (a truncated sequence is one).
func DecodeUTF8(p []byte) string {
	if utf8.Valid(p) {
		return string(p)
	}
	var b strings.Builder
	for i := 0; i < len(p); {
		c := p[i]
		if c < 0x80 {
			b.WriteByte(c)
			i++
			continue
		}
		if r, size := utf8.DecodeRune(p[i:]); r != utf8.RuneError || size > 1 {
			b.WriteRune(r)
			i += size
			continue
		}
		n, lo, hi := 0, byte(0x80), byte(0xbf)
		switch {
		case c >= 0xc2 && c <= 0xdf:
			n = 2
		case c == 0xe0:
			n, lo = 3, 0xa0
		case c >= 0xe1 && c <= 0xec || c == 0xee || c == 0xef:
			n = 3
		case c == 0xed:
			n, hi = 3, 0x9f
		case c == 0xf0:
			n, lo = 4, 0x90
		case c >= 0xf1 && c <= 0xf3:
			n = 4
		case c == 0xf4:
			n, hi = 4, 0x8f
		}
		j := i + 1
		for k := 1; k < n && j < len(p); k++ {
			if k == 1 && (p[j] < lo || p[j] > hi) || k > 1 && (p[j] < 0x80 || p[j] > 0xbf) {
				break
			}
			j++
		}
		b.WriteRune(utf8.RuneError)
		i = j
	}
	return b.String()
}
