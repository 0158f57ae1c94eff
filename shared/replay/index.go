// Package replay answers a browser's requests from an archived session: it finds the
// capture of a replayed request in the session's CDXJ index (pywb 2.6.7 keys, so a
// POST or PUT is found by its body) and reads its response from the WARC file.
//
// ReadIndex parses the index, Index.Lookup finds the capture of a request (exact key,
// nearest in time; else a fuzzy match, marked approximate), and Open reads the
// capture's status, header and body, a revisit resolved to its original payload and
// a segmented record joined.
package replay

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/webkeep/webkeep/shared/cdx"
)

// MaxLine is the longest CDXJ line ReadIndex reads; a longer one is a problem.
const MaxLine = 1 << 20

// ErrLine is returned (wrapped with the line number) for a CDXJ line that is not
// "urlkey timestamp {json}".
var ErrLine = errors.New("replay: invalid CDXJ line")

// An Index holds the captures of a session that can answer a request: responses
// and revisits, sorted by key and time.
type Index struct {
	captures []cdx.Entry
	byDigest map[string][]int // responses by payload digest
	byOffset []int            // the captures in the order of the file

	// Problems lists the lines that were skipped, each with its line number.
	Problems []error
	// MaxBody is the longest body Serve gives a request, in bytes; zero means
	// DefaultMaxBody.
	MaxBody int64

	id uint64 // tells its captures' records from another index's (Response.Record)
}

// indexes counts the indexes made, to number them.
var indexes atomic.Uint64

// ReadIndex reads CDXJ lines (in any order) from r. A line that cannot be parsed is
// skipped and listed in Problems; only a read error fails.
func ReadIndex(r io.Reader) (*Index, error) { return readIndex(r, nil) }

// MaxFileIndex bounds the bytes of a bundle's index ReadFileIndex reads: a bundle of
// 100,000 captures has an index of about 30 MB.
const MaxFileIndex = 32 << 20

// ReadFileIndex reads the CDXJ index of a bundle of WARC files (a WACZ's, a team
// archive's bundle's) from r, as it streams, and returns the index of file's captures
// alone, and the URLs of file's pages: its HTML answers, at which a page's batch ends
// (Batch's isPage). An index over MaxFileIndex bytes is an error.
func ReadFileIndex(r io.Reader, file string) (*Index, map[string]bool, error) {
	pages := map[string]bool{}
	lr := &io.LimitedReader{R: r, N: MaxFileIndex + 1}
	ix, err := readIndex(lr, func(e *cdx.Entry) bool {
		if e.Filename != file {
			return false
		}
		if strings.HasPrefix(e.Mime, "text/html") {
			pages[e.URL] = true
		}
		return true
	})
	if err == nil && lr.N <= 0 {
		err = fmt.Errorf("replay: the index is over %d MB", MaxFileIndex>>20)
	}
	if err != nil {
		return nil, nil, err
	}
	return ix, pages, nil
}

// readIndex reads CDXJ lines from r, as ReadIndex, keeping those keep says to (all
// when keep is nil).
func readIndex(r io.Reader, keep func(*cdx.Entry) bool) (*Index, error) {
	var captures []cdx.Entry
	var problems []error
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, err := readLine(br)
		if len(line) > 0 {
			if e, perr := ParseLine(line); perr != nil {
				problems = append(problems, fmt.Errorf("line %d: %w", n, perr))
			} else if (keep == nil || keep(&e)) && answers(&e) {
				captures = append(captures, e)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("replay: reading the index at line %d: %w", n, err)
		}
	}
	ix := newIndex(captures)
	ix.Problems = problems
	return ix, nil
}

// newIndex makes the index of captures, each a response or a revisit (answers).
func newIndex(captures []cdx.Entry) *Index {
	ix := &Index{captures: captures, byDigest: map[string][]int{}, id: indexes.Add(1)}
	slices.SortStableFunc(ix.captures, func(a, b cdx.Entry) int {
		if c := strings.Compare(a.URLKey, b.URLKey); c != 0 {
			return c
		}
		return strings.Compare(a.Timestamp, b.Timestamp)
	})
	for i := range ix.captures {
		if e := &ix.captures[i]; e.Mime != revisitMime && e.Digest != "" {
			ix.byDigest[e.Digest] = append(ix.byDigest[e.Digest], i)
		}
		ix.byOffset = append(ix.byOffset, i)
	}
	slices.SortStableFunc(ix.byOffset, func(a, b int) int { return cmp.Compare(ix.captures[a].Offset, ix.captures[b].Offset) })
	return ix
}

// LookupAmong finds the capture that answers r among captures, as Index.Lookup finds
// it, and returns its place in captures too. The captures are lines an index answered
// elsewhere (a team archive's CDX server), each as ParseLine parses it.
func LookupAmong(captures []cdx.Entry, r *Request, at string) (m Match, i int, ok bool) {
	placed := make([]cdx.Entry, 0, len(captures))
	for i, e := range captures {
		if answers(&e) {
			e.Filename = strconv.Itoa(i) // its place, kept in the index
			placed = append(placed, e)
		}
	}
	m, ok = newIndex(placed).Lookup(r, at)
	if !ok {
		return m, -1, false
	}
	i, _ = strconv.Atoi(m.Capture.Filename)
	m.Capture = captures[i]
	return m, i, true
}

// ValidTimestamp says whether ts is a time a replay may be asked for: up to 14 digits
// (YYYYMMDDhhmmss, UTC, cut anywhere), or none (the latest).
func ValidTimestamp(ts string) bool {
	return len(ts) <= 14 && strings.Trim(ts, "0123456789") == ""
}

// readLine returns the next line without its end; a line longer than MaxLine is
// returned cut, which ParseLine then rejects.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		part, err := br.ReadSlice('\n')
		if len(line)+len(part) <= MaxLine+1 {
			line = append(line, part...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if len(line) > MaxLine {
			return []byte("\x00too long"), err
		}
		return trimEOL(line), err
	}
}

func trimEOL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// revisitMime is the mime pywb's indexer gives a revisit record.
const revisitMime = "warc/revisit"

// answers reports whether a line is of a record that answers a request: a response
// (it has a status) or a revisit. A 304 does not: it is the server's answer to the
// browser's revalidation of a copy in its cache (the recorder archives it as sent),
// with none of the body; the URL's response that has the body answers instead.
func answers(e *cdx.Entry) bool {
	if e.Mime == revisitMime {
		return true
	}
	if e.Status == "" || e.Status == "-" || e.Status == "304" {
		return false
	}
	_, err := strconv.Atoi(e.Status)
	return err == nil
}

// ParseLine parses one CDXJ line, "urlkey timestamp {json}", as pywb's indexer writes
// it (either dialect).
func ParseLine(line []byte) (cdx.Entry, error) {
	e, err := cdx.ParseEntry(line)
	if err != nil {
		return cdx.Entry{}, fmt.Errorf("%w: %v", ErrLine, err)
	}
	if len(e.Timestamp) < 4 {
		return cdx.Entry{}, fmt.Errorf("%w: timestamp %q is not 4 to 14 digits", ErrLine, e.Timestamp)
	}
	if !bytes.Contains(line, []byte(`"offset"`)) {
		return cdx.Entry{}, fmt.Errorf("%w: no offset", ErrLine)
	}
	e.Timestamp = padTimestamp(e.Timestamp)
	e.Digest = strings.TrimPrefix(e.Digest, "sha1:")
	e.Method = strings.ToUpper(e.Method)
	return e, nil
}

// padTimestamp pads a short timestamp down to 14 digits, as pywb does.
func padTimestamp(ts string) string {
	const pad = "10000101000000"
	if len(ts) >= 14 {
		return ts
	}
	return ts + pad[len(ts):]
}

func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// Len returns the number of captures in the index.
func (ix *Index) Len() int { return len(ix.captures) }

// At returns the capture whose record is at offset in the file, if there is one.
func (ix *Index) At(offset int64) (cdx.Entry, bool) {
	i, ok := ix.offsetPlace(offset)
	if !ok {
		return cdx.Entry{}, false
	}
	return ix.captures[ix.byOffset[i]], true
}

// offsetPlace returns the place in byOffset of the first capture at offset or
// after it, and whether one is at offset.
func (ix *Index) offsetPlace(offset int64) (int, bool) {
	return slices.BinarySearchFunc(ix.byOffset, offset, func(i int, off int64) int {
		return cmp.Compare(ix.captures[i].Offset, off)
	})
}
