package urlrules

import (
	"errors"
	"fmt"
	"strings"
)

// Compile errors, reported inside an *Error that says where.
var (
	// ErrSyntax reports source that does not follow the grammar.
	ErrSyntax = errors.New("syntax error")
	// ErrDuplicateRule reports a second rule with the name of an earlier one.
	ErrDuplicateRule = errors.New("duplicate rule")
	// ErrDuplicateVariable reports a variable declared twice in one rule
	// (the same qualified name, namespaces included).
	ErrDuplicateVariable = errors.New("duplicate variable")
	// ErrDuplicateSetting reports a second protocol or port line in a rule.
	ErrDuplicateSetting = errors.New("duplicate setting")
	// ErrRequiredDefault reports a required flag() given a default value,
	// which could never be used.
	ErrRequiredDefault = errors.New("required flag with a default")
	// ErrRegexp reports a pattern that Go's RE2 syntax rejects: invalid, or
	// using lookaround or backreferences, which RE2 does not have.
	ErrRegexp = errors.New("invalid regular expression")
	// ErrEmptyRule reports a rule without any variable or setting.
	ErrEmptyRule = errors.New("empty rule")
)

// Match errors.
var (
	// ErrURL reports a URL that cannot be parsed or has no host.
	ErrURL = errors.New("urlrules: invalid URL")
	// ErrNoDomainRule reports sub-domains that no domain rule matches (the
	// document's "404 Unknown Domain").
	ErrNoDomainRule = errors.New("urlrules: no domain rule matches")
	// ErrNoWebsiteRule reports a URL that no website rule matches (the
	// document's "404 Unknown Website").
	ErrNoWebsiteRule = errors.New("urlrules: no website rule matches")
)

// Error is a compile error: where it is, which rule and variable, and what.
type Error struct {
	File     string // the name given to Compile
	Line     int    // 1-based
	Column   int    // 1-based, in bytes
	Rule     string // the rule it is in, "" outside any rule
	Variable string // the variable's qualified name, or "protocol"/"port"; "" if none
	Err      error  // one of the Err values above
	Detail   string // what exactly is wrong
}

// Error formats the error as "file:line:col: rule R: variable V: error: detail".
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d:%d: ", e.File, e.Line, e.Column)
	if e.Rule != "" {
		fmt.Fprintf(&b, "rule %s: ", e.Rule)
	}
	if e.Variable != "" {
		fmt.Fprintf(&b, "variable %s: ", e.Variable)
	}
	b.WriteString(e.Err.Error())
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	return b.String()
}

// Unwrap returns the Err value, for errors.Is.
func (e *Error) Unwrap() error { return e.Err }

// ErrorList is every error Compile found: one syntax error, or all the
// errors of a script that parses.
type ErrorList []*Error

// Error returns the errors one per line.
func (l ErrorList) Error() string {
	s := make([]string, len(l))
	for i, e := range l {
		s[i] = e.Error()
	}
	return strings.Join(s, "\n")
}

// Unwrap returns the errors, for errors.Is and errors.As.
func (l ErrorList) Unwrap() []error {
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errs
}
