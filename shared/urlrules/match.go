package urlrules

import (
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/webkeep/webkeep/internal/publicsuffix"
	"golang.org/x/net/idna"
)

// hostNames maps a host to the form the rules see, as a browser maps what is typed
// in its address bar (UTS #46, nontransitional): case and width folded, "xn--"
// labels decoded, so that the ASCII and the Unicode spelling of a host match alike
// and a rule may name a sub-domain in Unicode. A Match writes hosts back in ASCII.
// Underscores are allowed, as in real host names.
var hostNames = idna.New(idna.MapForLookup(), idna.Transitional(false), idna.StrictDomainName(false))

// Match is what the rules make of one URL.
type Match struct {
	// URL is the URL as given.
	URL string `json:"url"`
	// Domain is the registered domain: one label more than the public
	// suffix ("example.co.uk"), or the host itself for an IP address or a
	// host that is a public suffix.
	Domain string `json:"domain"`
	// Website is the key of the website: the website and group parts of
	// the sub-domains and the domain, then a non-default port, then the
	// website and group parts of the path and of the query
	// ("test.www.example.org", "staff.example.net/snap").
	Website string `json:"website"`
	// Options maps each flag() variable's name (its last part, without
	// namespaces) to its value or its default.
	Options map[string]string `json:"options"`
	// Canonical is the URL canonicalization: options dropped except those
	// in the canonalize namespace, which are written at their position,
	// website parts replaced by their canonical string, and the protocol
	// http unless the website rule allows only HTTPS.
	Canonical string `json:"canonical"`
}

// slot is a variable of the matched rules and what it matched.
type slot struct {
	v       *variable
	value   string // decoded, without the trailing separator
	matched bool   // the URL had the variable
}

// Match applies the rules to rawURL. A URL without a scheme is read as
// http. The first domain rule that matches the sub-domains decides them (a
// script without domain rules keeps the host as it is), then the first
// website rule whose protocol, port, path and query match (a script without
// website rules keeps the path and query as they are). It returns ErrURL,
// ErrNoDomainRule or ErrNoWebsiteRule, wrapped with the URL.
func (rs *Rules) Match(rawURL string) (*Match, error) {
	u, err := parseURL(rawURL)
	if err != nil {
		return nil, err
	}
	host := u.Hostname()
	domain, sub := registeredDomain(host)
	m := &Match{URL: rawURL, Domain: domain, Options: make(map[string]string)}

	var hostSlots []slot
	if len(rs.Domain) > 0 {
		subject := sub
		if subject != "" {
			subject += "."
		}
		for _, r := range rs.Domain {
			if hostSlots = r.matchSeparated(subject, '.'); hostSlots != nil {
				break
			}
		}
		if hostSlots == nil {
			return nil, fmt.Errorf("%w: %s: sub-domains %q", ErrNoDomainRule, rawURL, sub)
		}
	}

	scheme := u.Scheme
	port := u.Port()
	defaultPort := map[string]string{"http": "80", "https": "443"}[scheme]
	if port == "" {
		port = defaultPort
	}
	var (
		rule      *Rule
		pathSlots []slot
		rest      string
		params    []param
		querySlot []slot
		consumed  []bool
	)
	path := u.EscapedPath()
	if len(rs.Website) > 0 {
		params = splitQuery(u.RawQuery)
		consumed = make([]bool, len(params))
		// The path may come in the q parameter, as in Drupal without
		// clean URLs.
		if path == "" || path == "/" {
			for i, p := range params {
				if p.name == "q" {
					path = "/" + escapePath(strings.TrimPrefix(p.value, "/"))
					consumed[i] = true
					break
				}
			}
		}
		subject, added := strings.TrimPrefix(path, "/"), false
		if subject != "" && !strings.HasSuffix(subject, "/") {
			subject, added = subject+"/", true
		}
		for _, r := range rs.Website {
			if !r.protocolMatches(scheme) || r.port != nil && !r.port.MatchString(port) {
				continue
			}
			ps, remainder := r.matchPath(subject)
			if ps == nil {
				continue
			}
			qs, used := r.matchQuery(params, consumed)
			if qs == nil {
				continue
			}
			rule, pathSlots, querySlot = r, ps, qs
			rest = remainder
			if added && rest != "" {
				rest = strings.TrimSuffix(rest, "/")
			}
			for i := range used {
				consumed[i] = consumed[i] || used[i]
			}
			break
		}
		if rule == nil {
			return nil, fmt.Errorf("%w: %s", ErrNoWebsiteRule, rawURL)
		}
	}

	all := append(append(append([]slot(nil), hostSlots...), pathSlots...), querySlot...)
	resolveOptions(all, m.Options)

	// The website key and the canonical URL, part by part.
	var web, canon strings.Builder
	hostKey, hostCanon := host, host
	if strings.Contains(host, ":") {
		hostKey, hostCanon = "["+host+"]", "["+host+"]"
	}
	if len(rs.Domain) > 0 {
		hostKey = joinParts(hostSlots, m.Options, false, ".", domain)
		hostCanon = joinParts(hostSlots, m.Options, true, ".", domain)
	}
	m.Domain, hostKey, hostCanon = asciiHost(m.Domain), asciiHost(hostKey), asciiHost(hostCanon)
	web.WriteString(hostKey)
	canonScheme := scheme
	if scheme == "http" || scheme == "https" {
		canonScheme = "http"
		if rule != nil && len(rule.protocols) > 0 && !contains(rule.protocols, "HTTP") && contains(rule.protocols, "HTTPS") {
			canonScheme = "https"
		}
	}
	canon.WriteString(canonScheme + "://" + hostCanon)
	if port != defaultPort {
		web.WriteString(":" + port)
		canon.WriteString(":" + port)
	}
	if rule == nil {
		if path == "" {
			path = "/"
		}
		canon.WriteString(path)
		if u.RawQuery != "" {
			canon.WriteString("?" + u.RawQuery)
		}
		m.Website, m.Canonical = web.String(), canon.String()
		return m, nil
	}
	if key := joinPath(pathSlots, m.Options, false); key != "" {
		web.WriteString("/" + strings.TrimSuffix(key, "/"))
	}
	canon.WriteString("/" + joinPath(pathSlots, m.Options, true) + rest)
	var keyQuery, canonQuery []string
	for _, s := range querySlot {
		if v, ok := partValue(s, m.Options, false); ok {
			keyQuery = append(keyQuery, url.QueryEscape(s.v.name)+"="+url.QueryEscape(v))
		}
		if v, ok := partValue(s, m.Options, true); ok {
			canonQuery = append(canonQuery, url.QueryEscape(s.v.name)+"="+url.QueryEscape(v))
		}
	}
	for i, p := range params {
		if !consumed[i] {
			canonQuery = append(canonQuery, p.raw)
		}
	}
	if len(keyQuery) > 0 {
		web.WriteString("?" + strings.Join(keyQuery, "&"))
	}
	if len(canonQuery) > 0 {
		canon.WriteString("?" + strings.Join(canonQuery, "&"))
	}
	m.Website, m.Canonical = web.String(), canon.String()
	return m, nil
}

// asciiHost is the ASCII form of a host name the rules saw in Unicode: "xn--" labels
// for the others, as the host is sent on the wire and as CDX keys and URL databases
// name it. A name that has no such form is returned as it is.
func asciiHost(name string) string {
	if a, err := hostNames.ToASCII(name); err == nil && a != "" {
		return a
	}
	return name
}

// Host returns the host of rawURL as the rules see it (lower case, in Unicode, see
// Match) and its registered domain. A URL without a scheme is read as http.
func Host(rawURL string) (host, domain string, err error) {
	u, err := parseURL(rawURL)
	if err != nil {
		return "", "", err
	}
	host = u.Hostname()
	domain, _ = registeredDomain(host)
	return host, domain, nil
}

// parseURL parses rawURL and normalizes its scheme and host: lower case, no trailing
// dot, a host name in Unicode (see hostNames). A host that is not a valid
// internationalized name is kept as it is, in lower case.
func parseURL(rawURL string) (*url.URL, error) {
	s := rawURL
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %v", ErrURL, rawURL, err)
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "" || strings.ContainsAny(host, "[]") {
		return nil, fmt.Errorf("%w: %q: no valid host", ErrURL, rawURL)
	}
	if net.ParseIP(host) == nil {
		if name, err := hostNames.ToUnicode(host); err == nil && name != "" {
			host = name
		}
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if p := u.Port(); p != "" {
		host = net.JoinHostPort(host, p)
	} else if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	u.Host = host
	return u, nil
}

// registeredDomain splits host into its registered domain, from the Public
// Suffix List, and the sub-domains before it. The list is looked up in ASCII; the
// parts are host's own labels.
func registeredDomain(host string) (domain, sub string) {
	host = strings.Trim(host, "[]")
	if net.ParseIP(host) != nil {
		return host, ""
	}
	ascii, err := hostNames.ToASCII(host)
	if err != nil {
		ascii = host
	}
	d, err := publicsuffix.EffectiveTLDPlusOne(ascii)
	if err != nil {
		return host, ""
	}
	labels := strings.Split(host, ".")
	n := strings.Count(d, ".") + 1
	if len(labels) != strings.Count(ascii, ".")+1 || n > len(labels) {
		return host, ""
	}
	return strings.Join(labels[len(labels)-n:], "."), strings.Join(labels[:len(labels)-n], ".")
}

// matchSeparated matches the sub-domains, each followed by a dot, against a
// domain rule; nil means no match.
func (r *Rule) matchSeparated(subject string, sep byte) []slot {
	idx := r.re.FindStringSubmatchIndex(subject)
	if idx == nil {
		return nil
	}
	return r.slots(subject, idx, sep)
}

// matchPath matches the path, without its leading slash and with a trailing
// one, against a website rule's path variables; it returns the slots and the
// rest of the path, or nil.
func (r *Rule) matchPath(subject string) ([]slot, string) {
	idx := r.re.FindStringSubmatchIndex(subject)
	if idx == nil {
		return nil, ""
	}
	restGroup := r.re.NumSubexp()
	rest := subject[idx[2*restGroup]:idx[2*restGroup+1]]
	s := r.slots(subject, idx, '/')
	if s == nil {
		s = []slot{}
	}
	return s, rest
}

func (r *Rule) slots(subject string, idx []int, sep byte) []slot {
	out := make([]slot, 0, len(r.vars))
	for _, v := range r.vars {
		g := v.group
		if v.inner && idx[2*(g+1)] >= 0 {
			g++
		}
		s := slot{v: v, matched: idx[2*v.group+1] > idx[2*v.group]}
		if s.matched {
			s.value = strings.TrimSuffix(subject[idx[2*g]:idx[2*g+1]], string(sep))
			if sep == '/' {
				if dec, err := url.PathUnescape(s.value); err == nil {
					s.value = dec
				}
			}
		}
		out = append(out, s)
	}
	return out
}

func (r *Rule) protocolMatches(scheme string) bool {
	return r.protocols == nil || contains(r.protocols, strings.ToUpper(scheme))
}

type param struct {
	raw, name, value string
}

func splitQuery(q string) []param {
	var out []param
	for _, raw := range strings.Split(q, "&") {
		if raw == "" {
			continue
		}
		name, value, _ := strings.Cut(raw, "=")
		if n, err := url.QueryUnescape(name); err == nil {
			name = n
		}
		if v, err := url.QueryUnescape(value); err == nil {
			value = v
		}
		out = append(out, param{raw: raw, name: name, value: value})
	}
	return out
}

// matchQuery matches a website rule's query variables against the first
// parameter of their name. A parameter whose value does not match, or a
// missing required one, fails the rule. It returns the slots (nil for no
// match) and which parameters they used.
func (r *Rule) matchQuery(params []param, taken []bool) ([]slot, []bool) {
	out := make([]slot, 0, len(r.query))
	used := make([]bool, len(params))
	for _, v := range r.query {
		s := slot{v: v}
		for i, p := range params {
			if p.name != v.name || taken[i] || used[i] {
				continue
			}
			idx := v.re.FindStringSubmatchIndex(p.value)
			if idx == nil {
				return nil, nil
			}
			g := 0
			if v.inner && idx[2] >= 0 {
				g = 1
			}
			s.value, s.matched, used[i] = p.value[idx[2*g]:idx[2*g+1]], true, true
			break
		}
		if v.required && !s.matched {
			return nil, nil
		}
		out = append(out, s)
	}
	return out, used
}

// resolveOptions sets each flag's value. A variable can appear in several
// parts of the URL: the occurrence in the canonalize namespace wins when the
// URL has it, else the first the URL has; with none, the default of the
// canonalize occurrence, else of the first.
func resolveOptions(slots []slot, options map[string]string) {
	rank := make(map[string]int)
	for _, s := range slots {
		if s.v.fn != fnFlag {
			continue
		}
		r, value := 1, s.v.def
		if s.matched {
			r, value = 3, s.value
		}
		if s.v.official {
			r++
		}
		if old, ok := rank[s.v.name]; !ok || r > old {
			rank[s.v.name], options[s.v.name] = r, value
		}
	}
}

// partValue returns what a variable contributes to the website key
// (canonical false) or the canonical URL (canonical true).
func partValue(s slot, options map[string]string, canonical bool) (string, bool) {
	var v string
	switch s.v.fn {
	case fnWebsite:
		v = strings.TrimSuffix(strings.TrimSuffix(s.v.canonical, "."), "/")
	case fnGroup:
		v = s.value
	case fnFlag:
		if !canonical || !s.v.official {
			return "", false
		}
		v = options[s.v.name]
	}
	return v, v != ""
}

func joinParts(slots []slot, options map[string]string, canonical bool, sep, domain string) string {
	var parts []string
	for _, s := range slots {
		if v, ok := partValue(s, options, canonical); ok {
			parts = append(parts, v)
		}
	}
	return strings.Join(append(parts, domain), sep)
}

// joinPath returns the path parts, each followed by a slash.
func joinPath(slots []slot, options map[string]string, canonical bool) string {
	var b strings.Builder
	for _, s := range slots {
		if v, ok := partValue(s, options, canonical); ok {
			b.WriteString(escapePath(v) + "/")
		}
	}
	return b.String()
}

// escapePath escapes a decoded path for a URL, keeping its slashes.
func escapePath(p string) string {
	return strings.ReplaceAll(url.PathEscape(p), "%2F", "/")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
