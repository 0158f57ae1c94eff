package cdx

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// ErrLine is wrapped by the errors of SplitLine and LineReader: a line that is not
// "urlkey timestamp {json}".
var ErrLine = errors.New("cdx: not a CDXJ line (urlkey timestamp {json})")

// MaxLineLength bounds a CDXJ line that LineReader reads.
const MaxLineLength = 1 << 20

// SplitLine splits a CDXJ line (without its newline) into its key, its timestamp and
// its JSON object, and checks their shape: a key without spaces, 1 to 14 digits (pywb
// writes 14; shorter ones are legal CDX), a JSON object. The parts share line's
// memory.
func SplitLine(line []byte) (key, timestamp, fields []byte, err error) {
	key, rest, ok := bytes.Cut(line, []byte(" "))
	if !ok || len(key) == 0 {
		return nil, nil, nil, fmt.Errorf("%w: no space after the key", ErrLine)
	}
	timestamp, fields, ok = bytes.Cut(rest, []byte(" "))
	if !ok || len(timestamp) == 0 || len(timestamp) > 14 || len(bytes.Trim(timestamp, "0123456789")) != 0 {
		return nil, nil, nil, fmt.Errorf("%w: timestamp %.20q is not 1 to 14 digits", ErrLine, timestamp)
	}
	fields = bytes.TrimSpace(fields)
	if len(fields) < 2 || fields[0] != '{' || fields[len(fields)-1] != '}' || !json.Valid(fields) {
		return nil, nil, nil, fmt.Errorf("%w: its fields are not a JSON object", ErrLine)
	}
	return key, timestamp, fields, nil
}

// A LineReader reads the lines of a CDXJ index: the counterpart of AppendLine and
// Writer.
type LineReader struct {
	sc   *bufio.Scanner
	line int
}

// NewLineReader returns a LineReader of r.
func NewLineReader(r io.Reader) *LineReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLineLength)
	return &LineReader{sc: sc}
}

// Next returns the parts of the next line (see SplitLine), valid until the next
// call; blank lines are skipped. At the end it returns io.EOF. A malformed line is
// an error that names its number (wrapping ErrLine): call Next again to go on.
func (r *LineReader) Next() (key, timestamp, fields []byte, err error) {
	for r.sc.Scan() {
		r.line++
		line := bytes.TrimRight(r.sc.Bytes(), "\r")
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		key, timestamp, fields, err = SplitLine(line)
		if err != nil {
			err = fmt.Errorf("line %d: %w", r.line, err)
		}
		return key, timestamp, fields, err
	}
	if err := r.sc.Err(); err != nil {
		return nil, nil, nil, fmt.Errorf("cdx: line %d: %w", r.line+1, err)
	}
	return nil, nil, nil, io.EOF
}

// ParseEntry reads an Entry back from a CDXJ line that AppendLine (in any dialect),
// pywb or warcio wrote: the inverse of AppendLine. Fields it does not know are
// ignored; length and offset, when present, must be whole numbers.
func ParseEntry(line []byte) (Entry, error) {
	key, ts, fields, err := SplitLine(line)
	if err != nil {
		return Entry{}, err
	}
	var f struct {
		URL          string `json:"url"`
		Mime         string `json:"mime"`
		MimeDetected string `json:"mime-detected"`
		Status       string `json:"status"`
		Digest       string `json:"digest"`
		Length       string `json:"length"`
		Offset       string `json:"offset"`
		Method       string `json:"method"`
		RequestBody  string `json:"requestBody"`
		Filename     string `json:"filename"`
		Metadata     string `json:"metadata"`
	}
	if err := json.Unmarshal(fields, &f); err != nil {
		return Entry{}, fmt.Errorf("%w: %v", ErrLine, err)
	}
	e := Entry{
		URLKey: string(key), Timestamp: string(ts), URL: f.URL, Mime: f.Mime, MimeDetected: f.MimeDetected,
		Status: f.Status, Digest: f.Digest, Method: f.Method, RequestBody: f.RequestBody, Filename: f.Filename,
		Metadata: f.Metadata,
	}
	for _, n := range []struct {
		name, s string
		dst     *int64
	}{{"length", f.Length, &e.Length}, {"offset", f.Offset, &e.Offset}} {
		if n.s == "" {
			continue
		}
		v, err := strconv.ParseInt(n.s, 10, 64)
		if err != nil || v < 0 {
			return Entry{}, fmt.Errorf("%w: %s %.20q is not a whole number", ErrLine, n.name, n.s)
		}
		*n.dst = v
	}
	return e, nil
}
