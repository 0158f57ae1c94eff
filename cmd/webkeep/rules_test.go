package main

import (
	"strings"
	"testing"
)

// The document's long_form example.
const longForm = `long_form {
  required host = "[a-z0-9]+\.";
  optional version = flag("[0-9]+\.[0-9]+\.", "1.0.");
  required www = website("w{1,4}", "www");
  namespace canonalize {
    optional language = flag("[a-z][a-z]", "");
  };
}
`

func TestRulesMatch(t *testing.T) {
	file := siteTempFile(t, "example.org.rules", longForm)
	code, out, errs := siteRun("rules", "match", "--rules", file,
		"test.3.59.w.en.example.org", "http://snap.6.22.wwww.fr.example.org/a?b=1", "example.org")
	want := `{"url":"test.3.59.w.en.example.org","domain":"example.org","website":"test.www.example.org","options":{"language":"en","version":"3.59"},"canonical":"http://test.www.en.example.org/"}` + "\n" +
		`{"url":"http://snap.6.22.wwww.fr.example.org/a?b=1","domain":"example.org","website":"snap.www.example.org","options":{"language":"fr","version":"6.22"},"canonical":"http://snap.www.fr.example.org/a?b=1"}` + "\n"
	if code != 1 || out != want {
		t.Errorf("exit %d, stdout\n%s\nwant\n%s", code, out, want)
	}
	if !strings.Contains(errs, `no domain rule matches: example.org`) {
		t.Errorf("stderr %q, want the URL no rule matches", errs)
	}
}

func TestRulesCheck(t *testing.T) {
	good := siteTempFile(t, "good.rules", longForm+"site { protocol = any; path optional canonalize::lang = flag('en|fr', 'en'); }\n")
	code, out, errs := siteRun("rules", "check", "--rules", good)
	if code != 0 || !strings.HasSuffix(out, "good.rules: ok, 1 domain rules, 1 website rules\n") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}

	bad := siteTempFile(t, "bad.rules", "r {\n  required v = flag(\"x\", \"1\");\n  optional v = \"(\";\n}\n")
	code, out, errs = siteRun("rules", "check", "--rules", bad)
	lines := strings.Split(strings.TrimSpace(errs), "\n")
	if code != 1 || out != "" || len(lines) != 2 ||
		!strings.HasSuffix(lines[0], "bad.rules:2:26: rule r: variable domain::v: required flag with a default: a required flag always has a value; remove the default \"1\"") ||
		!strings.HasSuffix(lines[1], "bad.rules:3:12: rule r: variable domain::v: duplicate variable: first declared at line 2, column 12") {
		t.Errorf("exit %d, stdout %q, stderr\n%s", code, out, errs)
	}

	code, _, errs = siteRun("rules", "match", "--rules", bad, "example.org")
	if code != 1 || !strings.Contains(errs, "duplicate variable") {
		t.Errorf("match with a bad file: exit %d, %q", code, errs)
	}
}

func TestRulesUsage(t *testing.T) {
	file := siteTempFile(t, "r.rules", longForm)
	for _, args := range [][]string{
		{"rules"},
		{"rules", "nope"},
		{"rules", "match", "x.example.org"},
		{"rules", "match", "--rules", file},
		{"rules", "check"},
		{"rules", "check", "--rules", file, "extra"},
	} {
		if code, _, errs := siteRun(args...); code != 2 || !strings.Contains(errs, "usage") {
			t.Errorf("%q: exit %d, stderr %q; want 2 and usage", args, code, errs)
		}
	}
	if code, _, _ := siteRun("rules", "check", "-h"); code != 0 {
		t.Errorf("-h: exit %d", code)
	}
	if code, _, errs := siteRun("rules", "check", "--rules", "/nonexistent.rules"); code != 1 || !strings.Contains(errs, "nonexistent") {
		t.Errorf("missing file: exit %d, %q", code, errs)
	}
}
