package mergedindex

import (
	"bytes"
	"strings"
	"testing"

	"github.com/webkeep/webkeep/shared/zipnum"
)

// FuzzStoredState feeds arbitrary stored values to the readers of a shard's range,
// state and summary entries, and arbitrary bytes to the block decoder: errors that
// name the shard, never a panic.
func FuzzStoredState(f *testing.F) {
	var blocks bytes.Buffer
	zw := zipnum.NewWriter(&blocks, 2)
	zw.WriteLine([]byte(`com,a)/ 2024 {"source": "b", "upload": "u"}`))
	zw.Close()
	f.Add(`{"lo":"a","hi":"b","next":"shard-1"}`, `{"gen":1,"blob":"x","size":10,"blocks":1,"lines":2}`, "s/com,a)/ 2024\x0000000000", "0 10 2", blocks.Bytes())
	f.Add("{", "[]", "s/", "1 2", []byte{0x1f, 0x8b})
	f.Fuzz(func(t *testing.T, rng, st, key, value string, raw []byte) {
		if _, err := parseRange("s", []Entry{{keyRange, rng}}); err != nil && !strings.Contains(err.Error(), "shard s") {
			t.Errorf("range error without the shard: %v", err)
		}
		if _, err := parseState("s", []Entry{{keyState, st}}); err != nil && !strings.Contains(err.Error(), "shard s") {
			t.Errorf("state error without the shard: %v", err)
		}
		if b, err := parseBlock("s", Entry{key, value}); err == nil && (b.length <= 0 || b.offset < 0) {
			t.Errorf("parseBlock(%q, %q) = %+v", key, value, b)
		}
		decodeBlock(raw)
		if t2, err := Tag([]byte(value), "b", "u"); err == nil && lineUpload(string(t2)) != "u" {
			t.Errorf("Tag(%q) = %q: its upload is not u", value, t2)
		}
	})
}
