package warc

// Record headers, of any version: the version line that says which, header lines
// and named fields, and what the versions' headers share.

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// MaxHeaderBytes bounds the size of one record header; a longer one is damage.
const MaxHeaderBytes = 1 << 20

// Date layouts: the draft's 14-digit GMT timestamp and WARC/1.x's W3C-ISO8601.
const (
	layout09 = "20060102150405"
	layout10 = "2006-01-02T15:04:05Z"
	// layout11Micro is WARC/1.1's date with a fraction of a second.
	layout11Micro = "2006-01-02T15:04:05.000000Z"
)

// segmentFields are written by the segmenting writer itself.
var segmentFields = map[string]bool{
	"segment-number": true, "segment-origin-id": true, "end-length": true,
}

// checkFieldName reports whether name is a legal field name: one or more CHARs,
// no control characters, no ":" (section 3; no space either, as in RFC 822).
func checkFieldName(name string) error {
	if name == "" {
		return fmt.Errorf("%w: empty field name", ErrField)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c <= ' ' || c >= 0x7f || c == ':' {
			return fmt.Errorf("%w: field name %q", ErrField, name)
		}
	}
	return nil
}

// checkFieldValue refuses line ends in a value: the writer never folds.
func checkFieldValue(name, value string) error {
	if strings.ContainsAny(value, "\r\n") {
		return fmt.Errorf("%w: %s: value contains a line end", ErrField, name)
	}
	return nil
}

// readHeader reads a record header, of any version, at the current position.
func (r *Reader) readHeader() (*Record, error) {
	first, err := r.readLine(false)
	if err != nil {
		return nil, err
	}
	if len(first) >= 8 && asciiEqualFold(first[:8], "warc/0.9") && (len(first) == 8 || first[8] == ' ' || first[8] == '\t') {
		return r.readHeader09(first)
	}
	lower := strings.ToLower(first)
	switch {
	case lower == "warc/1.0" || lower == "warc/1.1":
		return r.readHeader1(lower)
	}
	if len(first) > 40 {
		first = first[:40] + "..."
	}
	if strings.HasPrefix(lower, "warc/") {
		return nil, fmt.Errorf("%w: %q", ErrVersion, first)
	}
	return nil, fmt.Errorf("%w: %q is not a WARC record start", ErrHeader, first)
}

// asciiEqualFold reports whether s equals the lower-case ASCII lower but for
// the case of ASCII letters.
func asciiEqualFold(s, lower string) bool {
	if len(s) != len(lower) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// readLine reads one header line without its line end. A WARC 0.9 line ends only at
// CRLF: a bare LF is part of the text (the ruling on section 3's grammar).
func (r *Reader) readLine(crlfOnly bool) (string, error) {
	var line []byte
	for {
		frag, err := r.br.ReadSlice('\n')
		r.pos += int64(len(frag))
		r.raw = append(r.raw, frag...)
		if line == nil && err == nil && len(frag) <= MaxHeaderBytes && bytes.HasSuffix(frag, []byte("\r\n")) {
			// The common case: the whole line, CRLF-terminated, in the buffer.
			return string(frag[:len(frag)-2]), nil
		}
		line = append(line, frag...)
		if len(line) > MaxHeaderBytes {
			return "", fmt.Errorf("%w: more than %d bytes", ErrTooLong, MaxHeaderBytes)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return "", fmt.Errorf("%w: header cut short: %v", ErrHeader, err)
		}
		if crlfOnly && !bytes.HasSuffix(line, []byte("\r\n")) {
			continue
		}
		line = bytes.TrimSuffix(line[:len(line)-1], []byte("\r"))
		return string(line), nil
	}
}

// readFields reads named fields up to the blank line, unfolding continuation lines.
func (r *Reader) readFields(crlfOnly bool) (Header, error) {
	h := make(Header, 0, 8)
	total := 0
	for {
		at := r.pos
		line, err := r.readLine(crlfOnly)
		if err != nil {
			return nil, err
		}
		total += len(line)
		if total > MaxHeaderBytes {
			return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLong, MaxHeaderBytes)
		}
		if line == "" {
			if len(h) == 0 {
				return nil, nil
			}
			return h, nil
		}
		if (line[0] == ' ' || line[0] == '\t') && len(h) > 0 {
			h[len(h)-1].Value += " " + strings.TrimLeft(line, " \t")
			continue
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok || checkFieldName(name) != nil {
			off, _ := r.fileOffset(at)
			r.problems = append(r.problems, fmt.Errorf("%w at %d: %q is not a named field", ErrField, off, truncate(line)))
			continue
		}
		h = append(h, Field{name, strings.Trim(value, " \t")})
	}
}

func truncate(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}

// parseLength parses a length of decimal digits (zero-padded ones included).
func parseLength(s string) (int64, error) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, strconv.ErrSyntax
	}
	s = strings.TrimLeft(s, "0")
	if s == "" {
		return 0, nil
	}
	return strconv.ParseInt(s, 10, 64)
}
