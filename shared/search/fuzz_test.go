package search

import (
	"errors"
	"maps"
	"math"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParseQuery: a query parses or fails with an error; one that parses
// prints (String) as a query that parses to the same.
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{
		"Zürich lake", `"exact phrase" -word -"not this"`, "site:example.com method:POST status:4xx",
		"from:2024-01-01 to:2024-02 cats", `session:"my session" -type:image status:200-299`,
		"10:30 http://example.com/x - ---", "东京都 都", `a"b c"d`, `"unclosed`, "color:red", "from:2024-13-01",
		"status:", `site:""`, "-", `-"`, "- -x --y", "status:2xx-300", "to:2024-02-29T10:00:00Z",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := ParseQuery(s)
		if err != nil {
			if se, ok := err.(*SyntaxError); ok && (se.Offset < 0 || se.Offset > len(s) || !strings.Contains(s, se.Token)) {
				t.Fatalf("%q: error %+v names a token that is not in the query", s, se)
			}
			return
		}
		for _, c := range q.Clauses {
			if len(c.Tokens) == 0 {
				t.Fatalf("%q: clause %+v without tokens", s, c)
			}
		}
		again, err := ParseQuery(q.String())
		if err != nil {
			t.Fatalf("%q printed as %q, which does not parse: %v", s, q.String(), err)
		}
		if !reflect.DeepEqual(q, again) {
			t.Fatalf("%q printed as %q parses as\n%+v, not\n%+v", s, q.String(), again, q)
		}
	})
}

// FuzzTokenize: tokens lie in the text, in order, with consecutive positions
// (but for a CJK run's trailing unigram), and their terms are folded.
func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"Zürich ZÜRICH", "東京都庁に行く", "ｶﾞｷﾞ カ\u3099", "서울 특별시", "3.14 1,000 e-mail", "ǅ Ⅻ ﬁ İ", "a\u0301\u0301b", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		toks := Tokenize(s)
		for i, tk := range toks {
			if tk.Start < 0 || tk.End > len(s) || tk.Start >= tk.End {
				t.Fatalf("%q: token %+v outside the text", s, tk)
			}
			if tk.Term == "" || !utf8.ValidString(tk.Term) && utf8.ValidString(s[tk.Start:tk.End]) {
				t.Fatalf("%q: token %+v", s, tk)
			}
			if i > 0 && (tk.Pos < toks[i-1].Pos || tk.Pos > toks[i-1].Pos+1 || tk.Start < toks[i-1].Start) {
				t.Fatalf("%q: token %+v after %+v", s, tk, toks[i-1])
			}
			if utf8.ValidString(tk.Term) {
				if f := Fold(tk.Term); f != tk.Term && classOf(firstRune(tk.Term)) != clCJK {
					t.Fatalf("%q: term %q folds again to %q", s, tk.Term, f)
				}
			}
		}
		if q := queryTokens(s); len(q) > len(toks) {
			t.Fatalf("%q: %d query tokens, %d tokens", s, len(q), len(toks))
		}
	})
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

// FuzzExtractHTML: any input extracts to valid UTF-8 within the limit, and
// nothing of a script element.
func FuzzExtractHTML(f *testing.F) {
	for _, s := range []string{
		"<title>T</title><p>Body <b>bold</b></p>", "<script>secret()</script><p>x", "<template><template>a</template>b</template>c",
		"<head><meta charset=shift_jis></head>\x93\x8c", "<p>a\xffb", "<title>unclosed", "<!-- c --><![CDATA[x]]><svg><title>s</title></svg>",
	} {
		f.Add(s, int64(0))
		f.Add(s, int64(3))
	}
	f.Fuzz(func(t *testing.T, body string, limit int64) {
		d, err := Extract("text/html", strings.NewReader(body), limit)
		if err != nil {
			t.Fatal(err)
		}
		if !utf8.ValidString(d.Text) || !utf8.ValidString(d.Title) {
			t.Fatalf("%q: invalid UTF-8 %q %q", body, d.Title, d.Text)
		}
		if limit > 0 && int64(len(d.Text)) > limit {
			t.Fatalf("%q: %d bytes of text, limit %d", body, len(d.Text), limit)
		}
		if strings.Contains(d.Text, "\n\n") || strings.Contains(d.Text, "  ") {
			t.Fatalf("%q: white space not collapsed: %q", body, d.Text)
		}
	})
}

// FuzzDecodeCommon checks that any value of the key "c" decodes or is said
// corrupt, and that what decodes encodes to itself.
func FuzzDecodeCommon(f *testing.F) {
	f.Add(encodeCommon(map[string]DocID{"the": 512, "of": 1024, "京都": 7}))
	f.Add([]byte{1, 3, 'a', 1, 'b', 0})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, v []byte) {
		common, err := decodeCommon(v)
		if err != nil {
			if !errors.Is(err, errCorrupt) {
				t.Fatalf("%x: %v is not a corrupt value", v, err)
			}
			return
		}
		again, err := decodeCommon(encodeCommon(common))
		if err != nil || !maps.Equal(again, common) {
			t.Fatalf("%x: %v encodes to %v, %v", v, common, again, err)
		}
	})
}

// FuzzDecodeBlock checks that any posting block decodes or is said corrupt,
// and that a cursor walks or seeks through it without a panic or a hang.
func FuzzDecodeBlock(f *testing.F) {
	var p postings
	for d := DocID(7); d < 200; d += 3 {
		p.add(d, []uint32{1, uint32(d)})
	}
	f.Add(p.encodeBlock(blockHeader{front: frontier{{tf: 2, dl: 10}}}), uint32(50))
	var short postings
	short.add(3, []uint32{0})
	f.Add(short.encodeBlock(blockHeader{front: frontier{{tf: 1, dl: 1}}}), uint32(3))
	f.Add([]byte{0, 0, 2, 1, 2}, uint32(1))
	f.Fuzz(func(t *testing.T, v []byte, seek uint32) {
		var p postings
		if err := p.decodeBlock(v); err != nil && !errors.Is(err, errCorrupt) {
			t.Fatalf("%x: %v is not a corrupt block", v, err)
		}
		for _, target := range []DocID{DocID(seek), DocID(seek) * 2, math.MaxUint32} {
			c := cursor{blocks: []*blockRef{{key: "t/x\x00~", value: v}}}
			c.find(target)
			for i := 0; c.next(); i++ {
				if i > len(v) {
					t.Fatalf("%x: more entries than bytes", v)
				}
			}
		}
	})
}
