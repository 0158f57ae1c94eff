package main

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// domainRule is one row of the options page's domain rules: a domain and its rules.
type domainRule struct {
	Domain, Rules string
}

// errDomainRules reports domain rules the options page cannot save.
var errDomainRules = errors.New("domain rules")

// rulesRows lists the domain rules of the settings, sorted by domain.
func rulesRows(m map[string]string) []domainRule {
	rows := make([]domainRule, 0, len(m))
	for d, r := range m {
		rows = append(rows, domainRule{d, r})
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Domain < rows[j].Domain })
	return rows
}

// rulesMap turns the rows of the form back into the settings' map. A row left empty is
// dropped; rules without a domain, a domain that is a URL, and a domain given twice are
// errors naming the row (counted from 1).
func rulesMap(rows []domainRule) (map[string]string, error) {
	m := map[string]string{}
	for i, r := range rows {
		d := strings.ToLower(strings.TrimSpace(r.Domain))
		rules := strings.TrimRight(r.Rules, " \t\r\n")
		switch {
		case d == "" && strings.TrimSpace(rules) == "":
			continue
		case d == "":
			return nil, fmt.Errorf("%w: row %d: rules without a domain: give the domain they apply to, e.g. example.org", errDomainRules, i+1)
		case strings.ContainsAny(d, "/: \t"):
			return nil, fmt.Errorf("%w: row %d: %q: give a domain such as example.org, not a URL", errDomainRules, i+1, r.Domain)
		}
		if _, dup := m[d]; dup {
			return nil, fmt.Errorf("%w: row %d: %s is given twice: merge its rules into one row", errDomainRules, i+1, d)
		}
		m[d] = rules
	}
	return m, nil
}

// isDatabaseFile reports whether a file of a chosen folder belongs in the URL
// database: a YAML file outside hidden folders such as .git.
func isDatabaseFile(relPath string) bool {
	for _, part := range strings.Split(relPath, "/") {
		if strings.HasPrefix(part, ".") {
			return false
		}
	}
	p := strings.ToLower(relPath)
	return strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")
}
