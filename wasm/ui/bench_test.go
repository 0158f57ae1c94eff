package main

import (
	"fmt"
	"testing"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/shared/cdx"
)

// benchRecords are n records of a large session, as the records API lists them: the
// archive page filters them again on every key typed in its search box.
func benchRecords(b *testing.B, n int) []Record {
	entries := make([]cdx.Entry, n)
	for i := range entries {
		e := cdx.Entry{
			URLKey: fmt.Sprintf("org,example)/static/file-%d.js", i), Timestamp: "20250601100000",
			URL: fmt.Sprintf("https://example.org/static/file-%d.js", i), Mime: "text/javascript", Status: "200",
			Length: 1000, Offset: int64(i) * 1000,
		}
		if i%10 == 0 {
			e.Method, e.Mime, e.Status = "POST", "application/json", "201"
		}
		entries[i] = e
	}
	recs := records(b, entries...)
	for i := range recs {
		if i%3 == 0 {
			recs[i].Verdict = &api.Verdict{OK: i%2 == 0, Code: "ok"}
		}
	}
	return recs
}

func BenchmarkFilter(b *testing.B) {
	recs := benchRecords(b, 10000)
	for _, q := range []string{"", "method:POST", "verdict:fail status:2xx", "file-99"} {
		b.Run(fmt.Sprintf("%q", q), func(b *testing.B) {
			for b.Loop() {
				f := ParseFilter(q)
				n := 0
				for i := range recs {
					if f.Match(&recs[i]) {
						n++
					}
				}
			}
		})
	}
}
