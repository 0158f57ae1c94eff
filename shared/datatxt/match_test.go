package datatxt

import (
	"os"
	"strings"
	"testing"
)

// The 16-row table of section 3.2.2 of the specification, verbatim.
func TestRuleMatchesDraftTable(t *testing.T) {
	tests := []struct {
		record, path string
		want         bool
	}{
		{"/tmp", "/tmp", true},
		{"/tmp", "/tmp.html", true},
		{"/tmp", "/tmp/a.html", true},
		{"/tmp/", "/tmp", false},
		{"/tmp/", "/tmp/", true},
		{"/tmp/", "/tmp/a.html", true},
		{"/a%3cd.html", "/a%3cd.html", true},
		{"/a%3Cd.html", "/a%3cd.html", true},
		{"/a%3cd.html", "/a%3Cd.html", true},
		{"/a%3Cd.html", "/a%3Cd.html", true},
		{"/a%2fb.html", "/a%2fb.html", true},
		{"/a%2fb.html", "/a/b.html", false},
		{"/a/b.html", "/a%2fb.html", false},
		{"/a/b.html", "/a/b.html", true},
		{"/%7ejoe/index.html", "/~joe/index.html", true},
		{"/~joe/index.html", "/%7Ejoe/index.html", true},
	}
	for _, tt := range tests {
		if got := (Rule{Path: tt.record}).Matches(tt.path); got != tt.want {
			t.Errorf("record %q, URL path %q: matches = %v, want %v", tt.record, tt.path, got, tt.want)
		}
	}
}

// Edge cases of the %xx rule beyond the draft's table.
func TestRuleMatchesEscapes(t *testing.T) {
	tests := []struct {
		record, path string
		want         bool
	}{
		{"/a%2F", "/a%2fb", true},   // %2F compared without regard to hex case
		{"/a%25", "/a%252Fb", true}, // a literal '%' is a prefix of "%2F" spelt out
		{"/a%25", "/a%2Fb", false},  // but not of an encoded slash
		{"/a%", "/a%25", true},      // a bad escape is a literal '%'
		{"/a%2", "/a%2F", false},
		{"/%E2%82%AC", "/\u20ac/x", true}, // octets, not characters
		{"", "/anything", false},          // an empty path matches nothing
		{"/p", "http://example.org/p?q#f", true},
		{"/p?q", "http://example.org/p?q=1", true}, // the query is part of what is compared
	}
	for _, tt := range tests {
		if got := (Rule{Path: tt.record}).Matches(tt.path); got != tt.want {
			t.Errorf("record %q, URL path %q: matches = %v, want %v", tt.record, tt.path, got, tt.want)
		}
	}
}

// The access matrix of section 4 of the specification, for the User-Agents the
// text names ("UnhipBot/0.1", "WebCrawler/3.0", "Excite/1.0") and another.
func TestAllowedFictOrgMatrix(t *testing.T) {
	src, err := os.ReadFile("testdata/fict.org.txt")
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse(strings.NewReader(string(src)))
	if err != nil {
		t.Fatal(err)
	}
	// Columns: unhipbot, webcrawler & excite, other.
	matrix := []struct {
		url                         string
		unhip, crawlerExcite, other bool
	}{
		{"http://www.fict.org/", false, true, false},
		{"http://www.fict.org/index.html", false, true, false},
		{"http://www.fict.org/robots.txt", true, true, true},
		{"http://www.fict.org/server.html", false, true, true},
		{"http://www.fict.org/services/fast.html", false, true, true},
		{"http://www.fict.org/services/slow.html", false, true, true},
		{"http://www.fict.org/orgo.gif", false, true, false},
		{"http://www.fict.org/org/about.html", false, true, true},
		{"http://www.fict.org/org/plans.html", false, true, false},
		{"http://www.fict.org/%7Ejim/jim.html", false, true, false},
		{"http://www.fict.org/%7Emak/mak.html", false, true, true},
	}
	for _, row := range matrix {
		for _, c := range []struct {
			agent string
			want  bool
		}{
			{"UnhipBot/0.1", row.unhip},
			{"WebCrawler/3.0", row.crawlerExcite},
			{"Excite/1.0", row.crawlerExcite},
			{"FigTree/0.1 Robot libwww-perl/5.04", row.other},
		} {
			if got := f.Allowed(c.agent, row.url); got != c.want {
				t.Errorf("%s for %s: allowed = %v, want %v", row.url, c.agent, got, c.want)
			}
		}
	}
}

func TestRecordSelection(t *testing.T) {
	const src = "User-agent: *\nDisallow: /star\n\n" +
		"User-agent: FigTree/1.0\nDisallow: /fig\n\n" +
		"User-agent: figtreebot\nDisallow: /second\n"
	f, err := Parse(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		agent string
		line  int // of the selected record; 0 for none
	}{
		{"figtree", 4},    // substring of "FigTree/1.0", case-insensitive, first wins
		{"FIGTREE/2", 4},  // the token of a whole User-Agent
		{"tree", 4},       // any substring of the value
		{"unknown", 1},    // falls back to "*"
		{"", 1},           // no token matches nothing but "*"
		{"figtreebot", 7}, // not a substring of "FigTree/1.0"
	}
	for _, tt := range tests {
		r := f.Record(tt.agent)
		if r == nil || r.Line != tt.line {
			t.Errorf("Record(%q) = %+v, want the record at line %d", tt.agent, r, tt.line)
		}
	}
	none, _ := Parse(strings.NewReader("User-agent: other\nDisallow: /\n"))
	if r := none.Record("figtree"); r != nil {
		t.Errorf("without a matching or * record: Record = %+v, want nil", r)
	}
	if !none.Allowed("figtree", "/x") {
		t.Error("without a matching or * record access must be unlimited")
	}
}

func TestAllowedAlwaysAllowsTheFilesThemselves(t *testing.T) {
	f, _ := Parse(strings.NewReader("User-agent: *\nDisallow: /\n"))
	for _, p := range []string{"/robots.txt", "/data.txt", "https://example.org/data.txt"} {
		if !f.Allowed("bot", p) {
			t.Errorf("%s must always be allowed", p)
		}
	}
	for _, p := range []string{"/robots.txt.bak", "/data.txt/x", "/"} {
		if f.Allowed("bot", p) {
			t.Errorf("%s must be disallowed", p)
		}
	}
}

func TestAllowedYAMLRestrictsNothing(t *testing.T) {
	f, err := Parse(strings.NewReader("- path: a.csv\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !f.Allowed("bot", "/private") {
		t.Error("a YAML-form file must not restrict access")
	}
}

func TestNameToken(t *testing.T) {
	for in, want := range map[string]string{
		"FigTree/0.1 Robot libwww-perl/5.04": "figtree",
		"UnhipBot/0.1":                       "unhipbot",
		"  webkeep ":                         "webkeep",
		"":                                   "",
	} {
		if got := NameToken(in); got != want {
			t.Errorf("NameToken(%q) = %q, want %q", in, got, want)
		}
	}
}
