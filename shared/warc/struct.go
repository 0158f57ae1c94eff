// Package warc reads and writes WARC files: version 0.9 exactly as the IIPC draft of
// January 2006 describes it, and WARC/1.0 and WARC/1.1 (ISO 28500) as today's tools
// read them.
//
// A Record is version-neutral. Its Header holds the named fields under their WARC 0.9
// names (IP-Address, Related-Record-ID, Segment-Number, Truncated, ...); the WARC/1.1
// writer maps them onto the 1.1 names (WARC-IP-Address, WARC-Concurrent-To,
// WARC-Segment-Number, WARC-Truncated, ...) and the reader maps them back, so the same
// Record can be written in either version and converted between them.
//
// Files may be plain or compressed record-at-a-time with gzip (section 9.1 of the
// draft); the writer fills in the "sl" extra field of section 9.2 so that a reader can
// skip a record without inflating it.
package warc

import (
	"errors"
	"io"
	"strings"
	"time"
)

// Version is a WARC format version.
type Version int

// The versions this package reads; V09 and V11 (and V10) are also written.
const (
	V09 Version = 9  // "warc/0.9", the IIPC draft of January 2006
	V10 Version = 10 // "WARC/1.0", ISO 28500:2009
	V11 Version = 11 // "WARC/1.1", ISO 28500:2017
)

// String returns the version number, as in "0.9" or "1.1".
func (v Version) String() string {
	switch v {
	case V09:
		return "0.9"
	case V10:
		return "1.0"
	case V11:
		return "1.1"
	}
	return "unknown"
}

// Record types of section 4 of the draft (and of WARC/1.1).
const (
	TypeWarcinfo     = "warcinfo"
	TypeResponse     = "response"
	TypeResource     = "resource"
	TypeRequest      = "request"
	TypeMetadata     = "metadata"
	TypeRevisit      = "revisit"
	TypeConversion   = "conversion"
	TypeContinuation = "continuation"
)

// Named fields of section 5.2 of the draft, the names a Record's Header uses.
const (
	FieldIPAddress       = "IP-Address"
	FieldChecksum        = "Checksum"
	FieldRelatedRecordID = "Related-Record-ID"
	FieldSegmentOriginID = "Segment-Origin-ID"
	FieldSegmentNumber   = "Segment-Number"
	FieldEndLength       = "End-Length" // section 7.2: on the last segment
	FieldTruncated       = "Truncated"
	FieldWarcinfoID      = "Warcinfo-ID"
)

// Fields of WARC/1.1 that have no WARC 0.9 counterpart; they keep their 1.1 names in a
// Record's Header.
const (
	FieldPayloadDigest     = "WARC-Payload-Digest"
	FieldProfile           = "WARC-Profile"
	FieldRefersToTargetURI = "WARC-Refers-To-Target-URI"
	FieldRefersToDate      = "WARC-Refers-To-Date"
	FieldFilename          = "WARC-Filename"
)

// ProfileIdenticalPayload is the WARC/1.1 revisit profile for a payload already archived.
const ProfileIdenticalPayload = "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"

// Truncation reasons of section 7.1.
const (
	TruncatedLength = "length"
	TruncatedTime   = "time"
)

// recordType describes a record type of section 4: the named fields it requires.
type recordType struct {
	required []string
}

// recordTypes is section 4 of the draft: every type, and what each requires.
var recordTypes = map[string]recordType{
	TypeWarcinfo:     {},
	TypeResponse:     {},
	TypeResource:     {},
	TypeRequest:      {},
	TypeMetadata:     {},
	TypeRevisit:      {required: []string{FieldRelatedRecordID}},                     // 4.6
	TypeConversion:   {required: []string{FieldRelatedRecordID}},                     // 4.7
	TypeContinuation: {required: []string{FieldSegmentOriginID, FieldSegmentNumber}}, // 4.8
}

// Errors returned by this package, usable with errors.Is; they are wrapped with the
// offset, record or field where they were found.
var (
	ErrHeader      = errors.New("warc: invalid record header")
	ErrVersion     = errors.New("warc: unsupported version")
	ErrLength      = errors.New("warc: wrong record length")
	ErrField       = errors.New("warc: invalid field")
	ErrMissing     = errors.New("warc: missing required field")
	ErrDigest      = errors.New("warc: digest mismatch")
	ErrGzip        = errors.New("warc: broken gzip member")
	ErrSkipLength  = errors.New("warc: wrong sl skip-length")
	ErrSegment     = errors.New("warc: broken segment chain")
	ErrNotSeekable = errors.New("warc: source is not seekable")
	ErrTooLong     = errors.New("warc: header too long")
	ErrClosed      = errors.New("warc: writer closed")
)

// Field is one named field of a record header.
type Field struct {
	Name, Value string
}

// Header is the ordered list of a record's named fields. Names compare
// case-insensitively; a name may repeat (Related-Record-ID may).
type Header []Field

// Get returns the value of the first field called name, or "".
func (h Header) Get(name string) string {
	for _, f := range h {
		if strings.EqualFold(f.Name, name) {
			return f.Value
		}
	}
	return ""
}

// Values returns the values of every field called name, in order.
func (h Header) Values(name string) []string {
	var vs []string
	for _, f := range h {
		if strings.EqualFold(f.Name, name) {
			vs = append(vs, f.Value)
		}
	}
	return vs
}

// Has reports whether a field called name is present.
func (h Header) Has(name string) bool {
	for _, f := range h {
		if strings.EqualFold(f.Name, name) {
			return true
		}
	}
	return false
}

// Set replaces the fields called name by one with value, in the place of the first.
func (h *Header) Set(name, value string) {
	for i, f := range *h {
		if strings.EqualFold(f.Name, name) {
			(*h)[i].Value = value
			rest := (*h)[i+1:]
			rest.del(name)
			*h = (*h)[:i+1+len(rest)]
			return
		}
	}
	*h = append(*h, Field{name, value})
}

// Add appends a field.
func (h *Header) Add(name, value string) {
	*h = append(*h, Field{name, value})
}

// Del removes every field called name.
func (h *Header) Del(name string) {
	h.del(name)
}

func (h *Header) del(name string) {
	out := (*h)[:0]
	for _, f := range *h {
		if !strings.EqualFold(f.Name, name) {
			out = append(out, f)
		}
	}
	*h = out
}

// Clone returns a copy of h that shares nothing with it.
func (h Header) Clone() Header {
	if h == nil {
		return nil
	}
	return append(Header(nil), h...)
}

// Record is one WARC record, whatever its version.
type Record struct {
	// Version is set by the reader; a Writer writes its own version.
	Version Version
	// Type is the record type, one of the Type constants or a future type.
	Type string
	// TargetURI is the subject-uri (WARC/1.1: WARC-Target-URI). For a warcinfo
	// record it is "filedesc:" and the file name (WARC/1.1: WARC-Filename).
	TargetURI string
	// Date is the creation date; a Writer uses the current time when it is zero.
	Date time.Time
	// ID is the record-id URI, without angle brackets; a Writer generates
	// "urn:uuid:..." when it is empty.
	ID string
	// ContentType is the MIME type of the block.
	ContentType string
	// Header holds the other named fields, under their WARC 0.9 names.
	Header Header
	// Block is the content block: BlockLength bytes are read from it. A Writer makes
	// two passes over an io.ReadSeeker and buffers any other reader.
	Block io.Reader
	// BlockLength is the length of the block in bytes. A Reader that reassembles
	// segments sets it to -1 until the last segment has been read.
	BlockLength int64
	// Offset is where the record starts in the file: for gzip files, the offset of
	// the gzip member that holds it. Set by a Reader; ignored by a Writer.
	Offset int64
}

// isHTTP reports whether a content type is an HTTP message (WARC 0.9 "message/http",
// WARC/1.1 "application/http", with or without msgtype).
func isHTTP(contentType string) bool {
	ct := strings.ToLower(contentType)
	return strings.HasPrefix(ct, "message/http") || strings.HasPrefix(ct, "application/http")
}
