package autopilot

import (
	"net/url"
	"strings"
)

// maxSrcsetURLs bounds the URLs taken from one srcset attribute.
const maxSrcsetURLs = 64

// isSpace reports whether c is an HTML space (ASCII whitespace).
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// ParseSrcset returns the URLs of the image candidates of a srcset attribute (of an
// <img> or of a <source> in a <picture>), resolved against base, in order, each once,
// as the HTML standard's parsing of a srcset attribute finds them: candidates are
// separated by commas, a URL ends at whitespace, and a URL that ends with commas
// loses them (the descriptors after a URL are skipped, parentheses included). Only
// http and https URLs are returned, at most maxSrcsetURLs; a candidate that does not
// resolve is left out.
func ParseSrcset(srcset, base string) []string {
	b, err := url.Parse(base)
	if err != nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	s := srcset
	for i := 0; i < len(s) && len(out) < maxSrcsetURLs; {
		// Skip whitespace and commas before a candidate.
		for i < len(s) && (isSpace(s[i]) || s[i] == ',') {
			i++
		}
		if i >= len(s) {
			break
		}
		start := i
		for i < len(s) && !isSpace(s[i]) {
			i++
		}
		raw := s[start:i]
		descriptors := true
		if strings.HasSuffix(raw, ",") {
			// A URL that ends with commas has no descriptors.
			raw = strings.TrimRight(raw, ",")
			descriptors = false
		}
		if descriptors {
			// Skip the descriptors, up to the comma outside parentheses.
			depth := 0
			for i < len(s) {
				c := s[i]
				i++
				if c == '(' {
					depth++
				} else if c == ')' && depth > 0 {
					depth--
				} else if c == ',' && depth == 0 {
					break
				}
			}
		}
		if raw == "" {
			continue
		}
		u, err := b.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			continue
		}
		u.Fragment, u.RawFragment = "", ""
		if v := u.String(); !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}
