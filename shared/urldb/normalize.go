package urldb

import (
	"encoding/hex"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/webkeep/webkeep/internal/pyfmt"
)

// NormalizePath returns the database form of a URL's path and query (without
// fragment), as wwturldb computes it: the path lower-cased for a domain whose
// paths are not case-sensitive, then url-normalize 1.4's url_normalize of
// "path?query" - "utm_source=..." parameters and trailing "&", "?" and spaces
// removed, percent-encoding decoded as UTF-8 and re-encoded where needed (so
// "%7e" is "~" and " " is "%20"), dot segments and empty segments removed, query
// parameters sorted.
//
// Where wwturldb goes wrong, NormalizePath does not: an empty path is "/" (not
// ""), and a path starting with "//" keeps its host-less meaning (url_normalize
// took "//x/y" for a URL of host x). Unicode normalisation to NFC, which
// url_normalize also does, is not done.
func NormalizePath(path, query string, caseSensitive bool) string {
	if !caseSensitive {
		path = strings.ToLower(path)
	}
	pq := path
	if query != "" {
		pq += "?" + query
	}
	// generic_url_cleanup
	pq = reUTMSource().ReplaceAllString(pq, "")
	pq = strings.TrimRight(pq, "&? ")
	pq = strings.TrimFunc(pq, isPySpace)
	path, query, _ = strings.Cut(pq, "?")
	path = normalizeSegments(pyQuote(pyUnquote(path), "~:/?#[]@!$&'()*+,;="))
	if query != "" {
		params := strings.Split(query, "&")
		for i, param := range params {
			name, value, hasValue := strings.Cut(param, "=")
			param = pyQuote(pyUnquote(name), "~:/?#[]@!$'()*+,;=")
			if hasValue {
				param += "=" + pyQuote(pyUnquote(value), "~:/?#[]@!$'()*+,;=")
			}
			params[i] = param
		}
		slices.Sort(params)
		query = strings.Join(params, "&")
	}
	if query != "" {
		return path + "?" + query
	}
	return path
}

var reUTMSource = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`utm_source=[^&]+&?`) })

// isPySpace is Python's str.isspace, which str.strip uses.
func isPySpace(r rune) bool {
	return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f
}

// normalizeSegments is url-normalize's normalize_path for a path: dot segments
// resolved, empty segments dropped, a trailing slash kept.
func normalizeSegments(path string) string {
	parts := strings.Split(path, "/")
	out := make([]string, 0, len(parts))
	for _, part := range parts {
		switch part {
		case "":
			if len(out) == 0 {
				out = append(out, part)
			}
		case ".":
		case "..":
			if len(out) > 1 {
				out = out[:len(out)-1]
			}
		default:
			out = append(out, part)
		}
	}
	if last := parts[len(parts)-1]; last == "" || last == "." || last == ".." {
		out = append(out, "")
	}
	path = strings.Join(out, "/")
	if path == "" {
		return "/"
	}
	if path[0] != '/' {
		path = "/" + path
	}
	return path
}

// pyUnquote is Python's urllib.parse.unquote: %XX escapes in runs of ASCII
// decoded to bytes, the bytes decoded as UTF-8 with U+FFFD for each invalid
// sequence.
func pyUnquote(s string) string {
	if !strings.Contains(s, "%") {
		if !utf8.ValidString(s) { // a Python str cannot hold invalid UTF-8
			return pyfmt.DecodeUTF8([]byte(s))
		}
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] >= 0x80 {
			j := i
			for j < len(s) && s[j] >= 0x80 {
				j++
			}
			b.WriteString(pyfmt.DecodeUTF8([]byte(s[i:j])))
			i = j
			continue
		}
		j := i
		var raw []byte
		for j < len(s) && s[j] < 0x80 {
			if s[j] == '%' {
				var d [1]byte
				if n, err := hex.Decode(d[:], []byte(s[j+1:min(j+3, len(s))])); n == 1 && err == nil {
					raw = append(raw, d[0])
					j += 3
					continue
				}
			}
			raw = append(raw, s[j])
			j++
		}
		b.WriteString(pyfmt.DecodeUTF8(raw))
		i = j
	}
	return b.String()
}

// pyQuote is Python's urllib.parse.quote of the UTF-8 bytes of s: everything
// but ASCII letters, digits, "_.-~" and the safe characters as %XX.
func pyQuote(s, safe string) string {
	const upper = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '_' || c == '.' || c == '-' || c == '~' || c < 0x80 && strings.IndexByte(safe, c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(upper[c>>4])
		b.WriteByte(upper[c&15])
	}
	return b.String()
}
