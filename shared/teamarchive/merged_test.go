package teamarchive

import (
	"bytes"
	"crypto/sha1"
	"encoding/base32"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/cdxserver"
	"github.com/webkeep/webkeep/shared/mergedindex"
	"github.com/webkeep/webkeep/shared/warc"
)

var mergedHosts = []string{"example.com", "www.example.com", "sub.example.com", "example.org", "news.example.co.uk", "wiki.example.net"}

// randomWARC writes a browsing session of n captures over a few sites, POSTs among
// them, as a bare WARC/1.1 file.
func randomWARC(t testing.TB, r *rand.Rand, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := warc.NewWriter(&buf, warc.WriterOptions{Version: warc.V11, Gzip: true})
	for i := range n {
		host := mergedHosts[r.IntN(len(mergedHosts))]
		u := fmt.Sprintf("https://%s/p%d", host, r.IntN(12))
		method, body := "GET", ""
		if r.IntN(6) == 0 {
			method, body, u = "POST", fmt.Sprintf("q=%d", r.IntN(3)), fmt.Sprintf("https://%s/api", host)
		}
		date := time.Date(2020+r.IntN(6), time.Month(1+r.IntN(12)), 1+r.IntN(28), r.IntN(24), r.IntN(60), r.IntN(60), 0, time.UTC)
		path := u[strings.Index(u[8:], "/")+8:]
		req := method + " " + path + " HTTP/1.1\r\nHost: " + host + "\r\n"
		if body != "" {
			req += "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n"
		}
		req += "\r\n" + body
		payload := fmt.Sprintf("<p>%s %d</p>", u, r.IntN(4)) // repeated payloads, as revisited pages have
		resp := "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: " + strconv.Itoa(len(payload)) + "\r\n\r\n" + payload
		id := fmt.Sprintf("urn:uuid:00000000-0000-4000-8000-%012d", i*2)
		for _, rec := range []*warc.Record{
			{ID: id, Type: warc.TypeRequest, TargetURI: u, Date: date, ContentType: "application/http; msgtype=request", Block: strings.NewReader(req), BlockLength: int64(len(req))},
			{ID: fmt.Sprintf("urn:uuid:00000000-0000-4000-8000-%012d", i*2+1), Type: warc.TypeResponse, TargetURI: u, Date: date, ContentType: "application/http; msgtype=response",
				Header: warc.Header{{Name: warc.FieldRelatedRecordID, Value: id}}, Block: strings.NewReader(resp), BlockLength: int64(len(resp))},
		} {
			if _, err := w.WriteRecord(rec); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// bruteForceCDX answers a query by reading every listed bundle's own stored index,
// as the archive did before the merged index.
func bruteForceCDX(t testing.TB, b *MemBucket, query string) string {
	t.Helper()
	var lines []string
	for _, k := range b.Keys() {
		if !strings.HasPrefix(k, prefixIndex) {
			continue
		}
		o, _ := b.Head(t.Context(), k)
		e := entryFromMeta(k, o.Meta)
		_, rc, err := b.Get(t.Context(), e.CDXKey, nil)
		if err != nil {
			t.Fatal(err)
		}
		idx, _ := io.ReadAll(rc)
		rc.Close()
		for l := range bytes.Lines(idx) {
			tagged, err := mergedindex.Tag(l, e.Name, uploadOf(e.CDXKey))
			if err != nil {
				t.Fatal(err)
			}
			lines = append(lines, string(tagged))
		}
	}
	slices.Sort(lines)
	v, _ := url.ParseQuery(query)
	q, err := cdxserver.ParseQuery(v, 0)
	if err != nil {
		t.Fatal(err)
	}
	if q.Descending() {
		slices.Reverse(lines)
	}
	var out bytes.Buffer
	err = q.Answer(&out, func(yield func(cdxserver.Line, error) bool) {
		for _, l := range lines {
			if l >= q.Start && l < q.End && !yield(cdxserver.Line{Text: []byte(l)}, nil) {
				return
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// TestMergedIndexAgainstBundles uploads, replaces and deletes bundles at random,
// with a merged index small enough to be compacted and split as it goes, and
// checks every CDX query against a brute-force merge of the stored bundles' indexes.
func TestMergedIndexAgainstBundles(t *testing.T) {
	queries := []string{
		"url=example.com", "url=example.com/p1", "url=https://example.com/api&method=POST&requestBody=q%3D1",
		"url=example.com&matchType=domain", "url=*.example.com&limit=7", "url=example.com/p*",
		"url=www.example.com&matchType=host&sort=reverse", "url=example.org&matchType=domain&from=2022&to=2024",
		"url=example.com&matchType=domain&filter=!status:200", "url=example.com&matchType=domain&collapse=urlkey",
		"url=example.com/p3&sort=closest&closest=20230601&limit=3", "url=example.net&matchType=domain&output=json&fl=urlkey,timestamp,source",
		"url=co.uk&matchType=domain&sort=reverse&limit=5",
	}
	for seed := range uint64(3) {
		r := rand.New(rand.NewPCG(seed, 5))
		s, b := newTestServer(t, Config{IndexLinesPerBlock: 5, IndexDeltaLimit: 30, IndexSplitLines: 120})
		for step := range 60 {
			name := fmt.Sprintf("s%d.warc.gz", r.IntN(12))
			switch r.IntN(5) {
			case 0:
				w := do(t, s, req{method: "DELETE", path: "/api/bundles/" + name, token: "-"})
				if w.Code != http.StatusNoContent && w.Code != http.StatusNotFound {
					t.Fatalf("DELETE %s: %d %s", name, w.Code, w.Body)
				}
			default:
				w := do(t, s, req{method: "PUT", path: "/api/bundles/" + name + "?overwrite=1", token: "-", body: randomWARC(t, r, 1+r.IntN(20))})
				if w.Code != http.StatusCreated && w.Code != http.StatusOK {
					t.Fatalf("PUT %s: %d %s", name, w.Code, w.Body)
				}
			}
			for _, q := range queries {
				got := do(t, s, req{method: "GET", path: "/api/cdx?" + q, token: "-"})
				wantStatus(t, got, http.StatusOK)
				if want := bruteForceCDX(t, b, q); got.Body.String() != want {
					t.Fatalf("seed %d, step %d: %s:\n got %s\nwant %s", seed, step, q, got.Body, want)
				}
			}
		}
		shards := 0
		for _, n := range s.cfg.Stores.(*mergedindex.MemStores).Names() {
			if strings.HasPrefix(n, "shard-") {
				shards++
			}
		}
		if shards < 2 {
			t.Errorf("seed %d: %d shards: the index never split", seed, shards)
		}
	}
}

// TestCDXPages checks pywb's ZipNum paging: showNumPages counts the main index's
// blocks in the range, and the pages together answer the whole query once.
func TestCDXPages(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	s, _ := newTestServer(t, Config{IndexLinesPerBlock: 4, IndexDeltaLimit: 25, IndexSplitLines: 200})
	for i := range 20 {
		w := do(t, s, req{method: "PUT", path: fmt.Sprintf("/api/bundles/p%d.warc.gz", i), token: "-", body: randomWARC(t, r, 15)})
		wantStatus(t, w, http.StatusCreated)
	}
	const q = "url=example.com&matchType=domain&limit=10000"
	whole := do(t, s, req{method: "GET", path: "/api/cdx?" + q, token: "-"}).Body.String()
	w := do(t, s, req{method: "GET", path: "/api/cdx?" + q + "&showNumPages=true&pageSize=3", token: "-"})
	wantStatus(t, w, http.StatusOK)
	var n struct{ Pages, PageSize, Blocks int }
	if err := json.Unmarshal(w.Body.Bytes(), &n); err != nil || n.PageSize != 3 || n.Blocks < 6 || n.Pages != (n.Blocks+2)/3 {
		t.Fatalf("showNumPages: %s (%v)", w.Body, err)
	}
	var paged strings.Builder
	for p := range n.Pages {
		w := do(t, s, req{method: "GET", path: fmt.Sprintf("/api/cdx?%s&page=%d&pageSize=3", q, p), token: "-"})
		wantStatus(t, w, http.StatusOK)
		paged.WriteString(w.Body.String())
	}
	if paged.String() != whole {
		t.Errorf("the %d pages give %d lines, the whole query %d", n.Pages, strings.Count(paged.String(), "\n"), strings.Count(whole, "\n"))
	}
	wantStatus(t, do(t, s, req{method: "GET", path: fmt.Sprintf("/api/cdx?%s&page=%d&pageSize=3", q, n.Pages), token: "-"}), http.StatusBadRequest)
}

// TestCDXRevisitAcrossBundles: a revisit uploaded in one bundle finds its original
// in another through the CDX API, as pywb's replay asks for it (the URL, the
// digest, no revisit).
func TestCDXRevisitAcrossBundles(t *testing.T) {
	s, _ := newTestServer(t, Config{})
	const u, payload = "https://example.com/logo.png", "\x89PNG same bytes every day"
	resp := "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: " + strconv.Itoa(len(payload)) + "\r\n\r\n"
	write := func(rec *warc.Record) []byte {
		var buf bytes.Buffer
		w := warc.NewWriter(&buf, warc.WriterOptions{Version: warc.V11, Gzip: true})
		if _, err := w.WriteRecord(rec); err != nil {
			t.Fatal(err)
		}
		w.Close()
		return buf.Bytes()
	}
	day1 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	orig := write(&warc.Record{ID: "urn:uuid:00000000-0000-4000-8000-000000000001", Type: warc.TypeResponse, TargetURI: u, Date: day1,
		ContentType: "application/http; msgtype=response", Block: strings.NewReader(resp + payload), BlockLength: int64(len(resp + payload))})
	rev := write(&warc.Record{ID: "urn:uuid:00000000-0000-4000-8000-000000000002", Type: warc.TypeRevisit, TargetURI: u, Date: day1.AddDate(0, 0, 1),
		ContentType: "application/http; msgtype=response", Header: warc.Header{
			{Name: warc.FieldProfile, Value: "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"},
			{Name: warc.FieldRelatedRecordID, Value: "urn:uuid:00000000-0000-4000-8000-000000000001"},
			{Name: warc.FieldRefersToTargetURI, Value: u}, {Name: warc.FieldRefersToDate, Value: day1.Format(time.RFC3339)},
			{Name: warc.FieldPayloadDigest, Value: "sha1:" + sha1Base32(payload)}},
		Block: strings.NewReader(resp), BlockLength: int64(len(resp))})
	wantStatus(t, do(t, s, req{method: "PUT", path: "/api/bundles/day1.warc.gz", token: "-", body: orig}), http.StatusCreated)
	wantStatus(t, do(t, s, req{method: "PUT", path: "/api/bundles/day2.warc.gz", token: "-", body: rev}), http.StatusCreated)
	all := do(t, s, req{method: "GET", path: "/api/cdx?url=" + url.QueryEscape(u) + "&output=json", token: "-"}).Body.String()
	if strings.Count(all, "\n") != 2 || !strings.Contains(all, `"mime": "warc/revisit"`) {
		t.Fatalf("captures of %s:\n%s", u, all)
	}
	w := do(t, s, req{method: "GET", path: "/api/cdx?url=" + url.QueryEscape(u) + "&filter=digest:" + sha1Base32(payload) + "&filter=!mime:warc/revisit", token: "-"})
	if got := w.Body.String(); strings.Count(got, "\n") != 1 || !strings.Contains(got, `"source": "day1.warc.gz"`) {
		t.Errorf("the original of the revisit:\n%s", got)
	}
}

func sha1Base32(s string) string {
	h := sha1.Sum([]byte(s))
	return base32.StdEncoding.EncodeToString(h[:])
}
