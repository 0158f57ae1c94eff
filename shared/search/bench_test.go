package search

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// benchPage is a real-ish HTML page of about 1 MB: the extension's archive page
// (head, scripts, forms, tables) with a long article in its body, words from
// several languages, scripts and styles between.
var benchPage = sync.OnceValue(func() []byte {
	page, err := os.ReadFile("testdata/archive.html")
	if err != nil {
		panic(err)
	}
	head, body, _ := strings.Cut(string(page), "<body")
	var b strings.Builder
	b.WriteString(head)
	b.WriteString("<body")
	body, tail, _ := strings.Cut(body, "</body>")
	b.WriteString(body)
	rng := rand.New(rand.NewSource(1))
	for i := 0; b.Len() < 1<<20; i++ {
		fmt.Fprintf(&b, "<section id=\"s%d\"><h2>Section %d: %s</h2>\n", i, i, words(rng, 4))
		for range 4 {
			fmt.Fprintf(&b, "<p class=\"lead\">%s <a href=\"/page/%d\">%s</a> %s. <em>%s</em></p>\n", words(rng, 30), rng.Intn(1e6), words(rng, 3), words(rng, 25), words(rng, 5))
		}
		fmt.Fprintf(&b, "<script>window.__data%d = {\"items\": [%d, %d], \"label\": \"%s\"};</script>\n", i, rng.Int(), rng.Int(), words(rng, 3))
		fmt.Fprintf(&b, "<style>.s%d { color: #%06x; margin: %dpx }</style>\n", i, rng.Intn(1<<24), rng.Intn(40))
		b.WriteString("<table><tr><th>Name</th><th>Value</th></tr>")
		for range 3 {
			fmt.Fprintf(&b, "<tr><td>%s</td><td>%d</td></tr>", words(rng, 2), rng.Intn(1e4))
		}
		b.WriteString("</table></section>\n")
	}
	b.WriteString("</body>")
	b.WriteString(tail)
	return []byte(b.String())
})

// vocabulary is the words of synthetic text: English, German, French, Japanese,
// drawn with a Zipf distribution as real text's are.
var vocabulary = strings.Fields(`the of and to in is was for that on with as by at from
it an be this which or are were not but had have has their its one all new more other
archive record page session search index web browser capture replay file request
response header body text title site time date server client network storage store
Zürich über Straße Mädchen Grüße schön Brücke Käse Frühling Bäume müssen größer
café résumé naïve déjà élève français garçon Noël crème façade hôtel forêt
東京 京都 大阪 日本語 検索 記録 ページ アーカイブ サーバー 保存 こんにちは
alpha beta gamma delta epsilon zeta theta kappa lambda sigma omega river mountain
forest garden kitchen window library museum market station bridge harbor castle`)

func words(rng *rand.Rand, n int) string {
	z := zipf(rng)
	ws := make([]string, n)
	for i := range ws {
		ws[i] = vocabulary[z.Uint64()]
	}
	return strings.Join(ws, " ")
}

var zipfs = map[*rand.Rand]*rand.Zipf{}

func zipf(rng *rand.Rand) *rand.Zipf {
	z, ok := zipfs[rng]
	if !ok {
		z = rand.NewZipf(rng, 1.1, 2, uint64(len(vocabulary)-1))
		zipfs[rng] = z
	}
	return z
}

func BenchmarkExtract(b *testing.B) {
	page := benchPage()
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Extract("text/html; charset=utf-8", strings.NewReader(string(page)), 0); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTokenize(b *testing.B) {
	d, _ := Extract("text/html", strings.NewReader(string(benchPage())), 0)
	b.SetBytes(int64(len(d.Text)))
	for b.Loop() {
		Tokenize(d.Text)
	}
}

// syntheticDocs returns n documents of about 300 words each (a typical page's
// text after extraction is 1-3 KB), with a rare word ("rareN") in one in a
// hundred, across 20 sessions and 50 sites.
func syntheticDocs(n int) []Document {
	rng := rand.New(rand.NewSource(int64(n)))
	docs := make([]Document, n)
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range docs {
		text := words(rng, 300)
		if i%100 == 0 {
			text += fmt.Sprintf(" rare%d", i/100%10)
		}
		text += fmt.Sprintf(" unique%d", i)
		docs[i] = Document{
			Session: fmt.Sprintf("session-%d", i%20), URL: fmt.Sprintf("https://site%d.example/page/%d", i%50, i),
			Time: base.Add(time.Duration(i) * time.Minute), Method: "GET", Status: 200, Mime: "text/html",
			Ref: fmt.Sprintf("record-%d", i), Title: words(rng, 6), Text: text,
		}
	}
	return docs
}

func BenchmarkAdd(b *testing.B) {
	docs := syntheticDocs(10000)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		ix, _ := Open(NewMemStore(), nil)
		for _, d := range docs {
			if _, err := ix.Add(d); err != nil {
				b.Fatal(err)
			}
		}
		if err := ix.Flush(); err != nil {
			b.Fatal(err)
		}
		n += len(docs)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "docs/s")
}

// BenchmarkIndexSize reports the store's bytes per document, keys included,
// with and without the text kept for snippets.
func BenchmarkIndexSize(b *testing.B) {
	docs := syntheticDocs(10000)
	text := 0
	for _, d := range docs {
		text += len(d.Text) + len(d.Title)
	}
	for _, mode := range []struct {
		name string
		opts Options
	}{{"stored-text", Options{}}, {"postings-only", Options{StoredText: -1}}} {
		b.Run(mode.name, func(b *testing.B) {
			var s *MemStore
			for b.Loop() {
				s = NewMemStore()
				ix, _ := Open(s, &mode.opts)
				for _, d := range docs {
					ix.Add(d)
				}
				ix.Flush()
			}
			b.ReportMetric(float64(s.Size())/float64(len(docs)), "bytes/doc")
			b.ReportMetric(float64(text)/float64(len(docs)), "text-bytes/doc")
		})
	}
}

// A countingStore is a MultiGetter over a MemStore that counts its calls,
// the keys they read one by one (a scan reading its range at once) and the
// bytes of the values they return: what a search costs a store whose every
// call is a transaction and every key read a round trip (IndexedDB), which
// the in-memory store hides.
type countingStore struct {
	*MemStore
	calls, keys, bytes int
	// Posting blocks read one by one, and scans of a term's blocks.
	blockKeys, termScans int
}

func (s *countingStore) Get(key string) ([]byte, error) {
	v, err := s.MemStore.Get(key)
	s.calls++
	s.keys++
	s.bytes += len(v)
	return v, err
}

func (s *countingStore) GetMany(keys []string) ([][]byte, error) {
	s.calls++
	s.keys += len(keys)
	for _, k := range keys {
		if strings.HasPrefix(k, keyTerm) {
			s.blockKeys++
		}
	}
	out := make([][]byte, len(keys))
	for i, k := range keys {
		v, err := s.MemStore.Get(k)
		if err == nil {
			out[i] = v
			s.bytes += len(v)
		}
	}
	return out, nil
}

func (s *countingStore) Scan(prefix string, fn func(key string, value []byte) bool) error {
	s.calls++
	s.keys++
	if strings.HasPrefix(prefix, keyTerm) {
		s.termScans++
	}
	return s.MemStore.Scan(prefix, func(key string, value []byte) bool {
		s.bytes += len(value)
		return fn(key, value)
	})
}

// searchIndexes are the indexes the search benchmarks share, by size, and
// their stores.
var (
	searchIndexes = map[int]*Index{}
	searchStores  = map[int]*countingStore{}
)

func searchIndex(b *testing.B, n int) (*Index, *countingStore) {
	if ix, ok := searchIndexes[n]; ok {
		return ix, searchStores[n]
	}
	s := &countingStore{MemStore: NewMemStore()}
	ix, _ := Open(s, nil)
	for _, d := range syntheticDocs(n) {
		if _, err := ix.Add(d); err != nil {
			b.Fatal(err)
		}
	}
	ix.Flush()
	searchIndexes[n], searchStores[n] = ix, s
	return ix, s
}

func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		for _, query := range []string{
			"rare7",                             // one in a thousand documents
			"unique4242",                        // one document
			"museum castle",                     // two uncommon words
			`"the archive"`,                     // a phrase of a common and a rarer word
			"the",                               // in nearly every document
			"or one",                            // two common words
			`"is was"`,                          // a phrase of common words
			"the -museum",                       // a common word, an exclusion
			"京都 site:site7.example",             // CJK and a filter
			"session:session-3 from:2024-01-04", // filters only
		} {
			b.Run(fmt.Sprintf("docs=%d/%s", n, query), func(b *testing.B) {
				ix, s := searchIndex(b, n)
				measureSearch(b, ix, s, query, 10)
			})
		}
	}
}

// wikiVocabulary is the words of the real wiki pages in testdata/wiki, most
// frequent first, as scripts/bench/search.mjs draws the extension's pages from.
var wikiVocabulary = sync.OnceValue(func() []string {
	dir := "../../testdata/wiki"
	files, err := os.ReadDir(dir)
	if err != nil {
		panic(err)
	}
	markup := regexp.MustCompile(`(?s)<script.*?</script>|<style.*?</style>|<[^>]+>|&[a-z]+;`)
	word := regexp.MustCompile(`\p{L}{2,}`)
	counts := map[string]int{}
	var order []string
	for _, f := range files {
		if !strings.HasSuffix(f.Name(), ".html") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, f.Name()))
		if err != nil {
			panic(err)
		}
		text := strings.ToLower(markup.ReplaceAllString(string(b), " "))
		for _, w := range word.FindAllString(text, -1) {
			if counts[w] == 0 {
				order = append(order, w)
			}
			counts[w]++
		}
	}
	slices.SortStableFunc(order, func(a, b string) int { return counts[b] - counts[a] })
	return order
})

// wikiDocs returns n pages as scripts/bench/search.mjs makes them: 300 words
// drawn from wikiVocabulary with probability about 1/rank, a word no other
// page has amid them, the first four in the title.
func wikiDocs(n int) []Document {
	vocab := wikiVocabulary()
	rng := rand.New(rand.NewSource(7))
	harmonic := math.Log(float64(len(vocab))) + 0.5772
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	docs := make([]Document, n)
	for i := range docs {
		ws := make([]string, 300)
		for j := range ws {
			ws[j] = vocab[min(len(vocab)-1, int(math.Exp(rng.Float64()*harmonic))-1)]
		}
		ws = slices.Insert(ws, 150, fmt.Sprintf("quokka%szz", strconv.FormatInt(int64(i), 36)))
		docs[i] = Document{Session: "wiki", URL: fmt.Sprintf("https://wiki.example/page/%d", i), Time: base.Add(time.Duration(i) * time.Second),
			Method: "GET", Status: 200, Mime: "text/html", Title: fmt.Sprintf("Page %d: %s", i, strings.Join(ws[:4], " ")), Text: strings.Join(ws, " ")}
	}
	return docs
}

// BenchmarkSearchWiki searches pages like the extension's benchmark's
// (scripts/bench/search.mjs) for its kinds of query, 20 results each.
func BenchmarkSearchWiki(b *testing.B) {
	vocab := wikiVocabulary()
	for _, n := range []int{10000, 100000} {
		queries := []struct{ name, q string }{
			{"one-page", "quokka" + strconv.FormatInt(int64(n/3), 36) + "zz"},
			{"rare", vocab[len(vocab)*8/10]},
			{"two-common", vocab[20] + " " + vocab[30]},
			{"phrase", `"` + vocab[5] + " " + vocab[6] + `"`},
			{"most-common", vocab[0]},
		}
		for _, query := range queries {
			b.Run(fmt.Sprintf("docs=%d/%s", n, query.name), func(b *testing.B) {
				key := -n
				if _, ok := searchIndexes[key]; !ok {
					s := &countingStore{MemStore: NewMemStore()}
					ix, _ := Open(s, nil)
					for _, d := range wikiDocs(n) {
						if _, err := ix.Add(d); err != nil {
							b.Fatal(err)
						}
					}
					ix.Flush()
					searchIndexes[key], searchStores[key] = ix, s
				}
				measureSearch(b, searchIndexes[key], searchStores[key], query.q, 20)
			})
		}
	}
}

// measureSearch times the search of query (its first limit results) in ix, and
// reports its matches and the reads of s, the index's store, per search: its
// calls, the keys they read one by one, and the bytes.
func measureSearch(b *testing.B, ix *Index, s *countingStore, query string, limit int) {
	q, err := ParseQuery(query)
	if err != nil {
		b.Fatal(err)
	}
	var total int
	s.calls, s.keys, s.bytes = 0, 0, 0
	for b.Loop() {
		res, err := ix.Search(q, limit)
		if err != nil {
			b.Fatal(err)
		}
		total = res.Total
	}
	b.ReportMetric(float64(total), "matches")
	b.ReportMetric(float64(s.calls)/float64(b.N), "reads/op")
	b.ReportMetric(float64(s.keys)/float64(b.N), "keys/op")
	b.ReportMetric(float64(s.bytes)/float64(b.N)/1e3, "read-kB/op")
}
