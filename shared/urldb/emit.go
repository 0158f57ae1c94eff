package urldb

import (
	"cmp"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"unicode/utf8"
)

// emitter writes YAML exactly as PyYAML's yaml.dump_all(..., explicit_start=True,
// sort_keys=True) does with its defaults (indent 2, width 80, no unicode), which
// is how wwturldb writes its files. It follows the states of yaml/emitter.py for
// the events a safe_load'ed document produces; gopkg.in/yaml.v3's encoder indents
// lists and quotes differently, so it cannot reproduce the files.
type emitter struct {
	buf        []byte
	column     int
	indent     int // -1 stands for PyYAML's None
	indents    []int
	whitespace bool
	indention  bool
	flowLevel  int
}

const (
	bestIndent = 2
	bestWidth  = 80
)

func newEmitter() *emitter {
	return &emitter{indent: -1, whitespace: true, indention: true}
}

// document writes one explicit document ("---") holding v.
func (e *emitter) document(v any) {
	e.writeIndent()
	e.writeIndicator("---", true, false, false)
	e.node(v, true, false, false, false)
	e.writeIndent()
}

func (e *emitter) increaseIndent(flow, indentless bool) {
	e.indents = append(e.indents, e.indent)
	if e.indent < 0 {
		if flow {
			e.indent = bestIndent
		} else {
			e.indent = 0
		}
	} else if !indentless {
		e.indent += bestIndent
	}
}

func (e *emitter) popIndent() {
	e.indent = e.indents[len(e.indents)-1]
	e.indents = e.indents[:len(e.indents)-1]
}

func (e *emitter) node(v any, root, sequence, mapping, simpleKey bool) {
	switch v := v.(type) {
	case Map:
		if e.flowLevel > 0 || len(v) == 0 {
			e.flowCollection("{", "}", len(v))
			return
		}
		e.increaseIndent(false, false)
		for _, kv := range sortedMap(v) {
			e.writeIndent()
			if e.simpleKey(kv.Key) {
				e.node(kv.Key, false, false, true, true)
				e.writeIndicator(":", false, false, false)
				e.node(kv.Value, false, false, true, false)
			} else {
				e.writeIndicator("?", true, false, true)
				e.node(kv.Key, false, false, true, false)
				e.writeIndent()
				e.writeIndicator(":", true, false, true)
				e.node(kv.Value, false, false, true, false)
			}
		}
		e.popIndent()
	case []any:
		if e.flowLevel > 0 || len(v) == 0 {
			e.flowCollection("[", "]", len(v))
			return
		}
		e.increaseIndent(false, mapping && !e.indention)
		for _, item := range v {
			e.writeIndent()
			e.writeIndicator("-", true, false, true)
			e.node(item, false, true, false, false)
		}
		e.popIndent()
	default:
		text, isStr := scalarText(v)
		e.increaseIndent(true, false)
		e.scalar(text, !isStr || resolveKind(text) == kindStr, simpleKey)
		e.popIndent()
	}
}

// flowCollection writes an empty collection; the loader never gives non-empty
// ones in flow style to a block-style dump.
func (e *emitter) flowCollection(open, close string, n int) {
	e.writeIndicator(open, true, true, false)
	e.flowLevel++
	e.increaseIndent(true, false)
	if n != 0 {
		panic("urldb: non-empty flow collection")
	}
	e.popIndent()
	e.flowLevel--
	e.writeIndicator(close, false, false, false)
}

// simpleKey is PyYAML's check_simple_key for a scalar key.
func (e *emitter) simpleKey(key any) bool {
	switch key.(type) {
	case Map, []any:
		return false
	}
	text, _ := scalarText(key)
	if simplePlain(text) {
		return len(text)+len(tagOf(key)) < 128
	}
	a := analyzeScalar(text)
	// PyYAML counts the length of the (unwritten) tag, e.g. "!!str", too.
	return utf8.RuneCountInString(text)+len(tagOf(key)) < 128 && !a.empty && !a.multiline
}

// tagOf returns the short form of the tag PyYAML's representer gives a scalar.
func tagOf(v any) string {
	switch v.(type) {
	case nil:
		return "!!null"
	case bool:
		return "!!bool"
	case int64, *big.Int:
		return "!!int"
	case float64:
		return "!!float"
	case Timestamp:
		return "!!timestamp"
	}
	return "!!str"
}

// scalar chooses the style as choose_scalar_style does and writes the text.
func (e *emitter) scalar(text string, implicitPlain, simpleKey bool) {
	if implicitPlain && e.flowLevel == 0 && simplePlain(text) {
		if !e.whitespace {
			e.buf = append(e.buf, ' ')
			e.column++
		}
		e.whitespace, e.indention = false, false
		e.buf = append(e.buf, text...)
		e.column += len(text)
		return
	}
	a := analyzeScalar(text)
	split := !simpleKey
	switch {
	case implicitPlain && !(simpleKey && (a.empty || a.multiline)) &&
		(e.flowLevel > 0 && a.allowFlowPlain || e.flowLevel == 0 && a.allowBlockPlain):
		e.writePlain(text, split)
	case a.allowSingleQuoted && !(simpleKey && a.multiline):
		e.writeSingleQuoted(text, split)
	default:
		e.writeDoubleQuoted(text, split)
	}
}

// simplePlain reports whether analyzeScalar certainly allows a block plain
// scalar for text and writePlain writes it as it is: printable ASCII without
// spaces, no indicator first, no ": " or " #" (so no folding either). It is the
// fast path for paths, types and digests.
func simplePlain(text string) bool {
	if text == "" || strings.IndexByte("#,[]{}&*!|>'\"%@`-?:.", text[0]) >= 0 {
		return false
	}
	for i := 0; i < len(text); i++ {
		if c := text[i]; c <= ' ' || c > '~' {
			return false
		}
	}
	return text[len(text)-1] != ':'
}

type scalarAnalysis struct {
	empty, multiline                                   bool
	allowFlowPlain, allowBlockPlain, allowSingleQuoted bool
}

func isBreak(r rune) bool  { return r == '\n' || r == '\x85' || r == '\u2028' || r == '\u2029' }
func isBlankZ(r rune) bool { return r == 0 || r == ' ' || r == '\t' || r == '\r' || isBreak(r) }

// analyzeScalar is PyYAML's analyze_scalar with allow_unicode false.
func analyzeScalar(s string) scalarAnalysis {
	if s == "" {
		return scalarAnalysis{empty: true, allowBlockPlain: true, allowSingleQuoted: true}
	}
	rs := []rune(s)
	var blockInd, flowInd, lineBreaks, special bool
	var leadingSpace, leadingBreak, trailingSpace, trailingBreak, breakSpace, spaceBreak bool
	if strings.HasPrefix(s, "---") || strings.HasPrefix(s, "...") {
		blockInd, flowInd = true, true
	}
	precededByWS := true
	followedByWS := len(rs) == 1 || isBlankZ(rs[1])
	prevSpace, prevBreak := false, false
	for i, ch := range rs {
		if i == 0 {
			if strings.ContainsRune("#,[]{}&*!|>'\"%@`", ch) {
				flowInd, blockInd = true, true
			}
			if ch == '?' || ch == ':' {
				flowInd = true
				if followedByWS {
					blockInd = true
				}
			}
			if ch == '-' && followedByWS {
				flowInd, blockInd = true, true
			}
		} else {
			if strings.ContainsRune(",?[]{}", ch) {
				flowInd = true
			}
			if ch == ':' {
				flowInd = true
				if followedByWS {
					blockInd = true
				}
			}
			if ch == '#' && precededByWS {
				flowInd, blockInd = true, true
			}
		}
		if isBreak(ch) {
			lineBreaks = true
		}
		if !(ch == '\n' || ch >= 0x20 && ch <= 0x7e) {
			special = true // non-ASCII is special without allow_unicode
		}
		switch {
		case ch == ' ':
			if i == 0 {
				leadingSpace = true
			}
			if i == len(rs)-1 {
				trailingSpace = true
			}
			if prevBreak {
				breakSpace = true
			}
			prevSpace, prevBreak = true, false
		case isBreak(ch):
			if i == 0 {
				leadingBreak = true
			}
			if i == len(rs)-1 {
				trailingBreak = true
			}
			if prevSpace {
				spaceBreak = true
			}
			prevSpace, prevBreak = false, true
		default:
			prevSpace, prevBreak = false, false
		}
		precededByWS = isBlankZ(ch)
		followedByWS = i+2 >= len(rs) || isBlankZ(rs[i+2])
	}
	a := scalarAnalysis{multiline: lineBreaks, allowFlowPlain: true, allowBlockPlain: true, allowSingleQuoted: true}
	if leadingSpace || leadingBreak || trailingSpace || trailingBreak {
		a.allowFlowPlain, a.allowBlockPlain = false, false
	}
	if breakSpace {
		a.allowFlowPlain, a.allowBlockPlain, a.allowSingleQuoted = false, false, false
	}
	if spaceBreak || special {
		a.allowFlowPlain, a.allowBlockPlain, a.allowSingleQuoted = false, false, false
	}
	if lineBreaks {
		a.allowFlowPlain, a.allowBlockPlain = false, false
	}
	if flowInd {
		a.allowFlowPlain = false
	}
	if blockInd {
		a.allowBlockPlain = false
	}
	return a
}

func (e *emitter) write(s string) {
	e.buf = append(e.buf, s...)
	e.column += utf8.RuneCountInString(s)
}

func (e *emitter) writeIndicator(ind string, needWhitespace, whitespace, indention bool) {
	if !e.whitespace && needWhitespace {
		ind = " " + ind
	}
	e.whitespace = whitespace
	e.indention = e.indention && indention
	e.write(ind)
}

func (e *emitter) writeIndent() {
	indent := max(e.indent, 0)
	if !e.indention || e.column > indent || (e.column == indent && !e.whitespace) {
		e.writeLineBreak("\n")
	}
	if e.column < indent {
		e.whitespace = true
		e.write(strings.Repeat(" ", indent-e.column))
	}
}

func (e *emitter) writeLineBreak(br string) {
	e.whitespace = true
	e.indention = true
	e.buf = append(e.buf, br...)
	e.column = 0
}

// writeBreaks writes the line breaks of text[start:end] as the plain and single
// quoted writers do.
func (e *emitter) writeBreaks(rs []rune, start, end int) {
	if rs[start] == '\n' {
		e.writeLineBreak("\n")
	}
	for _, br := range rs[start:end] {
		e.writeLineBreak(string(br))
	}
	e.writeIndent()
}

func (e *emitter) writePlain(text string, split bool) {
	if text == "" {
		return
	}
	if !e.whitespace {
		e.write(" ")
	}
	e.whitespace, e.indention = false, false
	rs := []rune(text)
	spaces, breaks := false, false
	start := 0
	for end := 0; end <= len(rs); end++ {
		var ch rune = -1
		if end < len(rs) {
			ch = rs[end]
		}
		switch {
		case spaces:
			if ch != ' ' {
				if start+1 == end && e.column > bestWidth && split {
					e.writeIndent()
					e.whitespace, e.indention = false, false
				} else {
					e.write(string(rs[start:end]))
				}
				start = end
			}
		case breaks:
			if ch < 0 || !isBreak(ch) {
				e.writeBreaks(rs, start, end)
				e.whitespace, e.indention = false, false
				start = end
			}
		default:
			if ch < 0 || ch == ' ' || isBreak(ch) {
				e.write(string(rs[start:end]))
				start = end
			}
		}
		if ch >= 0 {
			spaces, breaks = ch == ' ', isBreak(ch)
		}
	}
}

func (e *emitter) writeSingleQuoted(text string, split bool) {
	e.writeIndicator("'", true, false, false)
	rs := []rune(text)
	spaces, breaks := false, false
	start := 0
	for end := 0; end <= len(rs); end++ {
		var ch rune = -1
		if end < len(rs) {
			ch = rs[end]
		}
		switch {
		case spaces:
			if ch != ' ' {
				if start+1 == end && e.column > bestWidth && split && start != 0 && end != len(rs) {
					e.writeIndent()
				} else {
					e.write(string(rs[start:end]))
				}
				start = end
			}
		case breaks:
			if ch < 0 || !isBreak(ch) {
				e.writeBreaks(rs, start, end)
				start = end
			}
		default:
			if ch < 0 || ch == ' ' || isBreak(ch) || ch == '\'' {
				if start < end {
					e.write(string(rs[start:end]))
					start = end
				}
			}
		}
		if ch == '\'' {
			e.write("''")
			start = end + 1
		}
		if ch >= 0 {
			spaces, breaks = ch == ' ', isBreak(ch)
		}
	}
	e.writeIndicator("'", false, false, false)
}

var escapeReplacements = map[rune]string{
	0: "0", '\x07': "a", '\x08': "b", '\t': "t", '\n': "n", '\x0b': "v", '\x0c': "f",
	'\r': "r", '\x1b': "e", '"': "\"", '\\': "\\", '\x85': "N", '\xa0': "_",
	'\u2028': "L", '\u2029': "P",
}

func (e *emitter) writeDoubleQuoted(text string, split bool) {
	e.writeIndicator("\"", true, false, false)
	rs := []rune(text)
	start := 0
	for end := 0; end <= len(rs); end++ {
		var ch rune = -1
		if end < len(rs) {
			ch = rs[end]
		}
		if ch < 0 || ch == '"' || ch == '\\' || ch == '\x85' || ch == '\u2028' || ch == '\u2029' ||
			ch == '\uFEFF' || !(ch >= 0x20 && ch <= 0x7e) {
			if start < end {
				e.write(string(rs[start:end]))
				start = end
			}
			if ch >= 0 {
				var data string
				if r, ok := escapeReplacements[ch]; ok {
					data = "\\" + r
				} else if ch <= 0xff {
					data = fmt.Sprintf("\\x%02X", ch)
				} else if ch <= 0xffff {
					data = fmt.Sprintf("\\u%04X", ch)
				} else {
					data = fmt.Sprintf("\\U%08X", ch)
				}
				e.write(data)
				start = end + 1
			}
		}
		if 0 < end && end < len(rs)-1 && (ch == ' ' || start >= end) &&
			e.column+(end-start) > bestWidth && split {
			data := "\\"
			if start < end { // Python's text[start:end] is empty when start > end
				data = string(rs[start:end]) + data
			}
			if start < end {
				start = end
			}
			e.write(data)
			e.writeIndent()
			e.whitespace, e.indention = false, false
			if rs[start] == ' ' {
				e.write("\\")
			}
		}
	}
	e.writeIndicator("\"", false, false, false)
}

// sortedMap orders the entries as PyYAML's sort_keys does: sorted when the keys
// are comparable in Python (all strings, or all numbers), else as they are.
func sortedMap(m Map) Map {
	allStr, allNum := true, true
	for _, kv := range m {
		switch kv.Key.(type) {
		case string:
			allNum = false
		case bool, int64, *big.Int, float64:
			allStr = false
		default:
			allStr, allNum = false, false
		}
	}
	if len(m) < 2 || !allStr && !allNum {
		return m
	}
	s := slices.Clone(m)
	if allStr {
		slices.SortStableFunc(s, func(a, b KeyValue) int { return cmp.Compare(a.Key.(string), b.Key.(string)) })
	} else {
		slices.SortStableFunc(s, func(a, b KeyValue) int { return numCompare(a.Key, b.Key) })
	}
	return s
}

func numCompare(a, b any) int {
	return toBigFloat(a).Cmp(toBigFloat(b))
}

func toBigFloat(v any) *big.Float {
	switch v := v.(type) {
	case bool:
		if v {
			return big.NewFloat(1)
		}
		return big.NewFloat(0)
	case int64:
		return new(big.Float).SetInt64(v)
	case *big.Int:
		return new(big.Float).SetInt(v)
	case float64:
		if v != v { // NaN compares as equal here; Python's sort would leave it unordered
			return big.NewFloat(0)
		}
		return big.NewFloat(v)
	}
	return big.NewFloat(0)
}
