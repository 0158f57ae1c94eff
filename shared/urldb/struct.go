// Package urldb reads, writes, looks up and checks URL databases in the format of
// the WorldWide Telescope URL database tool, wwturldb (url-database-format.txt).
//
// A database is a set of domain files, one per domain, named after the domain
// (example.com.yaml). Each file is a stream of YAML documents: the first holds the
// domain's metadata (case-sensitive-paths, cnames, https), every other one a record
// (_path, content-type, and optionally categories, content-length and
// content-sha256). Keys the package does not interpret are kept and written back.
//
// Files are written as wwturldb writes them with PyYAML, byte for byte: keys sorted,
// records sorted by _path, block style with unindented lists, through a temporary
// file and an atomic rename.
//
// The check engine, [CheckResponse], is independent of how a response was obtained:
// it needs only the status, the headers and, for static records, the length and
// SHA-256 digest of the body. [Fetch] and [Checker] obtain responses over HTTP.
package urldb

import (
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
)

// Errors reported by the package, usable with errors.Is. Load and parse errors are
// wrapped in an *Error that names the file, line and field.
var (
	ErrSyntax        = errors.New("YAML syntax error")
	ErrField         = errors.New("invalid field")
	ErrMissingField  = errors.New("missing field")
	ErrDuplicatePath = errors.New("duplicate _path")
	ErrDomain        = errors.New("illegal domain name")
	ErrIncomplete    = errors.New("domain file was not read completely; refusing to rewrite it")
	ErrTooLarge      = errors.New("document too large or too deeply nested")
)

// Error is one problem found in a database: the file and line where it is, the
// field concerned (if any), and what is wrong.
type Error struct {
	File  string // file name, e.g. "example.com.yaml"
	Line  int    // 1-based line, 0 when unknown
	Field string // the key concerned, e.g. "content-length"; empty for the file or document
	Err   error  // one of the package's errors, e.g. ErrField
	Msg   string // what is wrong, in words
}

// Error renders the problem as file:line: field: message.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	if e.Msg != "" {
		b.WriteString(e.Msg)
	} else {
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the package error the problem is an instance of.
func (e *Error) Unwrap() error { return e.Err }

// ErrorList is the list of problems found while loading; the rest of the database
// loads regardless.
type ErrorList []*Error

// Error renders the first problem and how many more there are.
func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	return fmt.Sprintf("%s (and %d more errors)", l[0], len(l)-1)
}

// Unwrap returns the individual errors, so that errors.Is and errors.As see them.
func (l ErrorList) Unwrap() []error {
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errs
}

// err returns the list as an error, nil when empty.
func (l ErrorList) err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// A Database is a set of domains, each with its records.
type Database struct {
	// Domains, sorted by name.
	Domains []*Domain

	aliases map[string]*Domain // primary names and cnames
}

// A Domain is one domain file: the metadata document and the records.
type Domain struct {
	// Name is the primary domain, the file name without ".yaml".
	Name string
	// Meta is the metadata document as read, unknown keys included. The known
	// keys are read by HTTPS, CaseSensitivePaths and CNAMEs.
	Meta Map
	// Records in file order; Write sorts them by Path.
	Records []*Record
	// Incomplete is set when part of the file could not be read: writing the
	// domain back would lose data, so WriteFile refuses to.
	Incomplete bool

	index map[string]*Record
}

// A Record is one URL of a domain.
type Record struct {
	// Path is the URL path, with query if any, as wwturldb normalises it.
	Path string
	// ContentType is the expected Content-Type without parameters, or the
	// pseudo-type X-<code>-Redirect for a redirect.
	ContentType string
	// Categories, sorted and without duplicates.
	Categories []string
	// ContentLength is the expected length of the body of a static record; -1
	// when the record does not declare static content.
	ContentLength int64
	// ContentSHA256 is the expected SHA-256 digest of a static record's body.
	ContentSHA256 []byte
	// Extra holds the keys the package does not interpret, written back as they are.
	Extra Map
	// Line is the line of the record in its file, 0 for a record not read from one.
	Line int
}

// Categories with a meaning for the check, as wwturldb gives them.
const (
	CategoryDeprecated          = "deprecated"             // not checked
	CategoryRedirectOK          = "redirect-ok"            // may now redirect anywhere
	CategoryContentTypeChangeOK = "content-type-change-ok" // content type not compared
)

// Has reports whether the record is in the category.
func (r *Record) Has(category string) bool {
	_, found := slices.BinarySearch(r.Categories, category)
	return found
}

// Static reports whether the record declares its content's length and digest.
func (r *Record) Static() bool { return r.ContentLength >= 0 }

// AddCategory adds a category, keeping the list sorted and unique.
func (r *Record) AddCategory(category string) {
	i, found := slices.BinarySearch(r.Categories, category)
	if !found {
		r.Categories = slices.Insert(r.Categories, i, category)
	}
}

// HTTPS reports the domain's https key (default false): it is checked over https.
func (d *Domain) HTTPS() bool { return metaBool(d.Meta, "https", false) }

// CaseSensitivePaths reports the case-sensitive-paths key (default true).
func (d *Domain) CaseSensitivePaths() bool { return metaBool(d.Meta, "case-sensitive-paths", true) }

// CNAMEs returns the aliases of the domain, from the cnames key.
func (d *Domain) CNAMEs() []string {
	v, _ := d.Meta.Get("cnames")
	list, _ := v.([]any)
	var names []string
	for _, x := range list {
		if s, ok := x.(string); ok {
			names = append(names, s)
		}
	}
	return names
}

func metaBool(m Map, key string, def bool) bool {
	v, ok := m.Get(key)
	if !ok {
		return def
	}
	b, ok := v.(bool)
	if !ok {
		return def
	}
	return b
}

// Map is a YAML mapping, keys in document order. Its values are nil, bool,
// int64, *big.Int, float64, string, Timestamp, []any or Map, as PyYAML's safe
// loader reads them (YAML 1.1: yes/no are booleans, 010 is octal, ...).
type Map []KeyValue

// KeyValue is one entry of a Map.
type KeyValue struct {
	Key   any
	Value any
}

// Timestamp is a YAML timestamp, kept as written.
type Timestamp string

// Get returns the value of a string key.
func (m Map) Get(key string) (any, bool) {
	for _, kv := range m {
		if k, ok := kv.Key.(string); ok && k == key {
			return kv.Value, true
		}
	}
	return nil, false
}

// Set sets the value of a key, in place when the key is present (as a Python
// dict does), else at the end.
func (m *Map) Set(key, value any) {
	for i, kv := range *m {
		if keyEqual(kv.Key, key) {
			(*m)[i].Value = value
			return
		}
	}
	*m = append(*m, KeyValue{key, value})
}

// Delete removes a string key.
func (m *Map) Delete(key string) {
	*m = slices.DeleteFunc(*m, func(kv KeyValue) bool {
		k, ok := kv.Key.(string)
		return ok && k == key
	})
}

func keyEqual(a, b any) bool {
	switch a := a.(type) {
	case *big.Int:
		b, ok := b.(*big.Int)
		return ok && a.Cmp(b) == 0
	case Map, []any:
		return false
	}
	switch b.(type) {
	case Map, []any, *big.Int:
		return false
	}
	return a == b
}
