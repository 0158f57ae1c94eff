package capture

// This file's name puts its test first in the package: the heap it measures is the
// process's, and the services of tests run before it go on working in the
// background (their search indexes read what they wrote two seconds after), which
// once added 105 MiB to the samples of an import that held 10. The same 105 MiB came
// later with the test first, from the sampling itself (see heapOver): the first may
// have been that too.

import (
	"archive/zip"
	"bytes"
	"context"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
)

func TestImportOfABundleDoesNotReadItWhole(t *testing.T) {
	// A bundle whose zip stores (does not compress) a 96 MiB WARC: reading the zip
	// whole, as imports once did, holds all of it.
	body := bytes.Repeat([]byte("0123456789abcdef"), 96<<20/16)
	var bundle bytes.Buffer
	zw := zip.NewWriter(&bundle)
	f, _ := zw.CreateHeader(&zip.FileHeader{Name: "big.warc", Method: zip.Store})
	f.Write(warc10(t, body))
	zw.Close()
	mem := NewMemStore()
	sampled := &sampledStore{Store: mem, mem: mem}
	svc, _ := NewService(sampled, newFakeHost())
	data := bundle.Bytes()
	body = nil
	bundle = bytes.Buffer{}

	// What counts is the heap the collector finds live at each step of the import
	// (every chunk it stores or reads back), not garbage it has yet to reach: a
	// busy machine lets garbage pile up, and a test of sampled HeapAlloc failed
	// there on an import that streams, while missing one that did not.
	base := heapOver(mem)
	sampled.turn(true)
	info, err := svc.archive.importBody(context.Background(), "big.zip", bytes.NewReader(data))
	// What the index reads of the new session afterwards, in the background, is not
	// the import's.
	sampled.turn(false)
	runtime.KeepAlive(data) // counted in base: it must stay for the whole import
	if err != nil || info.Records == 0 {
		t.Fatalf("import: %+v, %v", info, err)
	}
	if sampled.samples < 10 {
		t.Fatalf("the import touched the store only %d times: nothing to measure", sampled.samples)
	}
	peak := sampled.peak
	// The upload and the session made of it sit in the (memory) store: what counts
	// is what the import holds on top of them.
	grew := peak - base
	t.Logf("heap at most %d MiB over what the store holds", grew>>20)
	if grew > 48<<20 {
		t.Errorf("importing a %d MiB bundle took %d MiB more heap than the store holds: it was read whole", len(data)>>20, grew>>20)
	}
}

// sampledStore notes the live heap less what mem holds, after a collection, at
// each Get and Put while on (the index's reads in the background call it too).
type sampledStore struct {
	Store
	mem     *MemStore
	mu      sync.Mutex
	on      bool
	peak    int64
	samples int
}

func (s *sampledStore) sample() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.on {
		return
	}
	s.peak = max(s.peak, heapOver(s.mem))
	s.samples++
}

// heapOver is the live heap less what mem holds, both taken while mem is locked: a
// session's upload deleted between the collection and the count (the import removes
// it as it ends, while the index's reads still sample) once showed as 96 MiB held.
func heapOver(mem *MemStore) int64 {
	mem.mu.Lock()
	defer mem.mu.Unlock()
	runtime.GC()
	var held uint64
	for _, v := range mem.m {
		held += uint64(len(v))
	}
	return int64(liveHeap()) - int64(held)
}

// turn starts or stops the sampling.
func (s *sampledStore) turn(on bool) {
	s.mu.Lock()
	s.on = on
	s.mu.Unlock()
}

func (s *sampledStore) Get(key string) ([]byte, error) {
	s.sample()
	return s.Store.Get(key)
}

func (s *sampledStore) Put(key string, value []byte) error {
	s.sample()
	return s.Store.Put(key, value)
}

// liveHeap is the heap the last collection found live.
func liveHeap() uint64 {
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(live)
	return live[0].Value.Uint64()
}
