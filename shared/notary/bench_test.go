package notary

import (
	"context"
	"strconv"
	"testing"

	"github.com/webkeep/webkeep/shared/mergedindex"
)

// BenchmarkAppend appends leaves to a log in mergedindex.MemStores (the Worker's
// Durable Object store, in memory): two store calls an append, one to read the tree
// and one to write. The log starts again every 4096 leaves, so that MemStore's
// sorted inserts, which slow with its size, do not make the number depend on b.N.
// ns/append is the Go side alone; in the Worker each call is a round trip to the
// Durable Object.
func BenchmarkAppend(b *testing.B) {
	ctx := context.Background()
	const restart = 4096
	var stores *mergedindex.MemStores
	var l *Log
	calls := 0
	// Leaves as the archive's, each new (a leaf is logged once): the upload id
	// ends in the leaf's number.
	prefix := []byte("webkeep-bundle site.zip 20240901T120000.000000000Z-")
	suffix := []byte(" 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 1048576")
	var leaf []byte
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i%restart == 0 {
			if stores != nil {
				calls += stores.Calls
			}
			stores = &mergedindex.MemStores{}
			var err error
			if l, err = New(stores.Open(StoreName), ""); err != nil {
				b.Fatal(err)
			}
		}
		leaf = append(strconv.AppendInt(append(leaf[:0], prefix...), int64(i), 10), suffix...)
		if _, _, err := l.Append(ctx, leaf); err != nil {
			b.Fatal(err)
		}
		i++
	}
	calls += stores.Calls
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/append")
	b.ReportMetric(float64(calls)/float64(b.N), "calls/append")
}
