package cdx

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// pyReprStr is Python's repr() of a str: single quotes unless the text
// contains a single quote and no double quote; backslash escapes for the
// quote, backslash, \t \n \r and every non-printable character.
func pyReprStr(s string) string {
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

// pyReprBytes is Python's repr() of bytes.
func pyReprBytes(s []byte) string {
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
