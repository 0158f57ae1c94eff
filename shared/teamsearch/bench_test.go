package teamsearch

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/mergedindex"
	"github.com/webkeep/webkeep/shared/search"
)

// benchVocabulary is a vocabulary of made-up words, drawn with Zipf's law as a
// language's are.
var benchVocabulary = func() []string {
	r := rand.New(rand.NewSource(1))
	const letters = "abcdefghijklmnopqrstuvwxyzäöüéè"
	runes := []rune(letters)
	words := make([]string, 20000)
	for i := range words {
		var b strings.Builder
		for range 3 + r.Intn(7) {
			b.WriteRune(runes[r.Intn(len(runes))])
		}
		words[i] = b.String()
	}
	return words
}()

// benchPages writes n pages of about 200 words (some 1.4 KB), each with a word
// of its own (u<i>), grouped in bundles of perBundle pages.
func benchPages(n, perBundle int) [][]search.Document {
	r := rand.New(rand.NewSource(int64(n)))
	z := rand.NewZipf(r, 1.1, 2, uint64(len(benchVocabulary)-1))
	var bundles [][]search.Document
	for i := 0; i < n; i++ {
		if i%perBundle == 0 {
			bundles = append(bundles, nil)
		}
		var b strings.Builder
		for k := range 200 {
			if k == 100 {
				fmt.Fprintf(&b, "u%d ", i)
			}
			b.WriteString(benchVocabulary[z.Uint64()])
			b.WriteByte(' ')
		}
		title := benchVocabulary[z.Uint64()] + " " + benchVocabulary[z.Uint64()]
		bundle := fmt.Sprintf("bundle-%d.zip", len(bundles)-1)
		upload := fmt.Sprintf("up-%06d", len(bundles)-1)
		bundles[len(bundles)-1] = append(bundles[len(bundles)-1], search.Document{Session: bundle,
			URL: fmt.Sprintf("https://site%d.example/page/%d", i%50, i), Time: time.Unix(int64(1.7e9)+int64(i), 0),
			Method: "GET", Status: 200, Mime: "text/html", Ref: Ref{Upload: upload, File: "x.warc.gz", Offset: int64(i)}.String(),
			Title: title, Text: b.String()})
	}
	return bundles
}

// benchIndex uploads the bundles one by one, merging when a merge is due, as
// the Worker's queue does.
func benchIndex(b *testing.B, bundles [][]search.Document) (*Index, *memBlobs) {
	ctx := context.Background()
	blobs := &memBlobs{}
	due := false
	ix := New(Config{Stores: &mergedindex.MemStores{}, Blobs: blobs, Due: func(string) { due = true }})
	for _, docs := range bundles {
		ref, _ := ParseRef(docs[0].Ref)
		if _, err := ix.Add(ctx, ref.Upload, docs); err != nil {
			b.Fatal(err)
		}
		if due {
			due = false
			if _, err := ix.Merge(ctx); err != nil {
				b.Fatal(err)
			}
		}
	}
	return ix, blobs
}

// BenchmarkTeamSearch: a query's latency and its reads of segments (R2 range
// reads in the Worker) over 1,000 and 10,000 pages in bundles of 10, indexed
// and merged as the Worker does; the blobs are in memory, so the time is the
// CPU's, without R2's round trips.
func BenchmarkTeamSearch(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		bundles := benchPages(n, 10)
		var ix *Index
		queries := []struct{ name, q string }{
			{"rare", fmt.Sprintf("u%d", n/2)},                                                      // a word on one page
			{"common", benchVocabulary[2]},                                                         // a word on most pages
			{"two-words", benchVocabulary[20] + " " + benchVocabulary[40]},                         // two frequent words
			{"phrase", `"` + benchVocabulary[2] + " " + benchVocabulary[3] + `"`},                  // a phrase
			{"exclusion", benchVocabulary[30] + " -" + benchVocabulary[2] + " site:site7.example"}, // with an exclusion and a filter
		}
		for _, qq := range queries {
			b.Run(fmt.Sprintf("pages=%d/%s", n, qq.name), func(b *testing.B) {
				if ix == nil {
					ix, _ = benchIndex(b, bundles)
				}
				q, err := search.ParseQuery(qq.q)
				if err != nil {
					b.Fatal(err)
				}
				ctx := context.Background()
				var times []time.Duration
				var reads, bytes int64
				var res Results
				b.ResetTimer()
				for range b.N {
					start := time.Now()
					res, err = ix.Search(ctx, q, 20)
					if err != nil {
						b.Fatal(err)
					}
					times = append(times, time.Since(start))
					reads += res.Stats.BlobReads
					bytes += res.Stats.BlobBytes
				}
				b.StopTimer()
				if qq.name == "rare" && (res.Total != 1 || res.Hits[0].URL != fmt.Sprintf("https://site%d.example/page/%d", (n/2)%50, n/2)) {
					b.Fatalf("%s: %d results", qq.q, res.Total)
				}
				slices.Sort(times)
				b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "ms-median")
				b.ReportMetric(float64(times[min(len(times)-1, len(times)*99/100)].Microseconds())/1000, "ms-p99")
				b.ReportMetric(float64(reads)/float64(b.N), "R2-reads/op")
				b.ReportMetric(float64(bytes)/float64(b.N)/1024, "R2-KB/op")
				b.ReportMetric(float64(res.Stats.StoreCalls), "store-calls/op")
				b.ReportMetric(float64(res.Stats.Segments), "segments")
				b.ReportMetric(float64(res.Total), "matches")
				var size int64
				for _, s := range ix.segments(b) {
					size += s.Bytes
				}
				b.ReportMetric(float64(size)/float64(n), "index-B/page")
			})
		}
	}
}
