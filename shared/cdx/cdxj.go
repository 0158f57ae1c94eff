package cdx

import (
	"bufio"
	"bytes"
	"io"
	"slices"
	"strconv"

	"github.com/webkeep/webkeep/internal/pyfmt"
)

// An Entry is one CDXJ line: the fields pywb's indexer writes.
type Entry struct {
	URLKey    string // SURT of URL with the method/body query appended
	Timestamp string // 14 digits
	URL       string // WARC-Target-URI
	Mime      string // content type without parameters; "warc/revisit" for revisits
	Status    string // HTTP status of a response
	Digest    string // payload digest without its "sha1:" prefix
	Length    int64  // record length in the file (compressed member length)
	Offset    int64  // record offset in the file

	Method      string // request method when not GET
	RequestBody string // the appended body query
	Filename    string

	// Metadata is WARC-Json-Metadata and MimeDetected is
	// WARC-Identified-Payload-Type, written when present.
	Metadata     string
	MimeDetected string

	// Type is the record's WARC-Type (its WARC/1.1 name), for callers that keep
	// some lines only; it is not written to the line.
	Type string
}

// AppendLine appends "urlkey timestamp {json}\n" to dst.
//
// In the Pywb267 dialect the JSON is what pywb's indexer writes: Python's
// json.dumps (", " and ": " separators, non-ASCII escaped) of the non-empty
// fields other than "-", in pywb's order (metadata, url, mime, mime-detected,
// status, digest, length, offset, method, requestBody, filename). In the
// Pywb28 dialect it is what warcio.js writes: compact JSON.stringify, with
// filename before method and requestBody.
func (e *Entry) AppendLine(dst []byte, d Dialect) []byte {
	dst = append(dst, e.URLKey...)
	dst = append(dst, ' ')
	dst = append(dst, e.Timestamp...)
	dst = append(dst, ' ', '{')
	js := jsonWriter{dst: dst, compact: d.compactJSON()}
	js.field("metadata", e.Metadata)
	js.field("url", e.URL)
	js.field("mime", e.Mime)
	js.field("mime-detected", e.MimeDetected)
	js.field("status", e.Status)
	js.field("digest", e.Digest)
	js.memberInt("length", e.Length)
	js.memberInt("offset", e.Offset)
	if d.compactJSON() {
		js.member("filename", e.Filename)
	}
	js.field("method", e.Method)
	js.field("requestBody", e.RequestBody)
	if !d.compactJSON() {
		js.member("filename", e.Filename)
	}
	return append(js.dst, '}', '\n')
}

// jsonWriter writes the members of one flat object of strings.
type jsonWriter struct {
	dst     []byte
	compact bool
	n       int
}

func (w *jsonWriter) member(name, value string) {
	w.name(name)
	w.str(value)
}

// field writes a member unless value is empty or "-".
func (w *jsonWriter) field(name, value string) {
	if value != "" && value != "-" {
		w.member(name, value)
	}
}

// memberInt writes a member whose value is the decimal string of n.
func (w *jsonWriter) memberInt(name string, n int64) {
	w.name(name)
	w.dst = append(w.dst, '"')
	w.dst = strconv.AppendInt(w.dst, n, 10)
	w.dst = append(w.dst, '"')
}

// name writes the separator before a member and its name.
func (w *jsonWriter) name(name string) {
	if w.n > 0 {
		w.dst = append(w.dst, ',')
		if !w.compact {
			w.dst = append(w.dst, ' ')
		}
	}
	w.n++
	w.str(name)
	w.dst = append(w.dst, ':')
	if !w.compact {
		w.dst = append(w.dst, ' ')
	}
}

// str writes a JSON string: escaped to ASCII as Python's json.dumps does,
// or, compact, with only what JSON.stringify escapes. Invalid UTF-8 is
// written as U+FFFD.
func (w *jsonWriter) str(s string) {
	if w.compact {
		w.dst = pyfmt.AppendJSONStringUTF8(w.dst, s)
	} else {
		w.dst = pyfmt.AppendJSONString(w.dst, s)
	}
}

// A Writer collects CDXJ lines and writes them sorted, as pywb's
// SortedCDXWriter does (byte order of whole lines), when it is closed.
type Writer struct {
	w       io.Writer
	dialect Dialect
	buf     []byte
	lines   [][2]int // start, end of each line in buf
}

// NewWriter returns a Writer that writes a sorted index in dialect d to w.
func NewWriter(w io.Writer, d Dialect) *Writer {
	return &Writer{w: w, dialect: d}
}

// Write adds the line of e to the index.
func (w *Writer) Write(e *Entry) error {
	start := len(w.buf)
	w.buf = e.AppendLine(w.buf, w.dialect)
	w.lines = append(w.lines, [2]int{start, len(w.buf)})
	return nil
}

// Len returns the number of lines added.
func (w *Writer) Len() int { return len(w.lines) }

// Close sorts the lines and writes them out.
func (w *Writer) Close() error {
	slices.SortStableFunc(w.lines, func(a, b [2]int) int {
		return bytes.Compare(w.buf[a[0]:a[1]], w.buf[b[0]:b[1]])
	})
	bw := bufio.NewWriterSize(w.w, 1<<16)
	for _, l := range w.lines {
		if _, err := bw.Write(w.buf[l[0]:l[1]]); err != nil {
			return err
		}
	}
	w.buf, w.lines = nil, nil
	return bw.Flush()
}
