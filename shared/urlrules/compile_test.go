package urlrules

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// Every compile error: which error, in which rule and variable, at which
// line and column.
func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		err      error
		rule     string
		variable string
		line     int
		col      int
		detail   string
	}{
		// Syntax errors.
		{"no rules", "// nothing here\n", ErrSyntax, "", "", 2, 1, "no rules"},
		{"missing semicolon", "r {\n  required a = \"x\"\n}\n", ErrSyntax, "r", "", 3, 1, `expected ";", found "}"`},
		{"newline in string", "r {\n  required a = \"x;\n}\n", ErrSyntax, "r", "", 2, 16, "newline in string"},
		{"string not terminated", `r { required a = 'x`, ErrSyntax, "r", "", 1, 18, "string not terminated"},
		{"comment not terminated", "r { /* a\n\n", ErrSyntax, "r", "", 1, 5, "comment not terminated"},
		{"unexpected character", "r { required a = \"x\" @ }", ErrSyntax, "r", "", 1, 22, "unexpected character '@'"},
		{"rule name", "Rule { required a = \"x\"; }", ErrSyntax, "", "", 1, 1, `invalid rule name "Rule"`},
		{"variable name", "r {\n  required Host = \"x\";\n}", ErrSyntax, "r", "", 2, 12, `invalid variable name "Host"`},
		{"empty qualified part", "r { optional canonalize:: = \"x\"; }", ErrSyntax, "r", "", 1, 27, `expected variable name, found "="`},
		{"unknown function", "r { required a = regex(\"x\"); }", ErrSyntax, "r", "", 1, 18, `expected a string, website(...) or flag(...), found "regex"`},
		{"website with one argument", "r { required a = website(\"x\"); }", ErrSyntax, "r", "", 1, 29, `expected ",", found ")"`},
		{"flag with three arguments", "r { optional a = flag(\"x\", \"y\", \"z\"); }", ErrSyntax, "r", "", 1, 31, `expected ")", found ","`},
		{"bad protocol", "r {\n  protocol = FTP;\n}", ErrSyntax, "r", "", 2, 14, `protocol must be HTTP, HTTPS, HTTP|HTTPS or any, not "FTP"`},
		{"unknown statement", "r { host = \"x\"; }", ErrSyntax, "r", "", 1, 5, `found "host"`},
		{"end of file in rule", "r { required a = \"x\";", ErrSyntax, "r", "", 1, 22, `expected "}", found end of file`},
		{"keyword without variable", "r { path website = \"x\"; }", ErrSyntax, "r", "", 1, 10, `expected optional or required, found "website"`},
		{"namespace without block", "r { namespace canonalize optional a = \"x\"; }", ErrSyntax, "r", "", 1, 26, `expected "{", found "optional"`},

		// Errors of a script that parses.
		{"duplicate rule", "r { required a = \"x\"; }\n\nr { required b = \"y\"; }\n", ErrDuplicateRule, "r", "", 3, 1, "first defined at line 1"},
		{"duplicate variable", "r {\n  required a = \"x\";\n  optional domain::a = \"y\";\n}", ErrDuplicateVariable, "r", "domain::a", 3, 12, "first declared at line 2, column 12"},
		{"duplicate variable in a namespace", "r {\n  namespace canonalize { optional a = \"x\"; }\n  optional canonalize::a = \"y\";\n}", ErrDuplicateVariable, "r", "canonalize::a", 3, 12, "first declared at line 2, column 35"},
		{"required flag with a default", "r {\n  required version = flag(\"[0-9]+\", \"1\");\n}", ErrRequiredDefault, "r", "domain::version", 2, 37, `remove the default "1"`},
		{"invalid regex", "r {\n  required host = \"([a-z]+\";\n}", ErrRegexp, "r", "domain::host", 2, 19, "missing closing )"},
		{"lookahead", "r {\n  path optional p = flag(\"(?=x)y\");\n}", ErrRegexp, "r", "website::p", 2, 26, "no lookahead"},
		{"backreference", "r {\n  query optional p = \"(a)\\1\";\n}", ErrRegexp, "r", "website::p", 2, 22, "backreferences"},
		{"invalid port", "r {\n  port = \"(80\";\n}", ErrRegexp, "r", "port", 2, 10, "missing closing )"},
		{"duplicate protocol", "r {\n  protocol = HTTP;\n  protocol = HTTPS;\n}", ErrDuplicateSetting, "r", "protocol", 3, 3, "first set at line 2, column 3"},
		{"duplicate port", "r {\n  port = \"80\";\n  port = \"81\";\n}", ErrDuplicateSetting, "r", "port", 3, 3, "first set at line 2, column 3"},
		{"empty rule", "r { }", ErrEmptyRule, "r", "", 1, 1, ""},
	}
	for _, tt := range tests {
		_, err := Compile("test.rules", []byte(tt.src))
		var list ErrorList
		if !errors.As(err, &list) || len(list) != 1 {
			t.Errorf("%s: error %v, want one error", tt.name, err)
			continue
		}
		e := list[0]
		if !errors.Is(err, tt.err) || e.File != "test.rules" || e.Rule != tt.rule || e.Variable != tt.variable ||
			e.Line != tt.line || e.Column != tt.col || !strings.Contains(e.Detail, tt.detail) {
			t.Errorf("%s: got %+v (%v)\nwant %v in rule %q variable %q at %d:%d with %q",
				tt.name, e, e, tt.err, tt.rule, tt.variable, tt.line, tt.col, tt.detail)
		}
	}
}

func TestCompileReportsEveryError(t *testing.T) {
	src := "a {\n  required x = flag(\"[0-9]+\", \"1\");\n  required y = \"(\";\n}\nb { }\na { required z = \"z\"; }\n"
	_, err := Compile("many.rules", []byte(src))
	var list ErrorList
	if !errors.As(err, &list) || len(list) != 4 {
		t.Fatalf("error %v, want 4 errors", err)
	}
	for i, want := range []error{ErrRequiredDefault, ErrRegexp, ErrEmptyRule, ErrDuplicateRule} {
		if !errors.Is(list[i], want) {
			t.Errorf("error %d = %v, want %v", i, list[i], want)
		}
	}
	const first = "many.rules:2:31: rule a: variable domain::x: required flag with a default: "
	if !strings.HasPrefix(err.Error(), first) {
		t.Errorf("message %q, want it to start %q", err.Error(), first)
	}
}

func TestScanStrings(t *testing.T) {
	tests := []struct{ src, want string }{
		{`"w{1,4}\."`, `w{1,4}\.`}, // a backslash that is no escape stays
		{`"w{1,4}\\."`, `w{1,4}\.`},
		{`"a\"b"`, `a"b`},
		{`'a\'b"c'`, `a'b"c`},
		{`'(en|fr|de)'`, `(en|fr|de)`},                     // the document's single quotes
		{`"a\d" /* c */ 'b' // c` + "\n" + `"c"`, `a\dbc`}, // adjacent strings join, as in C
	}
	for _, tt := range tests {
		p := &parser{s: newScanner([]byte(tt.src))}
		p.next()
		got, _ := p.str("test")
		if p.s.err != nil || got != tt.want {
			t.Errorf("%s: %q, %v; want %q", tt.src, got, p.s.err, tt.want)
		}
	}
}

// The compiler appends the label separator only where a pattern does not
// already end in one.
func TestCompileSeparator(t *testing.T) {
	tests := []struct {
		pattern string
		dot     bool
	}{
		{`w{1,4}\.`, true},
		{`w{1,4}`, false},
		{`[a-z0-9]+\.`, true},
		{`([0-9]+\.[0-9]+)\.`, true},
		{`([a-z][a-z]\.)`, true}, // the document's language pattern
		{`en\.|fr\.`, true},
		{`en\.|fr`, false},
		{`(x\.)+`, true},
		{`(x\.)*`, false},
		{`[.]`, true},
		{`x\.$`, true},
		{``, false},
		{`.`, false}, // any character, not a dot
	}
	for _, tt := range tests {
		if got := mustEndWith(tt.pattern, '.'); got != tt.dot {
			t.Errorf("mustEndWith(%q, '.') = %v, want %v", tt.pattern, got, tt.dot)
		}
	}
}

func TestCompileKinds(t *testing.T) {
	src, err := os.ReadFile("testdata/m2osw.rules")
	if err != nil {
		t.Fatal(err)
	}
	rs, err := Compile("m2osw.rules", src)
	if err != nil {
		t.Fatal(err)
	}
	var domain, website []string
	for _, r := range rs.Domain {
		domain = append(domain, r.Name)
	}
	for _, r := range rs.Website {
		website = append(website, r.Name)
	}
	if strings.Join(domain, ",") != "m2osw" || strings.Join(website, ",") != "admin,language_in_path" {
		t.Errorf("domain rules %v, website rules %v", domain, website)
	}
}
