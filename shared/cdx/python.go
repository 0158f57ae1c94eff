package cdx

// The functions in this file reproduce the few Python 3 library functions whose
// exact output ends up in pywb's keys: urllib.parse.quote_plus, unquote_plus,
// float.__repr__, int() on a header value, and UTF-8 decoding with
// errors="replace".

import (
	"math"
	"math/big"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/webkeep/webkeep/internal/pyfmt"
)

const upperHex = "0123456789ABCDEF"

// quotePlusSafe reports whether b passes through urllib.parse.quote_plus
// unchanged (Python >= 3.7 keeps "~").
func quotePlusSafe(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' ||
		b == '-' || b == '.' || b == '_' || b == '~'
}

// appendQuotePlus appends quote_plus(s) with safe="" to dst. s must be valid
// UTF-8 (the caller checks: Python raises UnicodeEncodeError otherwise).
func appendQuotePlus(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quotePlusSafe(c):
			dst = append(dst, c)
		case c == ' ':
			dst = append(dst, '+')
		default:
			dst = append(dst, '%', upperHex[c>>4], upperHex[c&15])
		}
	}
	return dst
}

// unhex is the value of the hex digit c, in either case.
func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// hexByte decodes the two hex digits, in either case, that s starts with.
func hexByte(s string) (byte, bool) {
	if len(s) < 2 {
		return 0, false
	}
	hi, ok1 := unhex(s[0])
	lo, ok2 := unhex(s[1])
	return hi<<4 | lo, ok1 && ok2
}

// hex4 decodes the four hex digits, in either case, that s starts with (JSON's and
// JavaScript's \uXXXX).
func hex4(s string) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for i := range 4 {
		d, ok := unhex(s[i])
		if !ok {
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	return r, true
}

// unquoteToBytes is urllib.parse.unquote_to_bytes: every %XX with two hex
// digits becomes the byte, anything else stays as it is.
func unquoteToBytes(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if b, ok := hexByte(s[i+1 : i+3]); ok {
				dst = append(dst, b)
				i += 2
				continue
			}
		}
		dst = append(dst, s[i])
	}
	return dst
}

// unquotePlus is urllib.parse.unquote_plus(s) for a valid UTF-8 s: "+" becomes
// a space, then each run of ASCII characters is unquoted to bytes and decoded
// as UTF-8 with errors="replace"; non-ASCII characters are kept as they are.
func unquotePlus(s string) string {
	s = strings.ReplaceAll(s, "+", " ")
	if !strings.Contains(s, "%") {
		return s
	}
	var out, run []byte
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j] < utf8.RuneSelf {
			j++
		}
		if j > i {
			run = unquoteToBytes(run[:0], s[i:j])
			out = appendDecodeReplace(out, run)
			i = j
			continue
		}
		for j < len(s) && s[j] >= utf8.RuneSelf {
			j++
		}
		out = append(out, s[i:j]...)
		i = j
	}
	return string(out)
}

// appendDecodeReplace appends b decoded as Python's UTF-8 codec with
// errors="replace" does it (see pyfmt.DecodeUTF8).
func appendDecodeReplace(dst, b []byte) []byte {
	return append(dst, pyfmt.DecodeUTF8(b)...)
}

// pyIsSpace is str.isspace for one character, as int() uses it to strip.
func pyIsSpace(r rune) bool {
	return unicode.IsSpace(r) || r >= 0x1C && r <= 0x1F
}

// pyDigit returns the value of a Unicode decimal digit (category Nd).
func pyDigit(r rune) (int, bool) {
	if r >= '0' && r <= '9' {
		return int(r - '0'), true
	}
	if r < utf8.RuneSelf || !unicode.Is(unicode.Nd, r) {
		return 0, false
	}
	for _, rg := range unicode.Nd.R16 {
		if rune(rg.Lo) <= r && r <= rune(rg.Hi) {
			return int(r-rune(rg.Lo)) % 10, true
		}
	}
	for _, rg := range unicode.Nd.R32 {
		if rune(rg.Lo) <= r && r <= rune(rg.Hi) {
			return int(r-rune(rg.Lo)) % 10, true
		}
	}
	return 0, false
}

// pyInt parses s as Python's int(s) does for a header value: surrounding
// whitespace, an optional sign, decimal digits (any script) with single
// underscores between them. Values beyond int64 saturate, which is enough to
// compare with zero and to bound a read.
func pyInt(s string) (int64, bool) {
	s = strings.TrimFunc(s, pyIsSpace)
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if s == "" {
		return 0, false
	}
	var n int64
	prevUnderscore, digits := false, 0
	for _, r := range s {
		if r == '_' {
			if prevUnderscore || digits == 0 {
				return 0, false
			}
			prevUnderscore = true
			continue
		}
		d, ok := pyDigit(r)
		if !ok {
			return 0, false
		}
		prevUnderscore = false
		digits++
		if n < math.MaxInt64/10 {
			n = n*10 + int64(d)
		} else {
			n = math.MaxInt64
		}
	}
	if prevUnderscore {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

// pyIntOfFloat is str(int(f)) for a finite f: the exact integer value.
func pyIntOfFloat(f float64) string {
	i, _ := new(big.Float).SetFloat64(f).Int(nil)
	return i.String()
}

// truncateRunes returns the first n code points of s (Python's s[:n]).
func truncateRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	count := 0
	for i := range s {
		if count == n {
			return s[:i]
		}
		count++
	}
	return s
}
