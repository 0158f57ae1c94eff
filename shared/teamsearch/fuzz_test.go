package teamsearch

import (
	"encoding/binary"
	"testing"

	"github.com/webkeep/webkeep/shared/search"
)

// FuzzTable reads arbitrary bytes as a table's footer, index and block: errors,
// never a panic; what decodes is in order.
func FuzzTable(f *testing.F) {
	mem := search.NewMemStore()
	mem.Put("a", []byte("1"))
	mem.Put("b", []byte("22"))
	data, _, _, _ := buildTable(mem)
	f.Add(data)
	f.Add([]byte{})
	f.Add(binary.AppendUvarint(nil, 1<<62))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) >= footerBytes {
			parseFooter(b[len(b)-footerBytes:], int64(len(b)))
		}
		if refs, err := parseIndex(b, int64(len(b))); err == nil {
			for i := 1; i < len(refs); i++ {
				if refs[i].first <= refs[i-1].first || refs[i].off != refs[i-1].off+refs[i-1].size {
					t.Fatalf("index out of order: %+v", refs)
				}
			}
		}
		if es, err := parseBlock(b); err == nil {
			for i := 1; i < len(es); i++ {
				if es[i].key <= es[i-1].key {
					t.Fatalf("block out of order")
				}
			}
		}
	})
}

// FuzzParseRef: what parses encodes back to itself.
func FuzzParseRef(f *testing.F) {
	f.Add("u/1/f.warc.gz")
	f.Add("u//")
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRef(s)
		if err != nil {
			return
		}
		if back, err := ParseRef(r.String()); err != nil || back != r {
			t.Fatalf("%q: %+v, again %+v %v", s, r, back, err)
		}
	})
}
