package datatxt

import (
	"encoding/hex"
	"net/url"
	"strings"
)

// Allowed reports whether the agent may fetch target, by the 1996 draft.
//
// agent is the robot's name token ("figtree") or its whole User-Agent
// ("FigTree/0.1 Robot libwww-perl/5.04"), of which the first product name
// is the token. target is a path ("/a/b.html?x=1") or an absolute URL, of
// which the path and query are used.
//
// The record used is the first whose User-agent value contains the name
// token, compared case-insensitively; else the first with a "*" value; with
// neither, everything is allowed. Within it the first Allow or Disallow line
// whose path is a prefix of target decides; none allows. /robots.txt and
// /data.txt are always allowed. A YAML-form file restricts nothing.
func (f *File) Allowed(agent, target string) bool {
	p := requestPath(target)
	if p == "/robots.txt" || p == "/data.txt" || strings.HasPrefix(p, "/robots.txt?") || strings.HasPrefix(p, "/data.txt?") {
		return true
	}
	r := f.Record(agent)
	if r == nil {
		return true
	}
	return r.allowed(p)
}

// Record returns the record that applies to agent (a name token or a whole
// User-Agent, as for Allowed), or nil when none does.
func (f *File) Record(agent string) *Record {
	token := NameToken(agent)
	if token != "" {
		for i := range f.Records {
			for _, a := range f.Records[i].Agents {
				if strings.Contains(strings.ToLower(a), token) {
					return &f.Records[i]
				}
			}
		}
	}
	for i := range f.Records {
		for _, a := range f.Records[i].Agents {
			if a == "*" {
				return &f.Records[i]
			}
		}
	}
	return nil
}

// Allowed reports whether the record lets its agents fetch target (a path
// or an absolute URL): the first rule whose path matches decides, and none
// allows. Unlike File.Allowed it has no exception for /robots.txt.
func (r *Record) Allowed(target string) bool { return r.allowed(requestPath(target)) }

func (r *Record) allowed(path string) bool {
	np := normalize(path)
	for _, rule := range r.Rules {
		if rule.Path == "" {
			continue // "Disallow:" disallows nothing; an empty Allow allows nothing new
		}
		if strings.HasPrefix(np, normalize(rule.Path)) {
			return rule.Allow
		}
	}
	return true
}

// Matches reports whether the rule's path matches target's path by the
// draft: every octet is compared after %xx escapes other than %2F are
// decoded, and the match holds when the rule's path ends first.
func (r Rule) Matches(target string) bool {
	return r.Path != "" && strings.HasPrefix(normalize(requestPath(target)), normalize(r.Path))
}

// NameToken returns the robot name token of a User-Agent: its first product
// name, lower-cased ("FigTree/0.1 Robot" gives "figtree").
func NameToken(agent string) string {
	agent = strings.TrimSpace(agent)
	if i := strings.IndexAny(agent, "/ \t"); i >= 0 {
		agent = agent[:i]
	}
	return strings.ToLower(agent)
}

// requestPath returns the path and query of an absolute URL, or target itself
// when it is a path. The fragment is never sent, so it never counts.
func requestPath(target string) string {
	if i := strings.IndexByte(target, '#'); i >= 0 {
		target = target[:i]
	}
	if !strings.HasPrefix(target, "/") && strings.Contains(target, "://") {
		if u, err := url.Parse(target); err == nil {
			p := u.EscapedPath()
			if u.Opaque != "" {
				p = u.Opaque
			}
			if u.RawQuery != "" || u.ForceQuery {
				p += "?" + u.RawQuery
			}
			target = p
		}
	}
	if target == "" {
		return "/"
	}
	return target
}

// normalize decodes every %xx escape except %2F, so that two spellings of the
// same octets compare equal. Octets that could be read as an escape after
// decoding ('%' itself) are written %25, and %2F is written upper-case, so
// the result is unambiguous and prefixes of it are prefixes of the octets.
func normalize(p string) string {
	if !strings.Contains(p, "%") {
		return p
	}
	var b strings.Builder
	b.Grow(len(p))
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '%' {
			var d [1]byte
			if n, err := hex.Decode(d[:], []byte(p[i+1:min(i+3, len(p))])); n == 1 && err == nil {
				c = d[0]
				i += 2
				if c == '/' {
					b.WriteString("%2F")
					continue
				}
			}
			if c == '%' {
				b.WriteString("%25")
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}
