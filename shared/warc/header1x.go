package warc

// WARC/1.0 and 1.1: the version line and named fields, read and written, and the
// mapping between their field names and this package's WARC 0.9 ones.

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

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

// idField11 lists the WARC/1.1 fields whose values are record ids in angle brackets.
var idField11 = map[string]bool{
	"warc-record-id":         true,
	"warc-concurrent-to":     true,
	"warc-refers-to":         true,
	"warc-segment-origin-id": true,
	"warc-warcinfo-id":       true,
}

// readHeader1 parses a WARC/1.0 or 1.1 header and maps its fields to this package's
// WARC 0.9 names.
func (r *Reader) readHeader1(versionLine string) (*Record, error) {
	rec := &Record{Version: V11}
	if versionLine == "warc/1.0" {
		rec.Version = V10
	}
	fields, err := r.readFields(false)
	if err != nil {
		return nil, err
	}
	length := int64(-1)
	var filename string
	refers := 0
	for _, f := range fields {
		lname := strings.ToLower(f.Name)
		switch lname {
		case "warc-type":
			rec.Type = f.Value
		case "warc-record-id":
			rec.ID = unbracket(f.Value)
		case "warc-date":
			rec.Date, err = parseDate1(f.Value)
			if err != nil {
				off, _ := r.fileOffset(r.recStart)
				r.problems = append(r.problems, fmt.Errorf("%w at %d: WARC-Date %q", ErrField, off, f.Value))
			}
		case "warc-target-uri":
			rec.TargetURI = unbracket(f.Value)
		case "content-type":
			rec.ContentType = f.Value
		case "content-length":
			if length, err = parseLength(f.Value); err != nil {
				return nil, fmt.Errorf("%w: Content-Length %q", ErrHeader, f.Value)
			}
		case "warc-filename":
			filename = f.Value
		case "warc-refers-to":
			// The record a revisit or conversion derives from comes first.
			rec.Header = append(rec.Header, Field{})
			copy(rec.Header[refers+1:], rec.Header[refers:])
			rec.Header[refers] = Field{FieldRelatedRecordID, unbracket(f.Value)}
			refers++
		default:
			if name, ok := field09[lname]; ok {
				v := f.Value
				if idField11[lname] {
					v = unbracket(v)
				}
				rec.Header = append(rec.Header, Field{name, v})
			} else {
				rec.Header = append(rec.Header, f)
			}
		}
	}
	if length < 0 {
		return nil, fmt.Errorf("%w: no Content-Length", ErrHeader)
	}
	if rec.Type == TypeWarcinfo && rec.TargetURI == "" && filename != "" {
		rec.TargetURI = "filedesc:" + filename
	} else if filename != "" {
		rec.Header = append(rec.Header, Field{FieldFilename, filename})
	}
	rec.BlockLength = length
	return rec, nil
}

func unbracket(s string) string {
	if len(s) >= 2 && s[0] == '<' && s[len(s)-1] == '>' {
		return s[1 : len(s)-1]
	}
	return s
}

// parseDate1 parses a WARC/1.x date (W3C-ISO8601, to any precision); a 14-digit
// timestamp is accepted too.
func parseDate1(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	for _, layout := range []string{"2006-01-02T15:04Z", "2006-01-02", "2006-01", "2006", layout09} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%w: date %q", ErrField, s)
}

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
