// Package datatxt reads a site's /data.txt and /robots.txt and decides what an
// agent may fetch.
//
// Two forms exist. The specification (an Internet-Draft that is the 1996
// robots exclusion draft with the path changed to /data.txt) describes
// records of User-agent, Allow and Disallow lines; access is decided exactly
// as that draft says. The data.txt files sites really publish (datatxt.org,
// the pins package for R) are instead YAML: a sequence of entries with a path
// and optional name, description, license, type and more. Parse reads both
// and tells them apart.
package datatxt

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"gopkg.in/yaml.v3"
)

// MaxSize is how many bytes of a file Parse reads. The draft asks robots to
// limit what they spend on a file they do not control; the rest is ignored
// and File.Truncated is set.
const MaxSize = 512 << 10

var (
	// ErrFormat reports a YAML-form file that is not a sequence of entries.
	// The robots form has no malformed files: lines that are not fields are
	// skipped, as the draft asks robots to be liberal.
	ErrFormat = errors.New("datatxt: malformed file")
	// ErrNotFound reports a file the server says does not exist (HTTP 404 or
	// 410): the site sets no restrictions and declares no datasets.
	ErrNotFound = errors.New("datatxt: file not found")
	// ErrStatus reports any other unsuccessful HTTP status.
	ErrStatus = errors.New("datatxt: unexpected HTTP status")
)

// Parse reads a data.txt or robots.txt from r, at most MaxSize bytes, and
// detects its form: a file whose first line that is neither blank nor a
// comment starts a YAML sequence ("- ", "[" or "---") is YAML, any other is
// the robots form. Lines may end in CR, LF or CRLF. The returned error is a
// read error, or ErrFormat (wrapped with the line) for bad YAML.
func Parse(r io.Reader) (*File, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("datatxt: read: %w", err)
	}
	f := new(File)
	if len(data) > MaxSize {
		// Drop the cut line too: a cut Allow path would allow more than
		// the site said.
		data = data[:MaxSize]
		if i := bytes.LastIndexAny(data, "\r\n"); i >= 0 {
			data = data[:i+1]
		} else {
			data = nil
		}
		f.Truncated = true
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if isYAML(data) {
		f.Format = YAML
		if err := f.parseYAML(data); err != nil {
			return nil, err
		}
		return f, nil
	}
	f.parseRobots(data)
	return f, nil
}

// lines calls fn with each line of data and its 1-based number; a line ends
// at CR, LF or CRLF.
func lines(data []byte, fn func(line []byte, n int) bool) {
	for n := 1; len(data) > 0; n++ {
		i := bytes.IndexAny(data, "\r\n")
		if i < 0 {
			fn(data, n)
			return
		}
		line := data[:i]
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		data = data[i+1:]
		if !fn(line, n) {
			return
		}
	}
}

func isYAML(data []byte) bool {
	yes := false
	lines(data, func(line []byte, _ int) bool {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' {
			return true
		}
		yes = bytes.HasPrefix(line, []byte("---")) || line[0] == '[' ||
			line[0] == '-' && (len(line) == 1 || line[1] == ' ' || line[1] == '\t')
		return false
	})
	return yes
}

// parseRobots reads the robots form. A record starts at a User-agent line
// that follows the start of the file or any other field line; blank lines are
// not needed between records (nor do they end one), which reads the files
// people write the way they meant them.
func (f *File) parseRobots(data []byte) {
	cur := -1           // index of the record being read
	agentsDone := false // the current record has had a line other than User-agent
	lines(data, func(line []byte, n int) bool {
		if i := bytes.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		name, value, ok := strings.Cut(string(line), ":")
		if !ok {
			return true
		}
		name = strings.Trim(name, " \t")
		value = strings.Trim(value, " \t")
		switch strings.ToLower(name) {
		case "user-agent":
			if cur < 0 || agentsDone {
				f.Records = append(f.Records, Record{Line: n})
				cur, agentsDone = len(f.Records)-1, false
			}
			f.Records[cur].Agents = append(f.Records[cur].Agents, value)
		case "allow", "disallow":
			if cur < 0 {
				f.Fields = append(f.Fields, Field{Name: name, Value: value, Line: n})
				break
			}
			r := Rule{Allow: strings.EqualFold(name, "allow"), Path: value, Line: n}
			f.Records[cur].Rules = append(f.Records[cur].Rules, r)
			agentsDone = true
		default:
			fld := Field{Name: name, Value: value, Line: n}
			if cur < 0 {
				f.Fields = append(f.Fields, fld)
				break
			}
			f.Records[cur].Fields = append(f.Records[cur].Fields, fld)
			agentsDone = true
		}
		return true
	})
}

func (f *File) parseYAML(data []byte) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("%w: %v", ErrFormat, err)
	}
	if len(doc.Content) == 0 {
		return nil // only comments
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return nil
	}
	if root.Kind != yaml.SequenceNode {
		return fmt.Errorf("%w: line %d: want a sequence of dataset entries", ErrFormat, root.Line)
	}
	for _, e := range root.Content {
		d, err := dataset(e)
		if err != nil {
			return err
		}
		f.datasets = append(f.datasets, d)
	}
	return nil
}

func dataset(e *yaml.Node) (Dataset, error) {
	d := Dataset{Line: e.Line}
	if e.Kind == yaml.AliasNode && e.Alias != nil {
		e = e.Alias
	}
	if e.Kind != yaml.MappingNode {
		return d, fmt.Errorf("%w: line %d: a dataset entry must be a mapping of keys to values", ErrFormat, d.Line)
	}
	for i := 0; i+1 < len(e.Content); i += 2 {
		k, v := e.Content[i], e.Content[i+1]
		if v.Kind == yaml.AliasNode && v.Alias != nil {
			v = v.Alias
		}
		var s *string
		switch k.Value {
		case "path":
			paths, ok := stringList(v)
			if !ok {
				return d, fmt.Errorf("%w: line %d: path must be a string or a list of strings", ErrFormat, v.Line)
			}
			d.Paths = paths
			continue
		case "name":
			s = &d.Name
		case "title":
			s = &d.Title
		case "description":
			s = &d.Description
		case "license":
			s = &d.License
		case "type":
			s = &d.Type
		}
		if s != nil && v.Kind == yaml.ScalarNode {
			if v.Tag != "!!null" {
				*s = v.Value
			}
			continue
		}
		// Unknown keys, and known ones holding more than a string, are kept
		// as YAML decodes them.
		var x any
		if err := v.Decode(&x); err != nil {
			return d, fmt.Errorf("%w: line %d: %s: %v", ErrFormat, v.Line, k.Value, err)
		}
		if d.Extra == nil {
			d.Extra = make(map[string]any)
		}
		d.Extra[k.Value] = x
	}
	return d, nil
}

func stringList(v *yaml.Node) ([]string, bool) {
	switch v.Kind {
	case yaml.ScalarNode:
		if v.Tag == "!!null" {
			return nil, true
		}
		return []string{v.Value}, true
	case yaml.SequenceNode:
		out := make([]string, 0, len(v.Content))
		for _, c := range v.Content {
			if c.Kind != yaml.ScalarNode {
				return nil, false
			}
			out = append(out, c.Value)
		}
		return out, true
	}
	return nil, false
}
