package cdx

// SURT keys as the python surt 0.3.1 library computes them with the options
// pywb passes (surt.surt(url): DefaultIAURLCanonicalizer, surt=True,
// with_scheme=False), on Python 3.11's urllib.

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// ErrURL is returned for a URL that surt cannot canonicalize (pywb raises
// UrlCanonicalizeException for it).
var ErrURL = errors.New("cdx: invalid URL")

// ipPatterns are surt's patterns of a host written as a decimal or an octal IPv4
// address, compiled on first use: a pattern compiled at init has every start of the
// extension's core run, and V8 compile, regexp's compiler.
var ipPatterns = sync.OnceValues(func() (decimal, octal *regexp.Regexp) {
	return regexp.MustCompile(`^([1-9][0-9]*)(\.[0-9]+)?(\.[0-9]+)?(\.[0-9]+)?$`),
		regexp.MustCompile(`^(0[0-7]*)(\.[0-7]+)?(\.[0-7]+)?(\.[0-7]+)?$`)
})

// isNumericHost reports whether host is an IPv4 address written in decimal or octal parts.
func isNumericHost(host []byte) bool {
	decimal, octal := ipPatterns()
	return decimal.Match(host) || octal.Match(host)
}

// sessionIDPatterns are surt's patterns of session ids in a path and in a query,
// compiled on first use, by the first URL that may hold such an id (iaCanonicalize):
// their repetitions make them the dearest of the package's, and most URLs need none.
var sessionIDPatterns = sync.OnceValues(func() (path, query []*regexp.Regexp) {
	path = []*regexp.Regexp{
		regexp.MustCompile(`(?is)^(.*/)(\((?:[a-z]\([0-9a-z]{24}\))+\)/)([^\?]+\.aspx.*)$`),
		regexp.MustCompile(`(?is)^(.*/)(\([0-9a-z]{24}\)/)([^\?]+\.aspx.*)$`),
	}
	query = []*regexp.Regexp{
		regexp.MustCompile(`(?is)^(.*)(?:jsessionid=[0-9a-zA-Z]{32})(?:&(.*))?$`),
		regexp.MustCompile(`(?is)^(.*)(?:phpsessid=[0-9a-zA-Z]{32})(?:&(.*))?$`),
		regexp.MustCompile(`(?is)^(.*)(?:sid=[0-9a-zA-Z]{32})(?:&(.*))?$`),
		regexp.MustCompile(`(?is)^(.*)(?:ASPSESSIONID[a-zA-Z]{8}=[a-zA-Z]{24})(?:&(.*))?$`),
		regexp.MustCompile(`(?is)^(.*)(?:cfid=[^&]+&cftoken=[^&]+)(?:&(.*))?$`),
	}
	return path, query
})

// handyURL is surt's handyurl: nil fields are Python's None.
type handyURL struct {
	scheme, host, path, query []byte
	port                      int // 0: none
}

// SURT returns the sort-friendly key of rawURL as pywb's canonicalize() does:
// surt.surt(url) of surt 0.3.1, "-" for an empty URL, a "filedesc" URL as it
// is, and a "urn:" URL as it is when surt fails on it.
func SURT(rawURL string) (string, error) {
	key, err := surt([]byte(rawURL))
	if err != nil {
		if strings.HasPrefix(rawURL, "urn:") {
			return rawURL, nil
		}
		return "", fmt.Errorf("%w: %q: %v", ErrURL, rawURL, err)
	}
	return string(key), nil
}

func surt(url []byte) ([]byte, error) {
	if len(url) == 0 {
		return []byte("-"), nil
	}
	if bytes.HasPrefix(url, []byte("filedesc")) {
		return url, nil
	}
	h, err := parseHandyURL(url)
	if err != nil {
		return nil, err
	}
	h.googleCanonicalize()
	h.iaCanonicalize()
	return h.surtBytes(), nil
}

// parseHandyURL is handyurl.parse.
func parseHandyURL(url []byte) (*handyURL, error) {
	url = bytesStrip(url)
	url = bytes.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '\t' {
			return -1
		}
		return r
	}, url)
	if len(url) > 0 && schemeLen(url) < 0 {
		url = append([]byte("http://"), url...)
	}
	// ^(https?://)+ is replaced by its last repetition.
	var last, rest []byte = nil, url
	for {
		switch {
		case bytes.HasPrefix(rest, []byte("http://")):
			last, rest = rest[:7], rest[7:]
			continue
		case bytes.HasPrefix(rest, []byte("https://")):
			last, rest = rest[:8], rest[8:]
			continue
		}
		break
	}
	if last != nil {
		url = append(append([]byte(nil), last...), rest...)
	}
	// RFC 2396 appendix B, as handyurl.urlsplit's regular expression.
	n := schemeLen(url)
	if n <= 0 {
		return nil, errors.New("no scheme")
	}
	h := &handyURL{scheme: url[:n]}
	rest = url[n+1:]
	var netloc []byte
	if bytes.HasPrefix(rest, []byte("//")) {
		rest = rest[2:]
		i := bytes.IndexAny(rest, "/?#")
		if i < 0 {
			i = len(rest)
		}
		netloc, rest = rest[:i], rest[i:]
	}
	i := bytes.IndexAny(rest, "?#")
	if i < 0 {
		i = len(rest)
	}
	path := rest[:i]
	rest = rest[i:]
	if len(rest) > 0 && rest[0] == '?' {
		rest = rest[1:]
		j := bytes.IndexByte(rest, '#')
		if j < 0 {
			j = len(rest)
		}
		if j > 0 {
			h.query = rest[:j]
		}
	}
	netloc = bytes.TrimRight(netloc, ":")
	hostname, port := splitHostPort(netloc)
	if port != nil {
		if !isASCIIDigits(port) {
			return nil, fmt.Errorf("port could not be cast to integer value as %q", port)
		}
		n, err := strconv.Atoi(string(port))
		if err != nil || n > 65535 {
			return nil, errors.New("port out of range 0-65535")
		}
		h.port = n
	}
	if len(path) > 0 {
		h.path = path
	}
	if len(hostname) > 0 {
		h.host = hostname
	} else if bytes.HasPrefix(h.scheme, []byte("http")) && h.path != nil {
		p := bytes.TrimLeft(h.path, "/")
		host, rest, _ := bytes.Cut(p, []byte("/"))
		h.host = host
		h.path = append([]byte("/"), rest...)
	}
	return h, nil
}

// schemeLen returns the length of a leading [a-zA-Z][a-zA-Z0-9+.-]* that
// is followed by ":", or -1.
func schemeLen(b []byte) int {
	if len(b) == 0 || !('a' <= b[0]|0x20 && b[0]|0x20 <= 'z') {
		return -1
	}
	for i := 1; i < len(b); i++ {
		c := b[i]
		switch {
		case 'a' <= c|0x20 && c|0x20 <= 'z', '0' <= c && c <= '9', c == '+', c == '.', c == '-':
		case c == ':':
			return i
		default:
			return -1
		}
	}
	return -1
}

func isASCIIDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}

// splitHostPort is urllib's _hostinfo and hostname for bytes: the host is
// lower-cased up to a "%" zone, the port is nil when absent or empty.
func splitHostPort(netloc []byte) (host, port []byte) {
	if i := bytes.LastIndexByte(netloc, '@'); i >= 0 {
		netloc = netloc[i+1:]
	}
	if _, bracketed, ok := bytes.Cut(netloc, []byte("[")); ok {
		var rest []byte
		host, rest, _ = bytes.Cut(bracketed, []byte("]"))
		_, port, _ = bytes.Cut(rest, []byte(":"))
	} else {
		host, port, _ = bytes.Cut(netloc, []byte(":"))
	}
	if len(port) == 0 {
		port = nil
	}
	if len(host) == 0 {
		return nil, port
	}
	h, zone, hasZone := bytes.Cut(host, []byte("%"))
	out := bytes.ToLower(h)
	if hasZone {
		out = append(append(out, '%'), zone...)
	}
	return out, port
}

// googleCanonicalize is GoogleURLCanonicalizer.canonicalize.
func (h *handyURL) googleCanonicalize() {
	if len(h.query) > 0 {
		h.query = escapeOnce(unescapeRepeatedly(h.query))
	}
	if len(h.host) > 0 {
		host := unescapeRepeatedly(h.host)
		if !isASCII(host) {
			if a, err := idnaEncode(host); err == nil {
				host = a
			}
		}
		host = bytes.Trim(bytes.ReplaceAll(host, []byte(".."), []byte(".")), ".")
		if ip := attemptIPFormats(host); ip != nil {
			host = ip
		} else {
			host = escapeOnce(bytes.ToLower(host))
		}
		h.host = host
	}
	path := unescapeRepeatedly(h.path)
	if len(h.host) > 0 {
		path = normalizePath(path)
	}
	h.path = escapeOnce(path)
}

// wwwDigitsPrefix returns the length of the ^www[0-9]*\. prefix of host, 0 if
// it has none.
func wwwDigitsPrefix(host []byte) int {
	if !bytes.HasPrefix(host, []byte("www")) {
		return 0
	}
	i := 3
	for i < len(host) && '0' <= host[i] && host[i] <= '9' {
		i++
	}
	if i < len(host) && host[i] == '.' {
		return i + 1
	}
	return 0
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// idnaEncode approximates Python's host.decode("utf-8", "ignore")
// .encode("idna") (IDNA 2003 ToASCII): each label is lower-cased, and a label
// with non-ASCII characters becomes "xn--" plus its punycode. Python's full
// nameprep (NFKC, prohibited characters, bidi rules) is not reproduced: it
// would need golang.org/x/text, which the module does not require.
func idnaEncode(host []byte) ([]byte, error) {
	s := string(appendDecodeIgnore(nil, host))
	s = strings.NewReplacer("\u3002", ".", "\uff0e", ".", "\uff61", ".").Replace(s)
	labels := strings.Split(s, ".")
	var out []byte
	for i, label := range labels {
		if i > 0 {
			out = append(out, '.')
		}
		if label == "" {
			if i == len(labels)-1 && i > 0 {
				continue
			}
			return nil, errors.New("label empty or too long")
		}
		label = strings.Map(unicode.ToLower, label)
		if isASCII([]byte(label)) {
			if len(label) > 63 {
				return nil, errors.New("label empty or too long")
			}
			out = append(out, label...)
			continue
		}
		enc := append([]byte("xn--"), punycode(label)...)
		if len(enc) > 63 {
			return nil, errors.New("label empty or too long")
		}
		out = append(out, enc...)
	}
	return out, nil
}

// punycode encodes s as RFC 3492 does.
func punycode(s string) []byte {
	const (
		base, tmin, tmax, skew, damp = 36, 1, 26, 38, 700
		initialBias, initialN        = 72, 128
	)
	digit := func(d int) byte {
		if d < 26 {
			return byte('a' + d)
		}
		return byte('0' + d - 26)
	}
	adapt := func(delta, numPoints int, first bool) int {
		if first {
			delta /= damp
		} else {
			delta /= 2
		}
		delta += delta / numPoints
		k := 0
		for delta > ((base-tmin)*tmax)/2 {
			delta /= base - tmin
			k += base
		}
		return k + (base-tmin+1)*delta/(delta+skew)
	}
	runes := []rune(s)
	var out []byte
	for _, r := range runes {
		if r < utf8.RuneSelf {
			out = append(out, byte(r))
		}
	}
	b := len(out)
	h := b
	if b > 0 {
		out = append(out, '-')
	}
	n, delta, bias := rune(initialN), 0, initialBias
	for h < len(runes) {
		m := rune(0x7fffffff)
		for _, r := range runes {
			if r >= n && r < m {
				m = r
			}
		}
		delta += int(m-n) * (h + 1)
		n = m
		for _, r := range runes {
			if r < n {
				delta++
			}
			if r == n {
				q := delta
				for k := base; ; k += base {
					t := k - bias
					if t < tmin {
						t = tmin
					} else if t > tmax {
						t = tmax
					}
					if q < t {
						break
					}
					out = append(out, digit(t+(q-t)%(base-t)))
					q = (q - t) / (base - t)
				}
				out = append(out, digit(q))
				bias = adapt(delta, h+1, h == b)
				delta = 0
				h++
			}
		}
		delta++
		n++
	}
	return out
}

// appendDecodeIgnore decodes UTF-8 dropping invalid bytes (errors="ignore").
func appendDecodeIgnore(dst, b []byte) []byte {
	for _, r := range string(b) {
		if r != '\uFFFD' {
			dst = append(dst, string(r)...)
		}
	}
	return dst
}

// normalizePath resolves "." and ".." and drops empty segments but a
// trailing slash, as GoogleURLCanonicalizer.normalizePath does.
func normalizePath(path []byte) []byte {
	if len(path) == 0 {
		return []byte("/")
	}
	if path[0] == '/' && !bytes.Contains(path, []byte("//")) && !bytes.Contains(path, []byte("/.")) {
		// No empty, "." or ".." segment: the path is already normal.
		return append([]byte(nil), path...)
	}
	var kept [][]byte
	for i, p := range bytes.Split(path, []byte("/")) {
		switch {
		case i == 0, string(p) == ".":
		case string(p) == "..":
			if len(kept) > 0 {
				kept = kept[:len(kept)-1]
			} else {
				kept = append(kept, p)
			}
		default:
			kept = append(kept, p)
		}
	}
	out := []byte("/")
	for i, p := range kept {
		if i == len(kept)-1 {
			out = append(out, p...)
		} else if len(p) > 0 {
			out = append(append(out, p...), '/')
		}
	}
	return out
}

// attemptIPFormats turns an all-digit host into a dotted quad (masked to 32
// bits) and resolves dotted numeric forms as inet_aton does; nil otherwise.
func attemptIPFormats(host []byte) []byte {
	if isASCIIDigits(host) {
		n := new(bigUint).set(host)
		return []byte(dottedQuad(n.low32()))
	}
	if len(host) > 0 && host[0] >= '0' && host[0] <= '9' && isNumericHost(host) {
		if v, ok := inetAton(string(host)); ok {
			return []byte(dottedQuad(v))
		}
	}
	return nil
}

func dottedQuad(v uint32) string {
	return fmt.Sprintf("%d.%d.%d.%d", v>>24, v>>16&255, v>>8&255, v&255)
}

// bigUint keeps the low 32 bits of a decimal number of any length.
type bigUint struct{ v uint64 }

func (b *bigUint) set(digits []byte) *bigUint {
	for _, c := range digits {
		b.v = (b.v*10 + uint64(c-'0')) & 0xffffffff
	}
	return b
}

func (b *bigUint) low32() uint32 { return uint32(b.v) }

// inetAton parses glibc's numbers-and-dots notation: 1 to 4 parts, each
// decimal, octal (leading 0) or hexadecimal (0x), the last filling the
// remaining bytes.
func inetAton(s string) (uint32, bool) {
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return 0, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		v, err := strconv.ParseUint(p, 0, 32)
		if err != nil || p == "" || strings.ContainsAny(p, "_") {
			return 0, false
		}
		vals[i] = v
	}
	var out uint64
	for i, v := range vals[:len(vals)-1] {
		if v > 255 {
			return 0, false
		}
		out |= v << (24 - 8*uint(i))
	}
	last := vals[len(vals)-1]
	if last >= 1<<(8*uint(5-len(vals))) && len(vals) > 1 {
		return 0, false
	}
	return uint32(out | last), true
}

// escapeOnce percent-encodes the bytes outside 0x21-0x7e and "#" and "%",
// as quote_from_bytes with surt's safe set does.
func escapeOnce(b []byte) []byte {
	if len(b) == 0 {
		return b
	}
	out := make([]byte, 0, len(b))
	for _, c := range b {
		if c > 0x20 && c < 0x7f && c != '#' && c != '%' {
			out = append(out, c)
		} else {
			out = append(out, '%', upperHex[c>>4], upperHex[c&15])
		}
	}
	return out
}

// unescapeRepeatedly applies unquote_to_bytes until nothing changes.
func unescapeRepeatedly(b []byte) []byte {
	if b == nil {
		return nil
	}
	if bytes.IndexByte(b, '%') < 0 {
		return b // nothing to unescape
	}
	for {
		un := unquoteToBytes(nil, string(b))
		if bytes.Equal(un, b) {
			return b
		}
		b = un
	}
}

// iaCanonicalize is IAURLCanonicalizer.canonicalize with its defaults.
func (h *handyURL) iaCanonicalize() {
	if len(h.host) > 0 {
		h.host = bytes.ToLower(h.host)
		if string(h.scheme) != "dns" {
			h.host = h.host[wwwDigitsPrefix(h.host):]
		}
	}
	switch strings.ToLower(string(h.scheme)) {
	case "http":
		if h.port == 80 {
			h.port = 0
		}
	case "https":
		if h.port == 443 {
			h.port = 0
		}
	}
	if path := h.path; len(path) > 0 {
		path = bytes.ToLower(path)
		// The patterns are compiled, and run, only for a path or query they may match
		// (compiled for every URL, they made V8 optimize regexp's compiler in the
		// extension's background while a replay's first page loaded).
		if bytes.Contains(path, []byte(".aspx")) {
			pathIDs, _ := sessionIDPatterns()
			for _, re := range pathIDs {
				if m := re.FindSubmatch(path); m != nil {
					path = append(append([]byte(nil), m[1]...), m[3]...)
				}
			}
		}
		if len(path) > 1 && path[len(path)-1] == '/' {
			path = path[:len(path)-1]
		}
		h.path = path
	}
	if len(h.query) > 0 {
		q := h.query
		lq := bytes.ToLower(q)
		if bytes.Contains(lq, []byte("sid=")) || bytes.Contains(lq, []byte("sessionid=")) || bytes.Contains(lq, []byte("aspsessionid")) || bytes.Contains(lq, []byte("cftoken=")) {
			_, queryIDs := sessionIDPatterns()
			for _, re := range queryIDs {
				if m := re.FindSubmatch(q); m != nil {
					if len(m[2]) > 0 {
						q = append(append([]byte(nil), m[1]...), m[2]...)
					} else {
						q = append([]byte(nil), m[1]...)
					}
				}
			}
		}
		q = alphaReorderQuery(bytes.ToLower(q))
		if len(q) == 0 {
			q = nil
		}
		h.query = q
	}
}

// alphaReorderQuery sorts the arguments as Python sorts (name,) and
// (name, value) tuples.
func alphaReorderQuery(q []byte) []byte {
	if len(q) <= 1 {
		return q
	}
	type arg struct {
		name, value []byte
		hasValue    bool
	}
	var args []arg
	for _, a := range bytes.Split(q, []byte("&")) {
		n, v, ok := bytes.Cut(a, []byte("="))
		args = append(args, arg{n, v, ok})
	}
	sort.SliceStable(args, func(i, j int) bool {
		if c := bytes.Compare(args[i].name, args[j].name); c != 0 {
			return c < 0
		}
		if args[i].hasValue != args[j].hasValue {
			return !args[i].hasValue
		}
		return bytes.Compare(args[i].value, args[j].value) < 0
	})
	var out []byte
	for i, a := range args {
		if i > 0 {
			out = append(out, '&')
		}
		out = append(out, a.name...)
		if a.hasValue {
			out = append(append(out, '='), a.value...)
		}
	}
	return out
}

// surtBytes is handyurl.geturl_bytes(surt=True, with_scheme=False).
func (h *handyURL) surtBytes() []byte {
	var s []byte
	if len(h.host) == 0 {
		s = append(append(s, h.scheme...), ':')
	} else {
		parts := bytes.Split(h.host, []byte("."))
		for i := len(parts) - 1; i >= 0; i-- {
			s = append(s, parts[i]...)
			if i > 0 {
				s = append(s, ',')
			}
		}
		if h.port != 0 {
			s = append(s, ':')
			s = strconv.AppendInt(s, int64(h.port), 10)
		}
		s = append(s, ')')
	}
	if len(h.path) > 0 {
		s = append(s, h.path...)
	} else if h.query != nil {
		s = append(s, '/')
	}
	if h.query != nil {
		s = append(append(s, '?'), h.query...)
	}
	return s
}
