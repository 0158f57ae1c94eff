package warc

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Date layouts: the draft's 14-digit GMT timestamp and WARC/1.x's W3C-ISO8601.
const (
	layout09 = "20060102150405"
	layout10 = "2006-01-02T15:04:05Z"
	// layout11Micro is WARC/1.1's date with a fraction of a second.
	layout11Micro = "2006-01-02T15:04:05.000000Z"
)

// field11 maps a WARC 0.9 named field (lower case) onto its WARC/1.1 name.
// Related-Record-ID is mapped by record type (see relatedName11).
var field11 = map[string]string{
	"ip-address":        "WARC-IP-Address",
	"segment-origin-id": "WARC-Segment-Origin-ID",
	"segment-number":    "WARC-Segment-Number",
	"end-length":        "WARC-Segment-Total-Length",
	"truncated":         "WARC-Truncated",
	"warcinfo-id":       "WARC-Warcinfo-ID",
	"checksum":          "WARC-Block-Digest",
}

// field09 is the inverse of field11, plus the two 1.1 fields that both mean
// Related-Record-ID.
var field09 = map[string]string{
	"warc-ip-address":           FieldIPAddress,
	"warc-segment-origin-id":    FieldSegmentOriginID,
	"warc-segment-number":       FieldSegmentNumber,
	"warc-segment-total-length": FieldEndLength,
	"warc-truncated":            FieldTruncated,
	"warc-warcinfo-id":          FieldWarcinfoID,
	"warc-block-digest":         FieldChecksum,
	"warc-concurrent-to":        FieldRelatedRecordID,
	"warc-refers-to":            FieldRelatedRecordID,
}

// payloadDigest09 is the name of the payload digest in WARC 0.9 records, an extra
// named field (section 5.2 allows them) that a Record's Header calls
// FieldPayloadDigest.
const payloadDigest09 = "Payload-Digest"

// idField11 lists the WARC/1.1 fields whose values are record ids in angle brackets.
var idField11 = map[string]bool{
	"warc-record-id":         true,
	"warc-concurrent-to":     true,
	"warc-refers-to":         true,
	"warc-segment-origin-id": true,
	"warc-warcinfo-id":       true,
}

// refersTypes are the record types whose (first) Related-Record-ID names the record
// they derive from, written WARC-Refers-To; for the others it names a record of the
// same capture event, written WARC-Concurrent-To.
var refersTypes = map[string]bool{TypeRevisit: true, TypeConversion: true}

// written11 lists the fields a WARC/1.1 writer computes or takes from the Record's own
// fields; copies of them in a Header are not written.
var written11 = map[string]bool{
	"warc-type": true, "warc-record-id": true, "warc-date": true, "warc-target-uri": true,
	"content-type": true, "content-length": true, "warc-block-digest": true, "checksum": true,
}

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

// ContentType11 returns the Content-Type that a WARC/1.1 Writer writes for a record
// of type typ whose ContentType is ct: "application/http;msgtype=..." for the draft's
// "message/http", ct itself otherwise.
func ContentType11(ct, typ string) string { return contentType11(ct, typ) }

// contentType11 is the WARC/1.1 content type: "application/http;msgtype=..." for the
// draft's "message/http" in requests and responses.
func contentType11(ct, typ string) string {
	if !strings.HasPrefix(strings.ToLower(ct), "message/http") {
		return ct
	}
	switch typ {
	case TypeResponse, TypeRevisit:
		return "application/http;msgtype=response"
	case TypeRequest:
		return "application/http;msgtype=request"
	}
	return "application/http"
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

func digits(n int64) int {
	d := 1
	for n >= 10 {
		n /= 10
		d++
	}
	return d
}

// appendHeader11 appends a complete WARC/1.x record header to dst. fields are in
// WARC 0.9 names and are mapped here; extra are fields already in 1.1 form (digests).
func appendHeader11(dst []byte, v Version, r *Record, fields Header, extra Header, blockLen int64) ([]byte, error) {
	start := len(dst)
	if v == V10 {
		dst = append(dst, "WARC/1.0\r\n"...)
	} else {
		dst = append(dst, "WARC/1.1\r\n"...)
	}
	add := func(name, value string) error {
		if err := checkFieldName(name); err != nil {
			return err
		}
		if err := checkFieldValue(name, value); err != nil {
			return err
		}
		dst = append(dst, name...)
		dst = append(dst, ':', ' ')
		dst = append(dst, value...)
		dst = append(dst, '\r', '\n')
		return nil
	}
	addID := func(name, id string) error {
		if strings.ContainsAny(id, "<> \t") {
			return fmt.Errorf("%w: %s %q", ErrField, name, id)
		}
		return add(name, "<"+id+">")
	}
	if r.Type == "" {
		return dst, fmt.Errorf("%w: record-type", ErrMissing)
	}
	if err := add("WARC-Type", r.Type); err != nil {
		return dst[:start], err
	}
	if err := addID("WARC-Record-ID", r.ID); err != nil {
		return dst[:start], err
	}
	// Fractions of a second (WARC/1.1 only) are kept to the microsecond, the most
	// that Python's datetime (warcio, pywb) parses.
	date := r.Date.UTC().Truncate(time.Microsecond)
	dst = append(dst, "WARC-Date: "...)
	if v == V10 || date.Nanosecond() == 0 {
		dst = date.AppendFormat(dst, layout10)
	} else {
		dst = date.AppendFormat(dst, layout11Micro)
	}
	dst = append(dst, '\r', '\n')
	uri := r.TargetURI
	if r.Type == TypeWarcinfo && strings.HasPrefix(uri, "filedesc:") {
		if !fields.Has(FieldFilename) {
			if err := add(FieldFilename, strings.TrimPrefix(uri, "filedesc:")); err != nil {
				return dst[:start], err
			}
		}
		uri = ""
	}
	if uri != "" {
		if err := add("WARC-Target-URI", uri); err != nil {
			return dst[:start], err
		}
	}
	refersDone := false
	for _, f := range fields {
		lname := strings.ToLower(f.Name)
		var err error
		switch {
		case written11[lname]:
			continue
		case lname == "related-record-id":
			if refersTypes[r.Type] && !refersDone {
				refersDone = true
				err = addID("WARC-Refers-To", f.Value)
			} else {
				err = addID("WARC-Concurrent-To", f.Value)
			}
		case field11[lname] != "":
			name := field11[lname]
			if idField11[strings.ToLower(name)] {
				err = addID(name, f.Value)
			} else {
				err = add(name, f.Value)
			}
		default:
			err = add(f.Name, f.Value)
		}
		if err != nil {
			return dst[:start], err
		}
	}
	for _, f := range extra {
		if err := add(f.Name, f.Value); err != nil {
			return dst[:start], err
		}
	}
	if r.ContentType != "" {
		if err := add("Content-Type", contentType11(r.ContentType, r.Type)); err != nil {
			return dst[:start], err
		}
	}
	dst = append(dst, "Content-Length: "...)
	dst = strconv.AppendInt(dst, blockLen, 10)
	dst = append(dst, "\r\n\r\n"...)
	return dst, nil
}
