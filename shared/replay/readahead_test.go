package replay

import (
	"io"
	"slices"
	"testing"

	"github.com/webkeep/webkeep/shared/cdx"
)

// The records of a batch are read in few ranges: those near each other (within the
// gap) in one, up to the limit; a record longer than the limit in none.
func TestRecordRanges(t *testing.T) {
	rec := func(offset, length int64) cdx.Entry { return cdx.Entry{Offset: offset, Length: length} }
	for _, tt := range []struct {
		name string
		recs []cdx.Entry
		want [][2]int64
	}{
		{"none", nil, nil},
		{"adjacent, in any order", []cdx.Entry{rec(150, 50), rec(100, 50), rec(200, 30)}, [][2]int64{{100, 230}}},
		{"within the gap", []cdx.Entry{rec(0, 100), rec(110, 40)}, [][2]int64{{0, 150}}},
		{"past the gap", []cdx.Entry{rec(0, 100), rec(200, 40), rec(400, 10)}, [][2]int64{{0, 100}, {200, 240}, {400, 410}}},
		{"up to the limit", []cdx.Entry{rec(0, 300), rec(300, 300), rec(600, 300)}, [][2]int64{{0, 600}, {600, 900}}},
		{"longer than the limit", []cdx.Entry{rec(0, 100), rec(100, 700), rec(800, 10)}, [][2]int64{{0, 100}, {800, 810}}},
		{"the same record twice", []cdx.Entry{rec(0, 100), rec(0, 100)}, [][2]int64{{0, 100}}},
	} {
		if got := recordRanges(tt.recs, 20, 600); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestReadFrom(t *testing.T) {
	ranges := []ReadRange{{10, []byte("0123456789")}, {100, []byte("abcdef")}}
	for _, tt := range []struct {
		off, n int64
		want   string
		ok     bool
	}{
		{10, 10, "0123456789", true},
		{12, 3, "234", true},
		{102, 4, "cdef", true},
		{18, 3, "", false},  // past the range's end
		{9, 2, "", false},   // before its start
		{50, 1, "", false},  // in none
		{100, 0, "", false}, // no length
	} {
		r, ok := ReadFrom(ranges, tt.off, tt.n)
		got := ""
		if ok {
			b, _ := io.ReadAll(r)
			got = string(b)
		}
		if ok != tt.ok || got != tt.want {
			t.Errorf("ReadFrom(%d, %d) = %q, %v; want %q, %v", tt.off, tt.n, got, ok, tt.want, tt.ok)
		}
	}
}
