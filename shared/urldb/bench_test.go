package urldb

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"
)

// makeBigDatabase returns a domain file of n records shaped like the real ones.
func makeBigDatabase(n int) []byte {
	var b bytes.Buffer
	b.WriteString("---\ncnames:\n- www.example.com\nhttps: true\n---\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "_path: /data/%07d/tile.png\n", i)
		if i%3 == 0 {
			b.WriteString("categories:\n- coreapp\n")
		}
		if i%2 == 0 {
			sum := sha256.Sum256([]byte(fmt.Sprint(i)))
			fmt.Fprintf(&b, "content-length: %d\ncontent-sha256: %x\n", 1000+i, sum)
		}
		b.WriteString("content-type: image/png\n")
		if i < n-1 {
			b.WriteString("---\n")
		}
	}
	return b.Bytes()
}

// Loading a 100,000-record database (issue 5: under a second natively).
func BenchmarkLoad100k(b *testing.B) {
	data := makeBigDatabase(100_000)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		db, err := LoadFiles(File{"example.com.yaml", data})
		if err != nil || len(db.Domains[0].Records) != 100_000 {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncode100k(b *testing.B) {
	data := makeBigDatabase(100_000)
	db, err := LoadFiles(File{"example.com.yaml", data})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if out := db.Domains[0].Encode(); len(out) != len(data) {
			b.Fatal("size changed")
		}
	}
}

// latencySite serves every record of the real database (paths prefixed with
// the domain's index), each answer after a delay, with the recorded status and
// type, and for static records a small body whose length and digest the
// returned records hold.
func latencySite(b *testing.B, delay time.Duration) (*httptest.Server, []Entry) {
	db := loadReal(b)
	type answer struct {
		status int
		ct     string
		body   []byte
	}
	answers := map[string]answer{}
	var entries []Entry
	d := &Domain{Name: "bench.example", Meta: Map{}}
	for i, real := range db.Domains {
		for _, r := range real.Records {
			// Several domains have a "/": each domain gets its own prefix.
			path := fmt.Sprintf("/%d%s", i, r.Path)
			rec := &Record{Path: path, ContentType: r.ContentType, ContentLength: -1}
			a := answer{status: 200, ct: r.ContentType}
			var code int
			if _, err := fmt.Sscanf(r.ContentType, "X-%d-Redirect", &code); err == nil {
				a.status = code
			} else if r.Static() {
				a.body = []byte("content of " + path)
				sum := sha256.Sum256(a.body)
				rec.ContentLength, rec.ContentSHA256 = int64(len(a.body)), sum[:]
			}
			answers[path] = a
			entries = append(entries, Entry{d, rec})
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(delay)
		a, ok := answers[r.RequestURI]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if a.status != 200 {
			w.Header().Set("Location", "/")
		} else {
			w.Header().Set("Content-Type", a.ct)
		}
		w.WriteHeader(a.status)
		w.Write(a.body)
	}))
	return srv, entries
}

// Checking the 537 URLs of the real database against a local server that
// answers in 50 ms: the default Checker against a sequential check (one request
// at a time, as wwturldb does).
func BenchmarkCheck537(b *testing.B) {
	srv, entries := latencySite(b, 50*time.Millisecond)
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	targets := Targets(entries, TargetOptions{Map: map[string]string{"bench.example": host}})
	if len(targets) != 537 {
		b.Fatalf("%d targets", len(targets))
	}
	for _, bc := range []struct {
		name string
		c    *Checker
	}{
		{"webkeep", &Checker{}},
		{"sequential", &Checker{Concurrency: 1, PerHost: 1}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				ok := 0
				err := bc.c.Check(context.Background(), targets, func(v Verdict) {
					if v.OK {
						ok++
					} else {
						b.Errorf("%s: %s", v.URL, v.Problem)
					}
				})
				if err != nil || ok != 537 {
					b.Fatalf("%d ok, %v", ok, err)
				}
			}
		})
	}
}

// A garbage collection with a loaded 100,000-record database alive: the collector
// marks everything the database holds. In WebAssembly the collector runs on the
// program's only thread and the browser's event loop waits for it, so this is how
// long a loaded database can hold up the extension's API (run with -cpu 1 for the
// single-threaded figure).
func BenchmarkCollectWithLoaded100k(b *testing.B) {
	db, err := LoadFiles(File{"example.com.yaml", makeBigDatabase(100_000)})
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		runtime.GC()
	}
	runtime.KeepAlive(db)
	b.ReportMetric(float64(before.HeapObjects), "heap-objects")
	b.ReportMetric(float64(before.HeapAlloc)/(1<<20), "heap-MiB")
}
