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
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

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

	// Problems lists the lines that were skipped, each with its line number.
	Problems []error
}

// ReadIndex reads CDXJ lines (in any order) from r. A line that cannot be parsed is
// skipped and listed in Problems; only a read error fails.
func ReadIndex(r io.Reader) (*Index, error) {
	ix := &Index{byDigest: map[string][]int{}}
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, err := readLine(br)
		if len(line) > 0 {
			if e, perr := ParseLine(line); perr != nil {
				ix.Problems = append(ix.Problems, fmt.Errorf("line %d: %w", n, perr))
			} else if answers(&e) {
				ix.captures = append(ix.captures, e)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("replay: reading the index at line %d: %w", n, err)
		}
	}
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
	}
	return ix, nil
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
// (it has a status) or a revisit.
func answers(e *cdx.Entry) bool {
	if e.Mime == revisitMime {
		return true
	}
	if e.Status == "" || e.Status == "-" {
		return false
	}
	_, err := strconv.Atoi(e.Status)
	return err == nil
}

// ParseLine parses one CDXJ line, "urlkey timestamp {json}", as pywb's indexer writes
// it (either dialect).
func ParseLine(line []byte) (cdx.Entry, error) {
	var e cdx.Entry
	s := string(line)
	key, rest, ok := strings.Cut(s, " ")
	ts, js, ok2 := strings.Cut(rest, " ")
	if !ok || !ok2 || key == "" {
		return e, fmt.Errorf("%w: not urlkey, timestamp and JSON", ErrLine)
	}
	if len(ts) < 4 || len(ts) > 14 || strings.Trim(ts, "0123456789") != "" {
		return e, fmt.Errorf("%w: timestamp %q is not 4 to 14 digits", ErrLine, truncate(ts))
	}
	var f struct {
		URL         string `json:"url"`
		Mime        string `json:"mime"`
		Status      string `json:"status"`
		Digest      string `json:"digest"`
		Length      string `json:"length"`
		Offset      string `json:"offset"`
		Method      string `json:"method"`
		RequestBody string `json:"requestBody"`
		Filename    string `json:"filename"`
	}
	if err := json.Unmarshal([]byte(js), &f); err != nil {
		return e, fmt.Errorf("%w: JSON: %v", ErrLine, err)
	}
	off, err := strconv.ParseInt(f.Offset, 10, 64)
	if err != nil || off < 0 {
		return e, fmt.Errorf("%w: offset %q", ErrLine, truncate(f.Offset))
	}
	length, err := strconv.ParseInt(f.Length, 10, 64)
	if f.Length != "" && (err != nil || length < 0) {
		return e, fmt.Errorf("%w: length %q", ErrLine, truncate(f.Length))
	}
	e = cdx.Entry{
		URLKey: key, Timestamp: padTimestamp(ts), URL: f.URL, Mime: f.Mime, Status: f.Status,
		Digest: strings.TrimPrefix(f.Digest, "sha1:"), Length: length, Offset: off,
		Method: strings.ToUpper(f.Method), RequestBody: f.RequestBody, Filename: f.Filename,
	}
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
