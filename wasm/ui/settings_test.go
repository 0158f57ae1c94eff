package main

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestRulesRoundTrip(t *testing.T) {
	m := map[string]string{"b.example": "rule b", "a.example": "website(\"/docs/\")\n"}
	rows := rulesRows(m)
	if want := []domainRule{{"a.example", "website(\"/docs/\")\n"}, {"b.example", "rule b"}}; !reflect.DeepEqual(rows, want) {
		t.Fatalf("rulesRows = %q, want %q", rows, want)
	}
	back, err := rulesMap(rows)
	if err != nil {
		t.Fatal(err)
	}
	// Trailing blank lines are not kept; the rules themselves are.
	if want := map[string]string{"a.example": "website(\"/docs/\")", "b.example": "rule b"}; !reflect.DeepEqual(back, want) {
		t.Errorf("rulesMap = %q, want %q", back, want)
	}
	if rows := rulesRows(nil); len(rows) != 0 {
		t.Errorf("rulesRows(nil) = %q", rows)
	}
}

func TestRulesMap(t *testing.T) {
	for _, tc := range []struct {
		name string
		rows []domainRule
		want map[string]string
		err  string
	}{
		{"empty rows dropped", []domainRule{{"", ""}, {" ", "\n"}}, map[string]string{}, ""},
		{"domain normalised", []domainRule{{" Example.ORG ", "x"}}, map[string]string{"example.org": "x"}, ""},
		{"domain without rules kept", []domainRule{{"example.org", ""}}, map[string]string{"example.org": ""}, ""},
		{"rules without domain", []domainRule{{"a.org", "x"}, {"", "y"}}, nil, "row 2: rules without a domain"},
		{"a URL", []domainRule{{"https://a.org/", "x"}}, nil, "row 1: \"https://a.org/\": give a domain"},
		{"twice", []domainRule{{"a.org", "x"}, {"A.org", "y"}}, nil, "row 2: a.org is given twice"},
	} {
		got, err := rulesMap(tc.rows)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, errDomainRules) {
				t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
}

func TestIsDatabaseFile(t *testing.T) {
	for path, want := range map[string]bool{
		"urldb/example.org.yaml":  true,
		"urldb/sub/a.example.YML": true,
		"example.org.yaml":        true,
		"urldb/README.md":         false,
		"urldb/.git/config.yaml":  false,
		"urldb/.hidden.yaml":      false,
		"urldb/yaml":              false,
	} {
		if got := isDatabaseFile(path); got != want {
			t.Errorf("isDatabaseFile(%q) = %v", path, got)
		}
	}
}
