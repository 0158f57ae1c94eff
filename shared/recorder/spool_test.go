package recorder

import (
	"io"
	"strings"
	"testing"
)

// Without a store a spool keeps its chunks in memory, and gives them back whole.
func TestSpoolInMemory(t *testing.T) {
	sp := newSpool(nil, 0)
	piece := strings.Repeat("x", spoolChunk/2+1)
	for range 3 {
		sp.Write([]byte(piece))
	}
	if err := sp.finish(); err != nil {
		t.Fatal(err)
	}
	if _, held := sp.held(); held {
		t.Error("a body of several chunks is held, not spooled")
	}
	r, _ := sp.reader()
	got, _ := io.ReadAll(r)
	if string(got) != strings.Repeat(piece, 3) || sp.size != int64(len(got)) {
		t.Errorf("read back %d bytes (size %d), want %d", len(got), sp.size, 3*len(piece))
	}
	sp.remove()
	if sp.chunks != nil {
		t.Error("the chunks are kept after remove")
	}
}
