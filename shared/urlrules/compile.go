package urlrules

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
)

// Rules is a compiled script of domain rules and website rules.
//
// A rule is a website rule when it has a protocol, port, path or query
// statement; its variables without a keyword then match the path, as the
// document's website grammar says. Every other rule is a domain rule, whose
// variables match the sub-domains.
type Rules struct {
	Name    string  // the name given to Compile
	Domain  []*Rule // domain rules, in script order
	Website []*Rule // website rules, in script order
}

// Rule is one compiled rule.
type Rule struct {
	Name string
	Line int

	re        *regexp.Regexp // sub-domains (domain rule) or path (website rule)
	vars      []*variable    // the variables re matches, in order
	query     []*variable    // a website rule's query variables
	protocols []string       // upper-case; nil for any
	port      *regexp.Regexp // nil for any
}

// variable is one compiled variable of a rule.
type variable struct {
	name      string // the option name: the last part of the qualified name
	qname     string // the qualified name, default namespace included
	official  bool   // in the canonalize namespace: kept in the canonical URL
	fn        function
	required  bool
	part      part
	canonical string // website()'s second string
	def       string // flag()'s default
	group     int    // index of the variable's capture group in the rule's re
	inner     bool   // the pattern has its own group: the value is its first one
	re        *regexp.Regexp
}

// Compile parses and compiles a Domain Rules and Website Rules script. name
// is used in errors, which come as an ErrorList of *Error: one syntax error
// with its line and column, or every rule and variable error of a script that
// parses.
//
// Variables match whole labels of the sub-domains and whole segments of the
// path: where a pattern cannot end in "." (in the sub-domains) or "/" (in the
// path), the compiler appends `\.` or "/" to it.
func Compile(name string, src []byte) (*Rules, error) {
	decls, perr := parse(src)
	if perr != nil {
		perr.File = name
		return nil, ErrorList{perr}
	}
	rs := &Rules{Name: name}
	var errs ErrorList
	seen := make(map[string]*ruleDecl)
	for _, d := range decls {
		if first, dup := seen[d.name]; dup {
			errs = append(errs, &Error{Line: d.pos.line, Column: d.pos.col, Rule: d.name, Err: ErrDuplicateRule,
				Detail: fmt.Sprintf("first defined at line %d", first.pos.line)})
			continue
		}
		seen[d.name] = d
		r, website, rerrs := compileRule(d)
		errs = append(errs, rerrs...)
		if website {
			rs.Website = append(rs.Website, r)
		} else {
			rs.Domain = append(rs.Domain, r)
		}
	}
	if len(errs) > 0 {
		for _, e := range errs {
			e.File = name
		}
		return nil, errs
	}
	return rs, nil
}

func compileRule(d *ruleDecl) (*Rule, bool, ErrorList) {
	var errs ErrorList
	fail := func(at pos, variable string, err error, format string, args ...any) {
		errs = append(errs, &Error{Line: at.line, Column: at.col, Rule: d.name, Variable: variable, Err: err,
			Detail: fmt.Sprintf(format, args...)})
	}
	r := &Rule{Name: d.name, Line: d.pos.line}
	website := len(d.settings) > 0
	for _, v := range d.vars {
		website = website || v.part != partBare
	}
	if len(d.vars) == 0 && len(d.settings) == 0 {
		fail(d.pos, "", ErrEmptyRule, "a rule needs at least one variable")
		return r, website, errs
	}
	defaultNS, bare, sep := "domain", partDomain, `\.`
	if website {
		defaultNS, bare, sep = "website", partPath, "/"
	}

	var pattern strings.Builder
	pattern.WriteString("^")
	group := 1
	seen := make(map[string]pos)
	for _, vd := range d.vars {
		full := vd.name
		if len(full) == 1 {
			full = []string{defaultNS, full[0]}
		}
		v := &variable{
			name:     full[len(full)-1],
			qname:    strings.Join(full, "::"),
			official: full[0] == "canonalize",
			fn:       vd.fn,
			required: vd.required,
			part:     vd.part,
		}
		if v.part == partBare {
			v.part = bare
		}
		if v.fn == fnFlag {
			v.def = vd.second
			if v.part != partQuery {
				// Values are read without the separator that ends them; so
				// are defaults ("1.0." gives "1.0").
				v.def = strings.TrimSuffix(v.def, sep[len(sep)-1:])
			}
		}
		if first, dup := seen[v.qname]; dup {
			fail(vd.pos, v.qname, ErrDuplicateVariable, "first declared at line %d, column %d", first.line, first.col)
			continue
		}
		seen[v.qname] = vd.pos
		switch vd.fn {
		case fnWebsite:
			v.canonical = vd.second
		case fnFlag:
			if vd.required && vd.hasSecond {
				fail(vd.secondPos, v.qname, ErrRequiredDefault, "a required flag always has a value; remove the default %q", vd.second)
			}
		}
		re, err := regexp.Compile("(?:" + vd.pattern + ")")
		if err != nil {
			fail(vd.patternPos, v.qname, ErrRegexp, "%s", regexpDetail(err))
			continue
		}
		v.inner = re.NumSubexp() > 0
		if v.part == partQuery {
			v.re = regexp.MustCompile("^(?:" + vd.pattern + ")$")
			r.query = append(r.query, v)
			continue
		}
		piece := "(?:" + vd.pattern + ")"
		if !mustEndWith(vd.pattern, rune(sep[len(sep)-1])) {
			piece += sep
		}
		switch {
		case vd.required:
			piece = "(" + piece + ")"
		case v.part == partDomain:
			// As the document says: "(|" before, ")" after. Anchored at both
			// ends, the empty choice is taken only when the rest matches.
			piece = "(|" + piece + ")"
		default:
			// In the path an open remainder follows, so the empty choice
			// would always win: prefer the variable.
			piece = "(" + piece + "|)"
		}
		v.group = group
		group += 1 + re.NumSubexp()
		pattern.WriteString(piece)
		r.vars = append(r.vars, v)
	}
	if website {
		pattern.WriteString("(?s)(.*)")
	}
	pattern.WriteString("$")

	var protocolAt, portAt *pos
	for _, s := range d.settings {
		first := &protocolAt
		if s.name == "port" {
			first = &portAt
		}
		if *first != nil {
			fail(s.pos, s.name, ErrDuplicateSetting, "first set at line %d, column %d", (*first).line, (*first).col)
			continue
		}
		at := s.pos
		*first = &at
		if s.name == "port" {
			re, err := regexp.Compile("^(?:" + s.value + ")$")
			if err != nil {
				fail(s.vpos, "port", ErrRegexp, "%s", regexpDetail(err))
				continue
			}
			r.port = re
			continue
		}
		for _, c := range strings.Split(s.value, "|") {
			c = strings.ToUpper(strings.TrimSpace(c))
			if c == "ANY" {
				r.protocols = nil
				break
			}
			r.protocols = append(r.protocols, c)
		}
	}
	if len(errs) > 0 {
		return r, website, errs
	}
	re, err := regexp.Compile(pattern.String())
	if err != nil { // each part compiled alone; this is a bug, not the user's
		fail(d.pos, "", ErrRegexp, "%s", regexpDetail(err))
		return r, website, errs
	}
	r.re = re
	return r, website, nil
}

func regexpDetail(err error) string {
	msg := err.Error()
	if strings.Contains(msg, "invalid or unsupported Perl syntax") || strings.Contains(msg, "invalid escape sequence") {
		msg += " (patterns are Go RE2: no lookahead, lookbehind or backreferences)"
	}
	return msg
}

// mustEndWith reports whether every string the pattern matches ends in c.
func mustEndWith(pattern string, c rune) bool {
	re, err := syntax.Parse(pattern, syntax.Perl)
	return err == nil && endsWith(re, c)
}

func endsWith(re *syntax.Regexp, c rune) bool {
	switch re.Op {
	case syntax.OpLiteral:
		return len(re.Rune) > 0 && re.Rune[len(re.Rune)-1] == c
	case syntax.OpCharClass:
		return len(re.Rune) == 2 && re.Rune[0] == c && re.Rune[1] == c
	case syntax.OpCapture, syntax.OpPlus:
		return endsWith(re.Sub[0], c)
	case syntax.OpRepeat:
		return re.Min >= 1 && endsWith(re.Sub[0], c)
	case syntax.OpConcat:
		for i := len(re.Sub) - 1; i >= 0; i-- {
			switch re.Sub[i].Op {
			case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
				syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
				continue
			}
			return endsWith(re.Sub[i], c)
		}
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if !endsWith(sub, c) {
				return false
			}
		}
		return true
	}
	return false
}
