package cdx

import (
	"bufio"
	"bytes"
	"fmt"

	"github.com/webkeep/webkeep/shared/warc"
)

// A Follower indexes the records of one WARC file one at a time, as a writer writes
// them (see warc.WriterOptions.Written), without reading the file. Given every record
// of a file, it emits the entries Index emits for that file.
type Follower struct {
	// Plain says that the file is not compressed: a record's length then
	// stops before the CRLF CRLF that the writer writes after its block, as
	// pywb counts it. In a gzip file it is the whole member.
	Plain bool

	ix       *Indexer
	filename string
	p        pairer
}

// Follow returns a Follower that indexes the records of the file named filename and
// calls emit with each entry.
func (ix *Indexer) Follow(filename string, emit func(*Entry) error) *Follower {
	if ix.br == nil {
		ix.br = bufio.NewReaderSize(nil, 32<<10)
	}
	return &Follower{ix: ix, filename: filename, p: pairer{ix: ix, emit: emit}}
}

// Add indexes rec, the file's next record, which starts at rec.Offset. Its Block need
// hold only what an index reads of it: the HTTP header of an HTTP message and a
// request's body. payloadDigest, when not empty, is the "sha1:BASE32" digest of the
// record's payload as its writer reported it, used instead of reading the payload.
// An entry may be held back until the next record, to pair a request with its response.
// A record Add cannot index gets no entry, but still ends the record before it.
func (f *Follower) Add(rec *warc.Record, payloadDigest string) error {
	if rec.Block == nil {
		r := *rec
		r.Block = bytes.NewReader(nil)
		rec = &r
	}
	it, err := f.ix.record(rec, f.filename, payloadDigest)
	if it == nil || err != nil {
		it = &indexed{skip: true, none: true, entry: Entry{Offset: rec.Offset}}
	}
	if f.Plain {
		it.trailer = 4
	}
	if aerr := f.p.add(it); aerr != nil {
		return aerr
	}
	if err != nil {
		return fmt.Errorf("cdx: %s: record at %d: %w", f.filename, rec.Offset, err)
	}
	return nil
}

// End says that the last record added ends at offset end, and emits the entries held
// back. A record added after End is not paired with one added before it.
func (f *Follower) End(end int64) error { return f.p.finish(end) }
