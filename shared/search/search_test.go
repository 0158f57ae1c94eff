package search

import (
	"slices"
	"testing"
)

// TestPhraseStarts checks where a phrase's tokens follow one another, given
// the positions of each in a document.
func TestPhraseStarts(t *testing.T) {
	tests := []struct {
		name   string
		phrase string
		pos    [][]uint32
		want   []uint32
	}{
		{"two tokens", "a b", [][]uint32{{1, 5, 9}, {2, 7, 10}}, []uint32{1, 9}},
		{"none", "a b", [][]uint32{{1, 5}, {1, 5}}, nil},
		{"three tokens", "a b c", [][]uint32{{0, 4, 8}, {1, 5, 9}, {2, 10}}, []uint32{0, 8}},
		{"the same token", "a a", [][]uint32{{3, 4, 5, 9}, {3, 4, 5, 9}}, []uint32{3, 4}},
		{"a token split in two", "e-mail me", [][]uint32{{6, 20}, {7, 21}, {8, 30}}, []uint32{6}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := ParseQuery(`"` + tt.phrase + `"`)
			if err != nil {
				t.Fatal(err)
			}
			c := q.Clauses[0]
			if len(c.Tokens) != len(tt.pos) {
				t.Fatalf("%d tokens, %d lists", len(c.Tokens), len(tt.pos))
			}
			prefix := []uint32{42}
			got := phraseStarts(slices.Clone(prefix), c, tt.pos)
			if want := append(prefix, tt.want...); !slices.Equal(got, want) {
				t.Errorf("phraseStarts after %v: %v, want %v", prefix, got, want)
			}
		})
	}
}
