package urldb

import (
	"fmt"
	"slices"
	"strings"

	"github.com/webkeep/webkeep/internal/pyfmt"
)

// Domain returns the domain whose primary name or cname is name (any case), or nil.
func (db *Database) Domain(name string) *Domain {
	return db.aliases[strings.ToLower(strings.TrimSuffix(name, "."))]
}

// Normalize returns the domain of a URL and its path in database form, as
// wwturldb's Database.normalize does: the URL's host (any case, default port
// or not) must be a domain or one of its cnames; the fragment is dropped.
func (db *Database) Normalize(rawURL string) (*Domain, string, error) {
	_, netloc, path, query := splitURL(rawURL)
	d := db.Domain(netloc)
	if d == nil {
		host := netloc
		if i := strings.LastIndexByte(host, '@'); i >= 0 {
			host = host[i+1:]
		}
		if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.Contains(host[i:], "]") {
			host = host[:i]
		}
		d = db.Domain(host)
	}
	if d == nil {
		return nil, "", fmt.Errorf("%w %s for URL %s", ErrDomain, pyfmt.Repr(netloc), pyfmt.Repr(rawURL))
	}
	return d, NormalizePath(path, query, d.CaseSensitivePaths()), nil
}

// Lookup returns the domain and the record of a URL, over http or https and
// through any cname. ok is false when the URL is not in the database; the
// domain is nil when its host is not either.
func (db *Database) Lookup(rawURL string) (d *Domain, r *Record, ok bool) {
	d, path, err := db.Normalize(rawURL)
	if err != nil {
		return nil, nil, false
	}
	r = d.Record(path)
	return d, r, r != nil
}

// Record returns the record with exactly this path, or nil.
func (d *Domain) Record(path string) *Record {
	if d.index == nil {
		d.buildIndex()
	}
	return d.index[path]
}

// Insert adds a record, replacing the one with the same path if there is one,
// else at its place in path order.
func (d *Domain) Insert(r *Record) {
	if d.index == nil {
		d.buildIndex()
	}
	if old := d.index[r.Path]; old != nil {
		for i, x := range d.Records {
			if x.Path == r.Path {
				d.Records[i] = r
			}
		}
	} else {
		i := len(d.Records)
		for i > 0 && d.Records[i-1].Path > r.Path {
			i--
		}
		d.Records = slices.Insert(d.Records, i, r)
	}
	d.index[r.Path] = r
}

// URL returns the URL wwturldb checks for a record: over https if the domain
// has https, on the primary name.
func (d *Domain) URL(r *Record) string {
	scheme := "http"
	if d.HTTPS() {
		scheme = "https"
	}
	return JoinURL(scheme, d.Name, r.Path)
}

// JoinURL joins a scheme, a host and a record path (with its query) into a URL,
// as Python's urlunsplit does.
func JoinURL(scheme, host, path string) string {
	if path != "" && path[0] != '/' {
		path = "/" + path
	}
	return scheme + "://" + host + path
}

// Entry is a record with its domain.
type Entry struct {
	Domain *Domain
	Record *Record
}

// Filter selects records as wwturldb's filters do.
type Filter struct {
	Category   string // only records in this category
	Domain     string // only this domain (primary name or cname)
	PathPrefix string // only paths starting with this
}

// Select returns the records that pass the filter, in database order (domains
// by name, records in file order), leaving out the deprecated ones, as wwturldb's
// get_records does. It fails with ErrDomain if the filter names an unknown domain.
func (db *Database) Select(f Filter) ([]Entry, error) {
	domains := db.Domains
	if f.Domain != "" {
		d := db.Domain(f.Domain)
		if d == nil {
			return nil, fmt.Errorf("%w %s", ErrDomain, pyfmt.Repr(f.Domain))
		}
		domains = []*Domain{d}
	}
	var out []Entry
	for _, d := range domains {
		for _, r := range d.Records {
			if f.Category != "" && !r.Has(f.Category) ||
				!strings.HasPrefix(r.Path, f.PathPrefix) || r.Has(CategoryDeprecated) {
				continue
			}
			out = append(out, Entry{d, r})
		}
	}
	return out, nil
}

// splitURL splits a URL as Python's urllib.parse.urlsplit does (leading
// control characters and spaces dropped, tabs and line breaks removed, scheme
// lower-cased) and drops the fragment.
func splitURL(s string) (scheme, netloc, path, query string) {
	s = strings.TrimLeftFunc(s, func(r rune) bool { return r <= ' ' })
	s = strings.NewReplacer("\t", "", "\r", "", "\n", "").Replace(s)
	if i := strings.IndexByte(s, ':'); i > 0 && isASCIILetter(s[0]) {
		valid := true
		for j := 0; j < i; j++ {
			c := s[j]
			if !(isASCIILetter(c) || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
				valid = false
				break
			}
		}
		if valid {
			scheme, s = strings.ToLower(s[:i]), s[i+1:]
		}
	}
	if strings.HasPrefix(s, "//") {
		s = s[2:]
		end := strings.IndexAny(s, "/?#")
		if end < 0 {
			end = len(s)
		}
		netloc, s = s[:end], s[end:]
	}
	s, _, _ = strings.Cut(s, "#")
	path, query, _ = strings.Cut(s, "?")
	return scheme, netloc, path, query
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
