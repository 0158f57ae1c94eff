package search

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// A Token is one searchable unit of a text: a folded word, or a pair of CJK
// characters.
type Token struct {
	// Term is the folded form the index keys: NFKD, without combining marks,
	// case-folded ("Zürich" and "ZURICH" are both "zurich"); for CJK, NFKC.
	Term string
	// Start and End are the token's byte offsets in the text.
	Start, End int
	// Pos is the token's position: consecutive tokens have consecutive positions.
	Pos int
	// Prefix marks, in a query, a lone CJK character: it matches the terms that
	// begin with it.
	Prefix bool
}

// Tokenize splits text into tokens, as the index does.
//
// Words are found by Unicode word boundaries (UAX #29, simplified): a word is a
// run of letters, digits, combining marks and connector punctuation, with "."
// and "," inside numbers ("3.14", "1,000") and "·" between letters kept; other
// punctuation, apostrophes and hyphens included, separates words. A run of Han,
// Hiragana, Katakana or Hangul characters, written without spaces, becomes its
// overlapping bigrams ("東京都" is 東京, 京都) and then its last character alone,
// so that every character of it begins some token and a one-character query
// finds it by prefix; a lone character is a unigram.
func Tokenize(text string) []Token {
	return appendTokens(nil, text, false)
}

// queryTokens tokenizes a query word or phrase: a CJK run of two or more gives
// only its bigrams (its trailing unigram's position is kept free, to line up
// with a document's), a lone CJK character a prefix token.
func queryTokens(text string) []Token {
	return appendTokens(nil, text, true)
}

// class is a rune's part in a word.
type class uint8

const (
	clOther  class = iota
	clLetter       // letters, marks, connector punctuation
	clDigit        // decimal digits and other numbers
	clMidNum       // . , ; inside a number
	clMidLet       // · inside a word
	clCJK          // Han, Hiragana, Katakana, Hangul
	clExtend       // combining marks, joiners, variation selectors: part of the previous character
)

// asciiClass classifies ASCII bytes without tables.
var asciiClass [128]class

func init() {
	for c := 'a'; c <= 'z'; c++ {
		asciiClass[c] = clLetter
		asciiClass[c-'a'+'A'] = clLetter
	}
	for c := '0'; c <= '9'; c++ {
		asciiClass[c] = clDigit
	}
	asciiClass['_'] = clLetter
	asciiClass['.'] = clMidNum
	asciiClass[','] = clMidNum
	asciiClass[';'] = clMidNum
}

// cjk are the scripts written without spaces that are indexed by bigrams.
var cjk = []*unicode.RangeTable{unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul}

func classOf(r rune) class {
	if r < utf8.RuneSelf {
		return asciiClass[r]
	}
	switch {
	case r == 0x200c || r == 0x200d || unicode.Is(unicode.Variation_Selector, r) || r == 0xff9e || r == 0xff9f:
		return clExtend
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Mc):
		return clExtend
	case r == 0x30fc || r == 0xff70 || r == 0x3005 || r == 0x3006 || unicode.In(r, cjk...):
		return clCJK
	case unicode.IsLetter(r) || unicode.Is(unicode.Pc, r):
		return clLetter
	case unicode.IsNumber(r):
		return clDigit
	case r == 0x00b7 || r == 0x0387 || r == 0x05f4 || r == 0x2027:
		return clMidLet
	case r == 0x066c || r == 0xfe50 || r == 0xfe52 || r == 0xff0c || r == 0xff0e:
		return clMidNum
	}
	return clOther
}

// appendTokens appends the tokens of text to dst.
func appendTokens(dst []Token, text string, query bool) []Token {
	if dst == nil {
		// About one token in four to seven bytes of text: growing the slice would
		// otherwise cost more than tokenizing.
		dst = make([]Token, 0, len(text)/4+1)
	}
	pos := 0
	if len(dst) > 0 {
		pos = dst[len(dst)-1].Pos + 1
	}
	// The CJK run being read: the byte offsets where its characters start, and
	// where the run ends.
	var cjkStarts []int
	flushCJK := func(end int) {
		n := len(cjkStarts)
		if n == 0 {
			return
		}
		unit := func(i int) int { // end of character i
			if i+1 < n {
				return cjkStarts[i+1]
			}
			return end
		}
		if n == 1 {
			dst = append(dst, Token{Term: foldCJK(text[cjkStarts[0]:end]), Start: cjkStarts[0], End: end, Pos: pos, Prefix: query})
			pos++
		} else {
			for i := 0; i+1 < n; i++ {
				s, e := cjkStarts[i], unit(i+1)
				dst = append(dst, Token{Term: foldCJK(text[s:e]), Start: s, End: e, Pos: pos})
				pos++
			}
			if !query {
				s := cjkStarts[n-1]
				dst = append(dst, Token{Term: foldCJK(text[s:end]), Start: s, End: end, Pos: pos})
			}
			pos++
		}
		cjkStarts = cjkStarts[:0]
	}
	i := 0
	for i < len(text) {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		c := classOf(r)
		switch c {
		case clCJK:
			cjkStarts = append(cjkStarts, i)
			i += size
			continue
		case clExtend:
			// Part of the previous character (or word) whatever it is.
			i += size
			continue
		case clLetter, clDigit:
		default:
			flushCJK(i)
			i += size
			continue
		}
		flushCJK(i)
		// A word: letters, digits, and the joiners between them.
		start := i
		prev := c
		ascii := r < utf8.RuneSelf
		i += size
		for i < len(text) {
			r, size := rune(text[i]), 1
			if r >= utf8.RuneSelf {
				r, size = utf8.DecodeRuneInString(text[i:])
			}
			c := classOf(r)
			switch c {
			case clLetter, clDigit:
				prev = c
				if size > 1 {
					ascii = false
				}
				i += size
				continue
			case clExtend:
				ascii = false
				i += size
				continue
			case clMidNum, clMidLet:
				// A joiner stays if the characters either side are digits (MidNum)
				// or letters (MidLet).
				if i+size < len(text) {
					r2, _ := utf8.DecodeRuneInString(text[i+size:])
					c2 := classOf(r2)
					if c == clMidNum && prev == clDigit && c2 == clDigit || c == clMidLet && prev == clLetter && c2 == clLetter {
						if size > 1 {
							ascii = false
						}
						i += size
						continue
					}
				}
			}
			break
		}
		word := text[start:i]
		term := fold(word, ascii)
		if term != "" {
			dst = append(dst, Token{Term: term, Start: start, End: i, Pos: pos})
			pos++
		}
	}
	flushCJK(len(text))
	return dst
}

// Fold returns the folded form of s as the index keys it: NFKD, combining marks
// removed, case-folded, and a few letters that have no decomposition mapped to
// their base (ø, ł, đ, ħ, ı).
func Fold(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	return fold(s, ascii)
}

func fold(word string, ascii bool) string {
	if ascii {
		for i := 0; i < len(word); i++ {
			if c := word[i]; 'A' <= c && c <= 'Z' {
				return strings.ToLower(word)
			}
		}
		return word
	}
	// NFKD, then per character: combining marks dropped, the letters NFKD
	// leaves whole reduced, case folded. (Unicode's full case folding differs
	// from lower-casing in a few letters, handled here; the same code folds
	// documents and queries, so what remains only matters for consistency.)
	var buf [64]byte
	d := norm.NFKD.AppendString(buf[:0], word)
	out := make([]byte, 0, len(d))
	for i := 0; i < len(d); {
		r, size := utf8.DecodeRune(d[i:])
		i += size
		if r >= 0x300 && unicode.Is(unicode.Mn, r) {
			continue
		}
		switch r = baseLetter(r); r {
		case 'ß', 'ẞ':
			out = append(out, "ss"...)
			continue
		case 'ς':
			r = 'σ'
		}
		out = utf8.AppendRune(out, unicode.ToLower(r))
	}
	return string(out)
}

// baseLetter maps the letters folding should reduce but NFKD does not
// decompose.
func baseLetter(r rune) rune {
	switch r {
	case 'ø', 'Ø':
		return 'o'
	case 'ł', 'Ł':
		return 'l'
	case 'đ', 'Đ':
		return 'd'
	case 'ħ', 'Ħ':
		return 'h'
	case 'ı':
		return 'i'
	}
	return r
}

// foldCJK folds CJK characters: NFKC (half-width katakana to full-width,
// compatibility ideographs to their unified forms), marks kept.
func foldCJK(s string) string {
	if norm.NFKC.IsNormalString(s) {
		return s
	}
	return norm.NFKC.String(s)
}
