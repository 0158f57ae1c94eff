package search

import (
	"slices"
	"testing"
)

func terms(toks []Token) []string {
	var s []string
	for _, t := range toks {
		s = append(s, t.Term)
	}
	return s
}

func TestTokenize(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"Zürich ZÜRICH zurich", []string{"zurich", "zurich", "zurich"}},
		{"Genève, Kraków and Łódź!", []string{"geneve", "krakow", "and", "lodz"}},
		{"Straße STRASSE", []string{"strasse", "strasse"}},
		{"ＦＵＬＬ width １２３", []string{"full", "width", "123"}},
		{"Ελληνικά Ἀθῆναι", []string{"ελληνικα", "αθηναι"}},
		{"Москва МОСКВА", []string{"москва", "москва"}},
		{"don't e-mail U.S.A. foo_bar", []string{"don", "t", "e", "mail", "u", "s", "a", "foo_bar"}},
		{"pi is 3.14, not 1,000.5; v2 x", []string{"pi", "is", "3.14", "not", "1,000.5", "v2", "x"}},
		{"东京都庁に行く", []string{"东京", "京都", "都庁", "庁に", "に行", "行く", "く"}},
		{"東京都", []string{"東京", "京都", "都"}},
		{"都 in 東京", []string{"都", "in", "東京", "京"}},
		{"ｶﾀｶﾅ", []string{"カタ", "タカ", "カナ", "ナ"}},
		{"서울 특별시", []string{"서울", "울", "특별", "별시", "시"}},
		{"…—“quoted” (paren) 🙂 #tag", []string{"quoted", "paren", "tag"}},
		{"", nil},
	}
	for _, tt := range tests {
		got := terms(Tokenize(tt.text))
		if !slices.Equal(got, tt.want) {
			t.Errorf("Tokenize(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestTokenPositions(t *testing.T) {
	text := "Zürich 東京都 end"
	toks := Tokenize(text)
	want := []struct {
		term, src string
		pos       int
	}{{"zurich", "Zürich", 0}, {"東京", "東京", 1}, {"京都", "京都", 2}, {"都", "都", 3}, {"end", "end", 4}}
	if len(toks) != len(want) {
		t.Fatalf("%+v", toks)
	}
	for i, w := range want {
		tk := toks[i]
		if tk.Term != w.term || text[tk.Start:tk.End] != w.src || tk.Pos != w.pos {
			t.Errorf("token %d: %+v (%q), want %+v", i, tk, text[tk.Start:tk.End], w)
		}
	}
	// A query's CJK run leaves its trailing unigram's position free, so that the
	// word after it lines up with a document's.
	q := queryTokens("東京都 end")
	if got := terms(q); !slices.Equal(got, []string{"東京", "京都", "end"}) || q[2].Pos != 3 {
		t.Errorf("query tokens %+v", q)
	}
	if q := queryTokens("都"); len(q) != 1 || !q[0].Prefix {
		t.Errorf("lone CJK character: %+v, want a prefix token", q)
	}
}

func TestFold(t *testing.T) {
	for in, want := range map[string]string{"ZÜRICH": "zurich", "Ǆ": "dz", "İstanbul": "istanbul", "ﬁne": "fine", "Ⅻ": "xii", "ǅ": "dz"} {
		if got := Fold(in); got != want {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
	}
}
