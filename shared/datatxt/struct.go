package datatxt

import "time"

// Format tells which of the two forms a file is written in.
type Format int

const (
	// Robots is the line-oriented form of the 1996 robots draft: records of
	// User-agent lines followed by Allow and Disallow lines.
	Robots Format = iota
	// YAML is the form published data.txt files use (datatxt.org, rstudio/pins):
	// a YAML sequence of dataset entries.
	YAML
)

// String returns "robots" or "yaml".
func (f Format) String() string {
	if f == YAML {
		return "yaml"
	}
	return "robots"
}

// File is a parsed /data.txt or /robots.txt.
type File struct {
	// Format is the form the file was written in.
	Format Format
	// Records are the robots-form records in file order; empty for YAML.
	Records []Record
	// Fields are the lines that belong to no record: extension lines
	// (e.g. Sitemap) before the first User-agent line, and rule lines that
	// follow no User-agent line.
	Fields []Field
	// Truncated reports that the input was longer than MaxSize and only its
	// first MaxSize bytes were parsed.
	Truncated bool
	// Expires is when the file should be fetched again; set by Get from the
	// response headers, zero when parsed from elsewhere.
	Expires time.Time

	datasets []Dataset
}

// Datasets returns the dataset entries of a YAML-form file. A robots-form
// file grants or refuses access but declares no datasets: it returns nil.
func (f *File) Datasets() []Dataset { return f.datasets }

// Record is one robots-form record: the agents it names and its rules.
type Record struct {
	// Agents are the values of the record's User-agent lines, as written.
	Agents []string
	// Rules are the record's Allow and Disallow lines in file order.
	Rules []Rule
	// Fields are the record's other lines (extensions such as Crawl-delay).
	Fields []Field
	// Line is the 1-based line of the record's first User-agent line.
	Line int
}

// Rule is one Allow or Disallow line.
type Rule struct {
	Allow bool   // true for Allow, false for Disallow
	Path  string // the path as written, comment and surrounding space removed
	Line  int    // 1-based line number
}

// Field is a line of the form "Name: value" that is not a User-agent, Allow
// or Disallow line. Name keeps the case it was written in.
type Field struct {
	Name  string
	Value string
	Line  int
}

// Dataset is one entry of a YAML-form data.txt.
type Dataset struct {
	// Paths are the entry's path values: pins writes one string or a list.
	Paths       []string
	Name        string
	Title       string
	Description string
	License     string
	Type        string
	// Extra holds every other key of the entry, as YAML decoded it.
	Extra map[string]any
	// Line is the 1-based line where the entry starts.
	Line int
}
