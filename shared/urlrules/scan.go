package urlrules

import "fmt"

type tokenKind int

const (
	tokEOF tokenKind = iota
	tokIdent
	tokString
	tokPunct // { } ( ) , ; = | ::
)

type pos struct{ line, col int }

type token struct {
	kind tokenKind
	text string // identifier, punctuation, or the string's value with escapes applied
	pos  pos
}

func (t token) String() string {
	switch t.kind {
	case tokEOF:
		return "end of file"
	case tokString:
		return fmt.Sprintf("string %q", t.text)
	}
	return fmt.Sprintf("%q", t.text)
}

// scanner splits a script into tokens. Comments are C and C++ ones. Strings
// are in double or single quotes; \" (\' in single quotes) and \\ are the
// only escapes and every other backslash stays, so a regular expression reads
// as written ("w{1,4}\." keeps its "\.").
type scanner struct {
	src  []byte
	off  int
	line int
	col  int
	err  *Error // first error, set with the position
}

func newScanner(src []byte) *scanner { return &scanner{src: src, line: 1, col: 1} }

func (s *scanner) fail(p pos, format string, args ...any) {
	if s.err == nil {
		s.err = &Error{Line: p.line, Column: p.col, Err: ErrSyntax, Detail: fmt.Sprintf(format, args...)}
	}
}

func (s *scanner) advance(n int) {
	for ; n > 0 && s.off < len(s.src); n-- {
		if s.src[s.off] == '\n' {
			s.line, s.col = s.line+1, 1
		} else {
			s.col++
		}
		s.off++
	}
}

func (s *scanner) peekByte(i int) byte {
	if s.off+i < len(s.src) {
		return s.src[s.off+i]
	}
	return 0
}

// next returns the next token; after an error it returns tokEOF.
func (s *scanner) next() token {
	s.skipSpace()
	p := pos{s.line, s.col}
	if s.err != nil || s.off >= len(s.src) {
		return token{kind: tokEOF, pos: p}
	}
	c := s.src[s.off]
	switch {
	case isIdentStart(c):
		start := s.off
		for s.off < len(s.src) && (isIdentStart(s.src[s.off]) || '0' <= s.src[s.off] && s.src[s.off] <= '9') {
			s.advance(1)
		}
		return token{kind: tokIdent, text: string(s.src[start:s.off]), pos: p}
	case c == '"' || c == '\'':
		return s.string(p, c)
	case c == ':' && s.peekByte(1) == ':':
		s.advance(2)
		return token{kind: tokPunct, text: "::", pos: p}
	case c == '{' || c == '}' || c == '(' || c == ')' || c == ',' || c == ';' || c == '=' || c == '|':
		s.advance(1)
		return token{kind: tokPunct, text: string(c), pos: p}
	}
	s.fail(p, "unexpected character %q", rune(c))
	return token{kind: tokEOF, pos: p}
}

func isIdentStart(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' }

func (s *scanner) skipSpace() {
	for s.off < len(s.src) {
		switch c := s.src[s.off]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v':
			s.advance(1)
		case c == '/' && s.peekByte(1) == '/':
			for s.off < len(s.src) && s.src[s.off] != '\n' {
				s.advance(1)
			}
		case c == '/' && s.peekByte(1) == '*':
			p := pos{s.line, s.col}
			s.advance(2)
			for s.off < len(s.src) && !(s.src[s.off] == '*' && s.peekByte(1) == '/') {
				s.advance(1)
			}
			if s.off >= len(s.src) {
				s.fail(p, "comment not terminated")
				return
			}
			s.advance(2)
		default:
			return
		}
	}
}

func (s *scanner) string(p pos, quote byte) token {
	s.advance(1)
	var b []byte
	for {
		if s.off >= len(s.src) {
			s.fail(p, "string not terminated")
			return token{kind: tokEOF, pos: p}
		}
		c := s.src[s.off]
		switch {
		case c == quote:
			s.advance(1)
			return token{kind: tokString, text: string(b), pos: p}
		case c == '\n':
			s.fail(p, "newline in string")
			return token{kind: tokEOF, pos: p}
		case c == '\\' && (s.peekByte(1) == quote || s.peekByte(1) == '\\'):
			b = append(b, s.peekByte(1))
			s.advance(2)
		default:
			b = append(b, c)
			s.advance(1)
		}
	}
}
