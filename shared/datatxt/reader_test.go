package datatxt

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
)

func TestParseRobots(t *testing.T) {
	const src = "\xef\xbb\xbfSitemap: https://example.org/sitemap.xml\n" +
		"Disallow: /orphan\n" +
		"# a comment line\n" +
		"User-agent: a # trailing comment\n" +
		"user-agent:b\n" +
		"Crawl-delay: 5\n" +
		"DISALLOW :  /x  # spaces around\n" +
		"not a field line\n" +
		"Allow: /x/y\n" +
		"User-agent: c\n" + // no blank line: still a new record
		"\n" +
		"Disallow:\n" // a blank line does not end a record without rules
	f, err := Parse(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	want := &File{
		Format: Robots,
		Fields: []Field{
			{"Sitemap", "https://example.org/sitemap.xml", 1},
			{"Disallow", "/orphan", 2},
		},
		Records: []Record{
			{
				Agents: []string{"a", "b"},
				Rules:  []Rule{{false, "/x", 7}, {true, "/x/y", 9}},
				Fields: []Field{{"Crawl-delay", "5", 6}},
				Line:   4,
			},
			{Agents: []string{"c"}, Rules: []Rule{{false, "", 12}}, Line: 10},
		},
	}
	if !reflect.DeepEqual(f, want) {
		t.Errorf("Parse =\n%+v\nwant\n%+v", f, want)
	}
}

// The draft asks for CR and LF as well as CRLF: all three read alike.
func TestParseLineEnds(t *testing.T) {
	src, err := os.ReadFile("testdata/fict.org.txt")
	if err != nil {
		t.Fatal(err)
	}
	lf, _ := Parse(strings.NewReader(string(src)))
	if len(lf.Records) != 3 || len(lf.Records[2].Rules) != 5 {
		t.Fatalf("fict.org: %d records, want 3 with 5 rules in the last: %+v", len(lf.Records), lf.Records)
	}
	for _, eol := range []string{"\r", "\r\n"} {
		f, err := Parse(strings.NewReader(strings.ReplaceAll(string(src), "\n", eol)))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(f, lf) {
			t.Errorf("line end %q: %+v, want %+v", eol, f, lf)
		}
	}
}

func TestParseSizeLimit(t *testing.T) {
	head := "User-agent: *\nAllow: /public\nDisallow: /\n"
	pad := strings.Repeat("# padding\n", (MaxSize-len(head))/10)
	// The cut falls inside the last line: it must be dropped, not read as
	// "Allow: /p", which would allow more than the site said.
	src := head + pad + strings.Repeat("x", MaxSize-len(head)-len(pad)-5) + "\nAllow: /private-only\n"
	f, err := Parse(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	if !f.Truncated {
		t.Error("Truncated = false for a file over MaxSize")
	}
	if got := f.Records[0].Rules; len(got) != 2 {
		t.Errorf("rules = %+v, want the two before the limit", got)
	}
	if f.Allowed("bot", "/p") {
		t.Error("a rule cut by the size limit was applied")
	}
	small, _ := Parse(strings.NewReader(head))
	if small.Truncated {
		t.Error("Truncated = true for a small file")
	}
}

func TestParseYAML(t *testing.T) {
	src, err := os.ReadFile("testdata/pins.yaml")
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse(strings.NewReader(string(src)))
	if err != nil {
		t.Fatal(err)
	}
	if f.Format != YAML || len(f.Records) != 0 {
		t.Fatalf("Format = %v with %d records, want yaml", f.Format, len(f.Records))
	}
	want := []Dataset{
		{
			Paths:       []string{"iris/"},
			Name:        "iris",
			Description: "Fisher's or Anderson's iris data set, 50 flowers from each of 3 species.",
			Type:        "table",
			Extra:       map[string]any{"rows": 150, "cols": 5},
			Line:        3,
		},
		{
			Paths:       []string{"mtcars/data.csv", "mtcars/data.rds"},
			Name:        "mtcars",
			Title:       "Motor Trend Car Road Tests",
			Description: "Fuel consumption and 10 aspects of design for 32 automobiles (1973-74).",
			License:     "CC0-1.0",
			Type:        "table",
			Extra: map[string]any{"rows": 32, "cols": 11,
				"columns": map[string]any{"mpg": "numeric", "cyl": "numeric"}},
			Line: 9,
		},
	}
	if got := f.Datasets(); !reflect.DeepEqual(got, want) {
		t.Errorf("Datasets =\n%#v\nwant\n%#v", got, want)
	}
}

func TestParseDetectsForm(t *testing.T) {
	tests := []struct {
		src  string
		want Format
	}{
		{"# comment\n\n- path: a\n", YAML},
		{"---\n- path: a\n", YAML},
		{"[{path: a}]\n", YAML},
		{"  - path: a\n", YAML},
		{"-\n  path: a\n", YAML},
		{"User-agent: *\nDisallow: /\n", Robots},
		{"-path: a\n", Robots}, // not a YAML sequence entry
		{"", Robots},
		{"# only a comment\n", Robots},
	}
	for _, tt := range tests {
		f, err := Parse(strings.NewReader(tt.src))
		if err != nil {
			t.Errorf("%q: %v", tt.src, err)
			continue
		}
		if f.Format != tt.want {
			t.Errorf("%q: Format = %v, want %v", tt.src, f.Format, tt.want)
		}
	}
}

func TestParseYAMLErrors(t *testing.T) {
	tests := []struct {
		src, want string
	}{
		{"---\npath: a\n", "line 2: want a sequence"},
		{"- path: a\n- just a string\n", "line 2: a dataset entry must be a mapping"},
		{"- path: a\n- path: {x: 1}\n", "line 2: path must be a string or a list"},
		{"- path: [a, [b]]\n", "line 1: path must be"},
		{"- path: a\n- name: b\n\tx: 1\n", "found a tab character"},
		{"- a: *nope\n", "unknown anchor"},
	}
	for _, tt := range tests {
		_, err := Parse(strings.NewReader(tt.src))
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want ErrFormat mentioning %q", tt.src, err, tt.want)
		}
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestParseReadError(t *testing.T) {
	_, err := Parse(failingReader{})
	if err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Errorf("Parse of a failing reader: %v", err)
	}
}
