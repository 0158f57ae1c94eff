package replay

import (
	"encoding/binary"
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/webkeep/webkeep/shared/cdx"
	"github.com/webkeep/webkeep/shared/httpmsg"
)

// Bounds of a batch (see ServeBatch). A body over BatchBody, or one that would take
// the batch's bodies over BatchBytes, is left to its own request.
const (
	BatchCaptures = 100
	BatchBytes    = 2 << 20
	BatchBody     = 256 << 10
)

// recordHeaders bounds the WARC and HTTP headers of a record a batch holds.
const recordHeaders = 64 << 10

// batchReaders is how many captures a batch reads at the same time.
const batchReaders = 6

// A BatchAnswer is one answer of a batch: what Serve answers a GET request of its
// URL, and the length of its body.
type BatchAnswer struct {
	Answer
	Size int `json:"size"`
}

// ServeBatch writes to w the batch of page (see Batch) as the API answers it. The
// answers are returned.
func (ix *Index) ServeBatch(w httpmsg.ResponseWriter, page, at string, f File, isPage func(string) bool) []BatchAnswer {
	b, answers := ix.Batch(page, at, f, isPage)
	WriteBatch(w, b)
	return answers
}

// WriteBatch writes a batch that Batch made to w, as the API answers it.
func WriteBatch(w httpmsg.ResponseWriter, batch []byte) {
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(httpmsg.StatusOK)
	w.Write(batch)
}

// Batch returns the batch of page: the answers that GET requests of page and of
// the resources recorded with it get from Serve, at the same time at, so that a
// replay can answer them without asking for each: page's own, then those of the
// URLs of the GET captures around page's capture, up to the captures of other
// pages (isPage says whether a URL is a page's) before and after it, nearest
// first. Only archived answers are in it, none approximate, at most
// BatchCaptures; large bodies are left out (see BatchBody).
//
// The batch is the length of the answers' JSON (4 bytes, big-endian), that JSON
// (a list of BatchAnswer), and their bodies one after the other (ReadBatch reads
// it). The answers are returned too; a page with no capture has an empty batch.
func (ix *Index) Batch(page, at string, f File, isPage func(string) bool) ([]byte, []BatchAnswer) {
	urls := ix.batchURLs(page, at, isPage)
	type read struct {
		a    Answer
		body []byte
		ok   bool
	}
	reads := make([]read, len(urls))
	var (
		mu   sync.Mutex
		kept int // bytes of the bodies read
		wg   sync.WaitGroup
		sem  = make(chan struct{}, batchReaders)
	)
	for i, u := range urls {
		mu.Lock()
		full := kept >= BatchBytes
		mu.Unlock()
		if full {
			break
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			a, body, ok := ix.answerWhole(&Request{Method: httpmsg.MethodGet, URL: u}, at, f)
			if !ok {
				return
			}
			mu.Lock()
			kept += len(body)
			mu.Unlock()
			reads[i] = read{a, body, true}
		}()
	}
	wg.Wait()
	answers := []BatchAnswer{}
	var bodies [][]byte
	total := 0
	for _, r := range reads {
		if !r.ok || total+len(r.body) > BatchBytes {
			continue
		}
		total += len(r.body)
		answers = append(answers, BatchAnswer{r.a, len(r.body)})
		bodies = append(bodies, r.body)
	}
	return encodeBatch(answers, bodies, total), answers
}

// EmptyBatch is the batch of a page with no capture: no answers, each of its
// requests asked for by itself.
func EmptyBatch() []byte { return encodeBatch([]BatchAnswer{}, nil, 0) }

// encodeBatch makes a batch of answers and their bodies (total bytes), as Batch
// returns it.
func encodeBatch(answers []BatchAnswer, bodies [][]byte, total int) []byte {
	list, _ := json.Marshal(answers)
	out := make([]byte, 0, 4+len(list)+total)
	out = binary.BigEndian.AppendUint32(out, uint32(len(list)))
	out = append(out, list...)
	for _, b := range bodies {
		out = append(out, b...)
	}
	return out
}

// answerWhole is Serve's answer to r with its whole body, when it is archived,
// exact, and its body at most BatchBody bytes.
func (ix *Index) answerWhole(r *Request, at string, f File) (Answer, []byte, bool) {
	m, ok := ix.Lookup(r, at)
	// A record longer than a body may be, with its headers, holds a larger body
	// (gzip makes nothing much longer): it is not read.
	if !ok || m.Approximate || m.Capture.Length > BatchBody+recordHeaders {
		return Answer{}, nil, false
	}
	resp, err := ix.Open(f, m.Capture)
	if err != nil {
		return Answer{}, nil, false
	}
	defer resp.Body.Close()
	if isPDF(resp.Header) { // withheld from the browser's own requests (withholdPDF)
		return Answer{}, nil, false
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, BatchBody+1))
	if err != nil || len(body) > BatchBody {
		return Answer{}, nil, false
	}
	return Answer{
		Status: resp.Status, Reason: resp.Reason, Headers: fields(resp.Header), Archived: true,
		URL: r.URL, Timestamp: m.Capture.Timestamp,
	}, body, true
}

// batchURLs returns the URLs whose answers the batch of page holds, if it can: page's
// own first, then its neighbours'.
func (ix *Index) batchURLs(page, at string, isPage func(string) bool) []string {
	m, ok := ix.Lookup(&Request{Method: httpmsg.MethodGet, URL: page}, at)
	if !ok {
		return nil
	}
	return append([]string{page}, ix.neighbours(m.Capture, isPage, BatchCaptures-1)...)
}

// BatchRecords returns the captures whose records the batch of page (Batch, with the
// same arguments) reads, found in the index alone: each URL's capture, and a revisit's
// original after it, each once; at most about BatchBytes of records. A File that fetches records
// from afar can fetch them all at once, before Batch reads them one by one.
func (ix *Index) BatchRecords(page, at string, isPage func(string) bool) []cdx.Entry {
	var out []cdx.Entry
	seen := map[int64]bool{}
	total := int64(0)
	for _, u := range ix.batchURLs(page, at, isPage) {
		m, ok := ix.Lookup(&Request{Method: httpmsg.MethodGet, URL: u}, at)
		if !ok || m.Approximate || m.Capture.Length > BatchBody+recordHeaders {
			continue
		}
		list := []cdx.Entry{m.Capture}
		if m.Capture.Mime == revisitMime {
			if o, ok := ix.original(m.Capture); ok && o.Length <= BatchBody+recordHeaders {
				list = append(list, o)
			}
		}
		for _, e := range list {
			if seen[e.Offset] {
				continue
			}
			if total += e.Length; total > BatchBytes {
				return out
			}
			seen[e.Offset] = true
			out = append(out, e)
		}
	}
	return out
}

// neighbours returns the URLs of the GET captures around c in the file, each once
// and not c's own: those after it up to the next capture of a page, then those
// before it back to the previous one, then those written late (lateURLs), at most max.
func (ix *Index) neighbours(c cdx.Entry, isPage func(string) bool, max int) []string {
	at, _ := ix.offsetPlace(c.Offset)
	seen := map[string]bool{c.URL: true}
	var out []string
	take := func(e *cdx.Entry) {
		if (e.Method == "" || e.Method == httpmsg.MethodGet) && !seen[e.URL] && len(out) < max {
			seen[e.URL] = true
			out = append(out, e.URL)
		}
	}
	walk := func(from, step int) int {
		j := from
		for ; j >= 0 && j < len(ix.byOffset) && len(out) < max; j += step {
			e := &ix.captures[ix.byOffset[j]]
			if e.Offset == c.Offset {
				continue
			}
			if isPage(e.URL) {
				break
			}
			take(e)
		}
		return j
	}
	next := walk(at, 1)
	walk(at-1, -1)
	ix.lateURLs(c, next, isPage, take)
	return out
}

// Bounds of a batch's captures written late (lateURLs): answered at most lateWindow
// after the page, looked for until one answered lateStop after it, or lateRecords on.
const (
	lateWindow  = 2 * time.Second
	lateStop    = 30 * time.Second
	lateRecords = BatchCaptures
)

// lateURLs hands take the captures from the place next on (the next page's), not of
// pages, answered within lateWindow after c. A resource's record may be written after
// the next page's: the recorder asks for a body once the page has loaded, and the tab
// may have gone on by then.
func (ix *Index) lateURLs(c cdx.Entry, next int, isPage func(string) bool, take func(*cdx.Entry)) {
	from := parseTimestamp(c.Timestamp)
	if from.IsZero() {
		return
	}
	for j := next; j >= 0 && j < len(ix.byOffset) && j < next+lateRecords; j++ {
		e := &ix.captures[ix.byOffset[j]]
		t := parseTimestamp(e.Timestamp)
		if d := t.Sub(from); d > lateStop {
			return
		} else if d >= 0 && d <= lateWindow && !isPage(e.URL) {
			take(e)
		}
	}
}

// ReadBatch reads what ServeBatch wrote: its answers, and the body of each.
func ReadBatch(r io.Reader) ([]BatchAnswer, [][]byte, error) {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil, nil, err
	}
	list := make([]byte, binary.BigEndian.Uint32(n[:]))
	if _, err := io.ReadFull(r, list); err != nil {
		return nil, nil, err
	}
	var answers []BatchAnswer
	if err := json.Unmarshal(list, &answers); err != nil {
		return nil, nil, err
	}
	bodies := make([][]byte, len(answers))
	for i, a := range answers {
		bodies[i] = make([]byte, a.Size)
		if _, err := io.ReadFull(r, bodies[i]); err != nil {
			return nil, nil, err
		}
	}
	return answers, bodies, nil
}
