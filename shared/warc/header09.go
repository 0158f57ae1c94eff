package warc

// WARC 0.9 (the IIPC draft of 2006): the header-line of positional parameters and the
// named fields after it, read and written.

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// payloadDigest09 is the name of the payload digest in WARC 0.9 records, an extra
// named field (section 5.2 allows them) that a Record's Header calls
// FieldPayloadDigest.
const payloadDigest09 = "Payload-Digest"

// readHeader09 parses the positional parameters of a WARC 0.9 header-line
// (section 5.1) and the named fields after it.
func (r *Reader) readHeader09(line string) (*Record, error) {
	var tok [7]string
	n := 0
	for rest := line; ; {
		rest = strings.TrimLeft(rest, " \t")
		if rest == "" {
			break
		}
		end := indexBlank(rest)
		if end < 0 {
			end = len(rest)
		}
		if n < len(tok) {
			tok[n] = rest[:end]
		}
		n++
		rest = rest[end:]
	}
	if n != 7 {
		return nil, fmt.Errorf("%w: warc/0.9 header-line has %d parameters, want 7", ErrHeader, n)
	}
	length, err := parseLength(tok[1])
	if err != nil {
		return nil, fmt.Errorf("%w: data-length %q", ErrHeader, tok[1])
	}
	rec := &Record{Version: V09, Type: tok[2], TargetURI: tok[3], ContentType: tok[5], ID: tok[6]}
	// Heritrix (2006) wrote the record-id before the content-type: a record-id is a
	// URI and has a scheme and ":"; a content-type has none.
	if strings.Contains(rec.ContentType, ":") && !strings.Contains(rec.ID, ":") {
		rec.ContentType, rec.ID = rec.ID, rec.ContentType
	}
	if rec.Date, err = parseDate09(tok[4]); err != nil {
		off, _ := r.fileOffset(r.recStart)
		r.problems = append(r.problems, fmt.Errorf("%w at %d: creation-date %q is not a 14-digit timestamp", ErrField, off, tok[4]))
	}
	if rec.Header, err = r.readFields(true); err != nil {
		return nil, err
	}
	for i, f := range rec.Header {
		if strings.EqualFold(f.Name, payloadDigest09) {
			rec.Header[i].Name = FieldPayloadDigest
		}
	}
	headerLen := r.pos - r.recStart
	rec.BlockLength = length - headerLen
	if rec.BlockLength < 0 {
		return nil, fmt.Errorf("%w: data-length %d is shorter than the %d-byte header", ErrLength, length, headerLen)
	}
	return rec, nil
}

// parseDate09 parses a 14-digit creation-date, as time.Parse(layout09, s) does.
func parseDate09(s string) (time.Time, error) {
	if len(s) == len(layout09) {
		var v [6]int
		ok := true
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c < '0' || c > '9' {
				ok = false
				break
			}
			k := 0
			if i >= 4 {
				k = (i-4)/2 + 1
			}
			v[k] = v[k]*10 + int(c-'0')
		}
		if ok {
			t := time.Date(v[0], time.Month(v[1]), v[2], v[3], v[4], v[5], 0, time.UTC)
			if t.Year() == v[0] && int(t.Month()) == v[1] && t.Day() == v[2] && t.Hour() == v[3] && t.Minute() == v[4] && t.Second() == v[5] {
				return t, nil
			}
		}
	}
	return time.Parse(layout09, s) // the error, or an unusual form
}

// indexBlank returns the index of the first space or tab in s, or -1.
func indexBlank(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' || s[i] == '\t' {
			return i
		}
	}
	return -1
}

// appendHeader09 appends a complete WARC 0.9 record header (header-line, named
// fields, blank line) for a block of blockLen bytes to dst. data-length counts from
// the "w" through the block's last byte, its own digits included (section 5.1).
func appendHeader09(dst []byte, r *Record, fields Header, blockLen int64) ([]byte, error) {
	typ, err := token09("record-type", r.Type, false)
	if err != nil {
		return dst, err
	}
	uri, err := token09("subject-uri", r.TargetURI, true)
	if err != nil {
		return dst, err
	}
	id, err := token09("record-id", r.ID, false)
	if err != nil {
		return dst, err
	}
	ct, err := token09("content-type", contentType09(r.ContentType), false)
	if err != nil {
		return dst, err
	}
	date := r.Date.UTC()
	if date.Year() < 0 || date.Year() > 9999 {
		return dst, fmt.Errorf("%w: creation-date %v out of range", ErrField, r.Date)
	}
	start := len(dst)
	dst = append(dst, "warc/0.9 "...)
	lenAt := len(dst)
	dst = append(dst, ' ')
	dst = append(dst, typ...)
	dst = append(dst, ' ')
	dst = append(dst, uri...)
	dst = append(dst, ' ')
	dst = date.AppendFormat(dst, layout09)
	dst = append(dst, ' ')
	dst = append(dst, ct...)
	dst = append(dst, ' ')
	dst = append(dst, id...)
	dst = append(dst, '\r', '\n')
	for _, f := range fields {
		if err := checkFieldName(f.Name); err != nil {
			return dst[:start], err
		}
		if err := checkFieldValue(f.Name, f.Value); err != nil {
			return dst[:start], err
		}
		if strings.EqualFold(f.Name, FieldPayloadDigest) {
			f.Name = payloadDigest09
		}
		dst = append(dst, f.Name...)
		dst = append(dst, ':', ' ')
		dst = append(dst, f.Value...)
		dst = append(dst, '\r', '\n')
	}
	dst = append(dst, '\r', '\n')
	// Solve n = rest + digits(n); it always has a solution with digits(rest) or one
	// more digit, so no padding is ever needed.
	rest := int64(len(dst)-start) + blockLen
	d := digits(rest)
	if digits(rest+int64(d)) != d {
		d++
	}
	var num [20]byte
	n := strconv.AppendInt(num[:0], rest+int64(d), 10)
	dst = append(dst, n...) // grow by len(n), then shift the tail right
	copy(dst[lenAt+len(n):], dst[lenAt:len(dst)-len(n)])
	copy(dst[lenAt:], n)
	return dst, nil
}

// token09 makes s a header-line token: no internal whitespace (section 5.1). URIs get
// their whitespace percent-escaped; other tokens refuse it.
func token09(name, s string, escape bool) (string, error) {
	if s == "" {
		return "", fmt.Errorf("%w: %s", ErrMissing, name)
	}
	if !strings.ContainsAny(s, " \t\r\n\v\f") && !hasControl(s) {
		return s, nil
	}
	if !escape {
		return "", fmt.Errorf("%w: %s %q contains whitespace", ErrField, name, s)
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c == 0x7f {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] == 0x7f {
			return true
		}
	}
	return false
}

// contentType09 is the draft's content-type token: type "/" subtype, and for HTTP
// messages "message/http" (section 8.1); whitespace around parameters is removed.
func contentType09(ct string) string {
	if ct == "" {
		return "application/octet-stream"
	}
	if strings.HasPrefix(strings.ToLower(ct), "application/http") {
		return "message/http"
	}
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' {
			return -1
		}
		return r
	}, ct)
}

func digits(n int64) int {
	d := 1
	for n >= 10 {
		n /= 10
		d++
	}
	return d
}
