package urldb

import (
	"archive/zip"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/big"
	"os"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// Limits on what one document may expand to, so that hostile input (alias
// bombs, deep nesting) fails fast instead of exhausting memory.
const (
	maxNodes = 1 << 20
	maxDepth = 200
)

// File is a domain file given by name and content, as the browser extension
// receives them from a folder picker.
type File struct {
	Name string // file name; directories are ignored, "db/example.com.yaml" is example.com
	Data []byte
}

// LoadDir loads the database in a directory.
func LoadDir(dir string) (*Database, error) {
	return Load(os.DirFS(dir))
}

// LoadZip loads the database in a zip archive: the shallowest directory in it
// that holds .yaml files.
func LoadZip(r io.ReaderAt, size int64) (*Database, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, err
	}
	return Load(zr)
}

// Load loads the database held in fsys: the .yaml files of its root, or, when
// there are none, those of the shallowest directory that has some (a zip of a
// repository holds the database in a sub-directory).
//
// Problems in files are returned as an ErrorList together with the database,
// which holds everything that could be read.
func Load(fsys fs.FS) (*Database, error) {
	dir, err := findDBDir(fsys)
	if err != nil {
		return nil, err
	}
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	var files []File
	for _, ent := range entries {
		if ent.IsDir() || !strings.HasSuffix(ent.Name(), ".yaml") {
			continue
		}
		data, err := fs.ReadFile(fsys, path.Join(dir, ent.Name()))
		if err != nil {
			return nil, err
		}
		files = append(files, File{ent.Name(), data})
	}
	return LoadFiles(files...)
}

func findDBDir(fsys fs.FS) (string, error) {
	best, bestDepth := "", -1
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		depth := strings.Count(p, "/")
		if d.IsDir() {
			if bestDepth >= 0 && depth >= bestDepth {
				return fs.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".yaml") {
			dir := path.Dir(p)
			dd := 0
			if dir != "." {
				dd = strings.Count(dir, "/") + 1
			}
			if bestDepth < 0 || dd < bestDepth || dd == bestDepth && dir < best {
				best, bestDepth = dir, dd
			}
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if bestDepth < 0 {
		return ".", nil
	}
	return best, nil
}

// LoadFiles loads a database from domain files given by name and content.
// Files whose names do not end in ".yaml" are ignored.
func LoadFiles(files ...File) (*Database, error) {
	return (&Loader{}).LoadFiles(files...)
}

// A Loader loads databases, pausing as its caller asks.
type Loader struct {
	// Pause, when not nil, is called between two YAML documents of a domain file: a
	// caller with one thread (WebAssembly in a browser) gives its event loop a turn
	// there. An error from Pause stops the load, which returns it.
	Pause func() error
}

// LoadFiles loads a database from domain files as the package's LoadFiles does.
func (l *Loader) LoadFiles(files ...File) (*Database, error) {
	db := &Database{}
	var errs ErrorList
	seen := map[string]bool{}
	for _, f := range files {
		name := path.Base(strings.ReplaceAll(f.Name, "\\", "/"))
		if !strings.HasSuffix(name, ".yaml") {
			continue
		}
		if seen[name] {
			errs = append(errs, &Error{File: name, Err: ErrDomain, Msg: "given twice"})
			continue
		}
		seen[name] = true
		if msg := badDomainFileName(name); msg != "" {
			errs = append(errs, &Error{File: strconv.Quote(name), Err: ErrDomain, Msg: msg})
			continue
		}
		d, err := l.readDomain(name, f.Data)
		var stop *pauseError
		if errors.As(err, &stop) {
			return nil, stop.err
		}
		if el, ok := err.(ErrorList); ok {
			errs = append(errs, el...)
		} else if err != nil {
			errs = append(errs, &Error{File: name, Err: ErrSyntax, Msg: err.Error()})
			continue
		}
		db.Domains = append(db.Domains, d)
	}
	slices.SortFunc(db.Domains, func(a, b *Domain) int { return strings.Compare(a.Name, b.Name) })
	errs = append(errs, db.reindex()...)
	return db, errs.err()
}

// badDomainFileName says why a file's name cannot name a domain, or "": the domain is
// the name without ".yaml", and is written back under it, so it must be text that
// names one file in a folder: UTF-8, without control characters, not "." or "..".
func badDomainFileName(name string) string {
	domain := strings.TrimSuffix(name, ".yaml")
	switch {
	case domain == "" || domain == "." || domain == "..":
		return "the file name names no domain: want the domain's name, then .yaml"
	case !utf8.ValidString(domain):
		return "the file name is not UTF-8 text: want the domain's name, then .yaml"
	case strings.IndexFunc(domain, unicode.IsControl) >= 0:
		return "the file name holds a control character: want the domain's name, then .yaml"
	}
	return ""
}

// reindex rebuilds the map of names and cnames to domains.
func (db *Database) reindex() ErrorList {
	var errs ErrorList
	db.aliases = make(map[string]*Domain, len(db.Domains))
	for _, d := range db.Domains {
		db.aliases[strings.ToLower(d.Name)] = d
	}
	for _, d := range db.Domains {
		for _, c := range d.CNAMEs() {
			c = strings.ToLower(c)
			if other, ok := db.aliases[c]; ok && other != d {
				errs = append(errs, &Error{File: d.Name + ".yaml", Field: "cnames", Err: ErrDomain,
					Msg: fmt.Sprintf("%s is already a name of %s", c, other.Name)})
				continue
			}
			db.aliases[c] = d
		}
	}
	return errs
}

// AddDomain adds a new, empty domain to the database and returns it; it returns
// the existing one if the name is already the name of a domain.
func (db *Database) AddDomain(name string) *Domain {
	if d := db.Domain(name); d != nil {
		return d
	}
	d := &Domain{Name: name}
	i, _ := slices.BinarySearchFunc(db.Domains, name, func(a *Domain, n string) int { return strings.Compare(a.Name, n) })
	db.Domains = slices.Insert(db.Domains, i, d)
	db.reindex()
	return d
}

// ReadDomain reads one domain file. The name is the file name, "<domain>.yaml".
// Problems are returned as an ErrorList together with what could be read; the
// domain is then marked Incomplete if records or fields were lost.
func ReadDomain(name string, r io.Reader) (*Domain, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return (&Loader{}).readDomain(name, data)
}

// pauseError carries the error of a Loader's Pause out of a parse.
type pauseError struct{ err error }

func (e *pauseError) Error() string { return e.err.Error() }

func (l *Loader) readDomain(name string, data []byte) (*Domain, error) {
	p := &domainParser{file: name, d: &Domain{Name: strings.TrimSuffix(name, ".yaml")}, pause: l.Pause}
	p.parse(data)
	if p.stopped != nil {
		return nil, &pauseError{p.stopped}
	}
	p.d.compact()
	p.d.buildIndex()
	return p.d, p.errs.err()
}

type domainParser struct {
	file    string
	d       *Domain
	errs    ErrorList
	docs    int
	pause   func() error
	stopped error // what Pause returned, which ended the parse
}

func (p *domainParser) errorf(line int, field string, err error, format string, args ...any) {
	p.errs = append(p.errs, &Error{File: p.file, Line: line, Field: field, Err: err, Msg: fmt.Sprintf(format, args...)})
}

// chunk is the text of one YAML document, from its "---" line on.
type chunk struct {
	text []byte
	line int // line of the first byte of text
}

func (p *domainParser) parse(data []byte) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	chunks, ok := splitDocuments(data)
	if !ok {
		// Directives or document end markers: let the YAML parser see it all.
		chunks = []chunk{{data, 1}}
	}
	for _, c := range chunks {
		if p.pause != nil {
			if p.stopped = p.pause(); p.stopped != nil {
				return
			}
		}
		if !p.parseChunk(c) {
			p.d.Incomplete = true
			if !ok {
				break
			}
			p.docs++ // the broken document still takes its place
		}
	}
	if p.docs == 0 || p.d.Meta == nil {
		p.d.Meta = Map{}
	}
	first := make(map[string]int, len(p.d.Records))
	for _, r := range p.d.Records {
		if l, dup := first[r.Path]; dup {
			p.errorf(r.Line, "_path", ErrDuplicatePath, "%s is also the path of the record at line %d; look-ups find the first, a rewrite keeps the last (as wwturldb)", r.Path, l)
			continue
		}
		first[r.Path] = r.Line
	}
}

// splitDocuments cuts a stream at its "---" lines. A "---" at the start of a
// line always starts a document in YAML (block scalars end before it, and it is
// an error inside quotes), so the documents can be parsed one by one, which lets
// the common ones take the fast path and keeps line numbers exact. It reports
// false for streams with directives or "..." markers.
func splitDocuments(data []byte) ([]chunk, bool) {
	var chunks []chunk
	start, startLine, line := 0, 1, 1
	preamble := true // before the first "---": only blank or comment lines
	for off := 0; off < len(data); {
		end := bytes.IndexByte(data[off:], '\n')
		next := len(data)
		if end >= 0 {
			next = off + end + 1
		}
		l := bytes.TrimRight(data[off:next], "\r\n")
		if isMarker(l, "---") {
			if !preamble || off > start && hasContent(data[start:off]) {
				chunks = append(chunks, chunk{data[start:off], startLine})
			}
			start, startLine, preamble = off, line, false
		} else if isMarker(l, "...") || preamble && len(l) > 0 && l[0] == '%' {
			return nil, false
		}
		off = next
		line++
	}
	if !preamble || hasContent(data[start:]) {
		chunks = append(chunks, chunk{data[start:], startLine})
	}
	return chunks, true
}

func isMarker(l []byte, m string) bool {
	return bytes.HasPrefix(l, []byte(m)) && (len(l) == 3 || l[3] == ' ' || l[3] == '\t')
}

func hasContent(b []byte) bool {
	for _, l := range bytes.Split(b, []byte("\n")) {
		l = bytes.TrimSpace(l)
		if len(l) > 0 && l[0] != '#' {
			return true
		}
	}
	return false
}

// parseChunk parses one document (or, for a stream that could not be split,
// all of them) and adds it to the domain. It reports false after a syntax error,
// after which the YAML parser cannot go on.
func (p *domainParser) parseChunk(c chunk) bool {
	if m, lines, ok := fastDocument(c.text); ok {
		for i := range lines {
			lines[i] += c.line - 1
		}
		p.addDocument(m, true, lines, c.line)
		return true
	}
	dec := yaml.NewDecoder(bytes.NewReader(c.text))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return true
		}
		if err != nil {
			line, msg := yamlErrorLine(err)
			p.errorf(line+c.line-1, "", ErrSyntax, "%s", msg)
			return false
		}
		if !p.addNode(&n, c.line) {
			return true
		}
	}
}

var reYAMLLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): `) })

func yamlErrorLine(err error) (int, string) {
	msg := err.Error()
	if m := reYAMLLine().FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n, strings.TrimPrefix(msg, m[0])
	}
	return 1, strings.TrimPrefix(msg, "yaml: ")
}

// addNode converts a document node with PyYAML's semantics and adds it.
func (p *domainParser) addNode(n *yaml.Node, lineOff int) bool {
	docLine := n.Line + lineOff - 1
	var root *yaml.Node
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		root = n.Content[0]
	}
	conv := &converter{}
	var v any
	if root != nil {
		var err error
		v, err = conv.value(root, 0)
		if err != nil {
			kind := ErrField
			if errors.Is(err, ErrTooLarge) {
				kind = ErrTooLarge
			}
			p.errorf(conv.line+lineOff-1, "", kind, "%v", err)
			p.d.Incomplete = true
			p.docs++
			return true
		}
	}
	m, isMap := v.(Map)
	var lines []int
	if isMap {
		lines = make([]int, len(m))
		for i := range m {
			lines[i] = conv.keyLines[i] + lineOff - 1
		}
	}
	p.addDocument(v, isMap, lines, docLine)
	return true
}

// converter turns yaml.v3 nodes into the values PyYAML's safe_load gives.
type converter struct {
	nodes    int
	line     int   // line of the node in error
	keyLines []int // lines of the keys of the top-level mapping
}

func (c *converter) value(n *yaml.Node, depth int) (any, error) {
	c.nodes++
	c.line = n.Line
	if c.nodes > maxNodes || depth > maxDepth {
		return nil, ErrTooLarge
	}
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, errors.New("unknown alias")
		}
		return c.value(n.Alias, depth+1)
	case yaml.ScalarNode:
		return scalarValue(n)
	case yaml.SequenceNode:
		list := make([]any, 0, len(n.Content))
		for _, item := range n.Content {
			v, err := c.value(item, depth+1)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		return list, nil
	case yaml.MappingNode:
		m := make(Map, 0, len(n.Content)/2)
		var lines []int
		for i := 0; i+1 < len(n.Content); i += 2 {
			kn := n.Content[i]
			if kn.Kind == yaml.ScalarNode && kn.Style&yaml.TaggedStyle == 0 && kn.Value == "<<" &&
				kn.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) == 0 {
				c.line = kn.Line
				return nil, errors.New("merge keys (<<) are not supported")
			}
			k, err := c.value(kn, depth+1)
			if err != nil {
				return nil, err
			}
			switch k.(type) {
			case Map, []any:
				c.line = kn.Line
				return nil, errors.New("found unhashable key")
			}
			v, err := c.value(n.Content[i+1], depth+1)
			if err != nil {
				return nil, err
			}
			before := len(m)
			m.Set(k, v)
			if len(m) > before {
				lines = append(lines, kn.Line)
			}
		}
		if depth == 0 {
			c.keyLines = lines
		}
		return m, nil
	}
	return nil, fmt.Errorf("unexpected YAML node kind %d", n.Kind)
}

// scalarValue resolves a scalar as PyYAML does: plain scalars by the YAML 1.1
// implicit resolvers, quoted and block scalars as strings, tags explicitly.
func scalarValue(n *yaml.Node) (any, error) {
	if n.Style&yaml.TaggedStyle != 0 {
		switch n.Tag {
		case "!!str", "!":
			return n.Value, nil
		case "!!null":
			return nil, nil
		case "!!bool":
			switch strings.ToLower(n.Value) {
			case "yes", "true", "on":
				return true, nil
			case "no", "false", "off":
				return false, nil
			}
			return nil, fmt.Errorf("invalid boolean %q", n.Value)
		case "!!int":
			return constructInt(n.Value)
		case "!!float":
			return constructFloat(n.Value)
		case "!!timestamp":
			return Timestamp(n.Value), nil
		}
		return nil, fmt.Errorf("unsupported tag %s", n.Tag)
	}
	if n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return n.Value, nil
	}
	return resolvePlain(n.Value)
}

// fastDocument parses the documents wwturldb writes - "---" then lines of
// "key: plain scalar" and "key:" followed by "- plain scalar" items - without the
// general YAML parser, which is ten times slower. Anything else (quotes, flow
// collections, nesting, comments, non-ASCII, ...) reports false and goes to the
// YAML parser. It returns the line of each key, relative to the "---" line.
func fastDocument(text []byte) (Map, []int, bool) {
	nl := bytes.IndexByte(text, '\n')
	if nl < 0 || string(text[:nl]) != "---" {
		return nil, nil, false
	}
	m := make(Map, 0, 5)
	lines := make([]int, 0, 5)
	var list []any
	listKey := -1 // index in m of the key whose list is being read
	line := 1
	for off := nl + 1; off < len(text); {
		end := bytes.IndexByte(text[off:], '\n')
		if end < 0 {
			return nil, nil, false // PyYAML always ends the last line
		}
		l := text[off : off+end]
		off += end + 1
		line++
		if len(l) >= 2 && l[0] == '-' && l[1] == ' ' {
			if listKey < 0 || !plainOK(l[2:]) {
				return nil, nil, false
			}
			v, err := resolvePlain(string(l[2:]))
			if err != nil {
				return nil, nil, false
			}
			list = append(list, v)
			continue
		}
		if listKey >= 0 {
			if list != nil {
				m[listKey].Value = list
			}
			list, listKey = nil, -1
		}
		colon := bytes.IndexByte(l, ':')
		if colon <= 0 || !keyOK(l[:colon]) {
			return nil, nil, false
		}
		key, err := resolvePlain(string(l[:colon]))
		if err != nil {
			return nil, nil, false
		}
		if _, dup := m.findKey(key); dup {
			return nil, nil, false
		}
		rest := l[colon+1:]
		var value any
		if len(rest) == 0 {
			listKey = len(m) // a list may follow; else the value is null
		} else if rest[0] != ' ' || !plainOK(rest[1:]) {
			return nil, nil, false
		} else if value, err = resolvePlain(string(rest[1:])); err != nil {
			return nil, nil, false
		}
		m = append(m, KeyValue{key, value})
		lines = append(lines, line)
	}
	if listKey >= 0 && list != nil {
		m[listKey].Value = list
	}
	if len(m) == 0 {
		return nil, nil, false
	}
	return m, lines, true
}

func (m Map) findKey(k any) (int, bool) {
	for i, kv := range m {
		if keyEqual(kv.Key, k) {
			return i, true
		}
	}
	return -1, false
}

func keyOK(k []byte) bool {
	for i, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || i > 0 && (c >= '0' && c <= '9' || c == '-')) {
			return false
		}
	}
	return true
}

// plainOK reports whether s is certainly read as the plain scalar s.
func plainOK(s []byte) bool {
	if len(s) == 0 || strings.IndexByte("-?:,[]{}#&*!|>'\"%@` .~", s[0]) >= 0 || s[len(s)-1] == ' ' || s[len(s)-1] == ':' {
		return false
	}
	for i, c := range s {
		if c < 0x20 || c > 0x7e {
			return false
		}
		if c == ':' && i+1 < len(s) && s[i+1] == ' ' || c == '#' && s[i-1] == ' ' {
			return false
		}
	}
	return true
}

// addDocument adds a parsed document: the first is the metadata, the others
// records. isMap tells whether v is a mapping.
func (p *domainParser) addDocument(v any, isMap bool, keyLines []int, docLine int) {
	p.docs++
	m, _ := v.(Map)
	if p.docs == 1 {
		switch {
		case v == nil:
			p.d.Meta = Map{} // wwturldb allows an empty metadata document
		case !isMap:
			p.errorf(docLine, "", ErrField, "metadata document is not a mapping")
			p.d.Meta = Map{}
			p.d.Incomplete = true
		default:
			p.d.Meta = m
			p.checkMeta(m, keyLines)
		}
		return
	}
	if v == nil || !isMap {
		p.errorf(docLine, "", ErrField, "record document is not a mapping")
		p.d.Incomplete = true
		return
	}
	if r := p.record(m, keyLines, docLine); r != nil {
		p.d.Records = append(p.d.Records, r)
	}
}

func keyLine(m Map, lines []int, key string, def int) int {
	for i, kv := range m {
		if k, ok := kv.Key.(string); ok && k == key && i < len(lines) {
			return lines[i]
		}
	}
	return def
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case int64, *big.Int:
		return "integer"
	case float64:
		return "float"
	case string:
		return "string"
	case Timestamp:
		return "timestamp"
	case []any:
		return "list"
	case Map:
		return "mapping"
	}
	return fmt.Sprintf("%T", v)
}

func (p *domainParser) checkMeta(m Map, lines []int) {
	for _, key := range []string{"https", "case-sensitive-paths"} {
		if v, ok := m.Get(key); ok {
			if _, isBool := v.(bool); !isBool {
				p.errorf(keyLine(m, lines, key, 0), key, ErrField, "want a boolean, got %s", typeName(v))
			}
		}
	}
	if v, ok := m.Get("cnames"); ok {
		list, isList := v.([]any)
		if !isList {
			p.errorf(keyLine(m, lines, "cnames", 0), "cnames", ErrField, "want a list of domain names, got %s", typeName(v))
			return
		}
		for _, c := range list {
			if _, isStr := c.(string); !isStr {
				p.errorf(keyLine(m, lines, "cnames", 0), "cnames", ErrField, "want a domain name, got %s", typeName(c))
			}
		}
	}
}

// record interprets a record document as wwturldb's Record does.
func (p *domainParser) record(m Map, lines []int, docLine int) *Record {
	line := docLine + 1
	if len(lines) > 0 {
		line = slices.Min(lines)
	}
	r := &Record{ContentLength: -1, Line: line}
	extra := make(Map, 0, len(m))
	bad := func(key string, format string, args ...any) {
		p.errorf(keyLine(m, lines, key, line), key, ErrField, format, args...)
		p.d.Incomplete = true
	}
	var lengthV, digestV any
	var hasLength, hasDigest, hasPath, hasType bool
	for _, kv := range m {
		k, _ := kv.Key.(string)
		switch k {
		case "_path":
			s, ok := kv.Value.(string)
			if !ok {
				bad(k, "want a string, got %s", typeName(kv.Value))
				return nil
			}
			r.Path, hasPath = s, true
		case "content-type":
			s, ok := kv.Value.(string)
			if !ok {
				bad(k, "want a string, got %s", typeName(kv.Value))
				return nil
			}
			r.ContentType, hasType = s, true
		case "content-length":
			lengthV, hasLength = kv.Value, true
		case "content-sha256":
			digestV, hasDigest = kv.Value, true
		case "categories":
			list, ok := kv.Value.([]any)
			cats := make([]string, 0, len(list))
			for _, c := range list {
				s, isStr := c.(string)
				if !isStr {
					ok = false
					break
				}
				cats = append(cats, s)
			}
			if !ok {
				bad(k, "want a list of strings, got %s", typeName(kv.Value))
				extra = append(extra, kv)
				continue
			}
			slices.Sort(cats)
			r.Categories = slices.Compact(cats)
		default:
			extra = append(extra, kv)
		}
	}
	if !hasPath {
		p.errorf(line, "_path", ErrMissingField, "record has no _path")
		p.d.Incomplete = true
		return nil
	}
	if !hasType {
		p.errorf(line, "content-type", ErrMissingField, "record %s has no content-type", r.Path)
		p.d.Incomplete = true
		return nil
	}
	// As in wwturldb, content-sha256 is read only with a content-length; a null
	// content-length is no content-length.
	if hasLength && lengthV != nil {
		n, isInt := lengthV.(int64)
		digest, digestErr := parseDigest(digestV)
		switch {
		case !isInt || n < 0:
			bad("content-length", "want a non-negative integer, got %s", typeName(lengthV))
		case !hasDigest:
			p.errorf(line, "content-sha256", ErrMissingField, "record %s has a content-length but no content-sha256", r.Path)
			p.d.Incomplete = true
		case digestErr != nil:
			bad("content-sha256", "%v", digestErr)
		default:
			r.ContentLength, r.ContentSHA256 = n, digest
			hasLength, hasDigest = false, false
		}
	} else {
		hasLength = false // a null content-length is dropped, as wwturldb does
	}
	if hasLength {
		extra.Set("content-length", lengthV)
	}
	if hasDigest {
		extra.Set("content-sha256", digestV)
	}
	if len(extra) > 0 {
		r.Extra = extra
	}
	return r
}

// parseDigest reads a hex SHA-256 digest as Python's bytes.fromhex does
// (spaces between bytes allowed, either case).
func parseDigest(v any) ([]byte, error) {
	s, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("want a hex SHA-256 digest, got %s", typeName(v))
	}
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil || len(b) != 32 {
		return nil, fmt.Errorf("want 64 hex digits, got %q", s)
	}
	return b, nil
}

// buildIndex maps each record's path to the first record with it, and reports
// nothing: duplicates are reported by the parser.
func (d *Domain) buildIndex() {
	d.index = make(map[string]*Record, len(d.Records))
	for _, r := range d.Records {
		if _, ok := d.index[r.Path]; !ok {
			d.index[r.Path] = r
		}
	}
}
