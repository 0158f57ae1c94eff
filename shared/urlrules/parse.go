package urlrules

import "strings"

// The syntax tree of a script, as written.

// part is where in the URL a variable matches.
type part int

const (
	partBare   part = iota // no keyword: domain in a domain rule, path in a website rule
	partDomain             // sub-domains
	partPath               // path segments
	partQuery              // query parameters
)

// function is how a variable's value is used.
type function int

const (
	fnGroup   function = iota // a plain string: a group of websites, the value used as is
	fnWebsite                 // website(pattern, canonical): always the canonical string
	fnFlag                    // flag(pattern[, default]): an option
)

type varDecl struct {
	pos        pos
	name       []string // qualified name, namespaces of enclosing blocks included
	part       part
	required   bool
	fn         function
	pattern    string
	patternPos pos
	second     string // website's canonical string, or flag's default
	hasSecond  bool
	secondPos  pos
}

type settingDecl struct {
	pos   pos
	name  string // "protocol" or "port"
	value string
	vpos  pos
}

type ruleDecl struct {
	name     string
	pos      pos
	vars     []*varDecl
	settings []*settingDecl
}

type parser struct {
	s    *scanner
	tok  token
	ns   []string // enclosing namespace blocks
	rule string   // the rule being parsed, for errors
}

// parse reads a whole script. It stops at the first syntax error.
func parse(src []byte) ([]*ruleDecl, *Error) {
	p := &parser{s: newScanner(src)}
	p.next()
	var rules []*ruleDecl
	for p.tok.kind != tokEOF && p.s.err == nil {
		r := p.parseRule()
		if p.s.err != nil {
			break
		}
		rules = append(rules, r)
	}
	if p.s.err != nil {
		return nil, p.s.err
	}
	if len(rules) == 0 {
		return nil, &Error{Line: p.tok.pos.line, Column: p.tok.pos.col, Err: ErrSyntax, Detail: "no rules"}
	}
	return rules, nil
}

func (p *parser) next() { p.tok = p.s.next() }

func (p *parser) fail(format string, args ...any) {
	p.s.fail(p.tok.pos, format, args...)
	if p.s.err.Rule == "" {
		p.s.err.Rule = p.rule
	}
	p.tok = token{kind: tokEOF, pos: p.tok.pos}
}

func (p *parser) is(text string) bool {
	return (p.tok.kind == tokPunct || p.tok.kind == tokIdent) && p.tok.text == text
}

func (p *parser) expect(text string) pos {
	at := p.tok.pos
	if !p.is(text) {
		p.fail("expected %q, found %v", text, p.tok)
	}
	p.next()
	return at
}

func (p *parser) optional(text string) {
	if p.is(text) {
		p.next()
	}
}

// name reads one name of the grammar: [a-z_][a-z0-9_]*.
func (p *parser) name(what string) (string, pos) {
	t := p.tok
	if t.kind != tokIdent {
		p.fail("expected %s name, found %v", what, t)
		return "", t.pos
	}
	if strings.ToLower(t.text) != t.text {
		p.fail("invalid %s name %q: names are [a-z_][a-z0-9_]*", what, t.text)
		return "", t.pos
	}
	p.next()
	return t.text, t.pos
}

// str reads a string; adjacent strings are joined, as in C.
func (p *parser) str(what string) (string, pos) {
	t := p.tok
	if t.kind != tokString {
		p.fail("expected %s string, found %v", what, t)
		return "", t.pos
	}
	var b strings.Builder
	for p.tok.kind == tokString {
		b.WriteString(p.tok.text)
		p.next()
	}
	return b.String(), t.pos
}

// rule: name '{' statement* '}' [';']
func (p *parser) parseRule() *ruleDecl {
	p.rule = ""
	name, at := p.name("rule")
	r := &ruleDecl{name: name, pos: at}
	p.rule = name
	p.expect("{")
	p.statements(r, "}")
	p.expect("}")
	p.optional(";")
	return r
}

func (p *parser) statements(r *ruleDecl, end string) {
	for p.s.err == nil && !p.is(end) {
		if p.tok.kind == tokEOF {
			p.fail("expected %q, found end of file", end)
			return
		}
		p.statement(r)
	}
}

// statement: namespace block, protocol or port setting, or a variable.
func (p *parser) statement(r *ruleDecl) {
	t := p.tok
	if t.kind != tokIdent {
		p.fail("expected optional, required, path, query, protocol, port or namespace, found %v", t)
		return
	}
	switch t.text {
	case "namespace":
		p.next()
		name, _ := p.name("namespace")
		p.expect("{")
		p.ns = append(p.ns, name)
		p.statements(r, "}")
		p.ns = p.ns[:len(p.ns)-1]
		p.expect("}")
		p.optional(";")
	case "protocol":
		p.next()
		p.expect("=")
		vpos := p.tok.pos
		var choices []string
		for {
			switch p.tok.kind {
			case tokIdent:
				choices = append(choices, p.tok.text)
				p.next()
			case tokString:
				s, _ := p.str("protocol")
				choices = append(choices, strings.Split(s, "|")...)
			default:
				p.fail("expected HTTP, HTTPS or any, found %v", p.tok)
				return
			}
			if !p.is("|") {
				break
			}
			p.next()
		}
		for _, c := range choices {
			switch strings.ToUpper(strings.TrimSpace(c)) {
			case "HTTP", "HTTPS", "ANY":
			default:
				p.s.fail(vpos, "protocol must be HTTP, HTTPS, HTTP|HTTPS or any, not %q", c)
				p.s.err.Rule = p.rule
				return
			}
		}
		r.settings = append(r.settings, &settingDecl{pos: t.pos, name: "protocol", value: strings.Join(choices, "|"), vpos: vpos})
		p.expect(";")
	case "port":
		p.next()
		p.expect("=")
		v, vpos := p.str("port")
		r.settings = append(r.settings, &settingDecl{pos: t.pos, name: "port", value: v, vpos: vpos})
		p.expect(";")
	case "path", "query":
		p.next()
		pt := partPath
		if t.text == "query" {
			pt = partQuery
		}
		p.variable(r, pt)
	case "optional", "required":
		p.variable(r, partBare)
	default:
		p.fail("expected optional, required, path, query, protocol, port or namespace, found %v", t)
	}
}

// variable: ('optional' | 'required') qualified_name '=' value ';'
func (p *parser) variable(r *ruleDecl, pt part) {
	if !p.is("optional") && !p.is("required") {
		p.fail("expected optional or required, found %v", p.tok)
		return
	}
	v := &varDecl{part: pt, required: p.tok.text == "required"}
	p.next()
	v.pos = p.tok.pos
	v.name = append([]string(nil), p.ns...)
	for {
		n, _ := p.name("variable")
		v.name = append(v.name, n)
		if p.s.err != nil || !p.is("::") {
			break
		}
		p.next()
	}
	p.expect("=")
	switch {
	case p.tok.kind == tokString:
		v.pattern, v.patternPos = p.str("pattern")
	case p.is("website") || p.is("flag"):
		v.fn = fnWebsite
		if p.tok.text == "flag" {
			v.fn = fnFlag
		}
		fn := p.tok.text
		p.next()
		p.expect("(")
		v.pattern, v.patternPos = p.str(fn + "() pattern")
		if v.fn == fnWebsite || p.is(",") {
			p.expect(",")
			what := "website() canonical"
			if v.fn == fnFlag {
				what = "flag() default"
			}
			v.second, v.secondPos = p.str(what)
			v.hasSecond = true
		}
		p.expect(")")
	default:
		p.fail("expected a string, website(...) or flag(...), found %v", p.tok)
		return
	}
	p.expect(";")
	r.vars = append(r.vars, v)
}

func (v *varDecl) qualified() string { return strings.Join(v.name, "::") }
