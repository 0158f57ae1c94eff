package warc

import (
	"errors"
	"fmt"
	"io"
	"strconv"
)

// Problem is one thing wrong in a WARC file.
type Problem struct {
	File   string // as given to Verify
	Offset int64  // file offset of the record or damaged range
	End    int64  // end of a damaged range, or 0
	Record string // record id, when known
	Err    error
}

func (p Problem) Error() string {
	s := p.File
	if s != "" {
		s += ": "
	}
	s += "offset " + strconv.FormatInt(p.Offset, 10)
	if p.End > p.Offset {
		s += "-" + strconv.FormatInt(p.End, 10)
	}
	if p.Record != "" {
		s += " record " + p.Record
	}
	return s + ": " + p.Err.Error()
}

func (p Problem) Unwrap() error { return p.Err }

// Verifier checks WARC files: every record length, block checksum and payload digest,
// the sl field and checksum of every gzip member, the fields each record type
// requires, and the segment chains, which may run across the files it is given.
type Verifier struct {
	report  func(Problem)
	chains  map[string]*chain
	order   []string
	records int
	n       int
}

// chain follows a segmented record.
type chain struct {
	file   string
	offset int64
	next   int   // Segment-Number expected next
	total  int64 // bytes in the segments so far
	done   bool
}

// NewVerifier returns a Verifier that reports each problem to report.
func NewVerifier(report func(Problem)) *Verifier {
	return &Verifier{report: report, chains: make(map[string]*chain)}
}

// Problems returns how many problems have been reported.
func (v *Verifier) Problems() int { return v.n }

// Records returns how many records have been checked.
func (v *Verifier) Records() int { return v.records }

func (v *Verifier) problem(p Problem) {
	v.n++
	v.report(p)
}

// Verify checks one file. It returns an error only when the file cannot be read at
// all; everything wrong inside it is reported.
func (v *Verifier) Verify(file string, in io.Reader) error {
	r, err := NewReader(in)
	if err != nil {
		return err
	}
	if r.gzip {
		r.mem.onEnd = func(m member, cEnd, uEnd int64) {
			if !m.hasSL || m.slC == 0 {
				return
			}
			if int64(m.slC) != cEnd-m.coff || int64(m.slU) != uEnd-m.uoff {
				v.problem(Problem{File: file, Offset: m.coff, Err: fmt.Errorf("%w: sl says %d compressed, %d uncompressed bytes; the member has %d and %d",
					ErrSkipLength, m.slC, m.slU, cEnd-m.coff, uEnd-m.uoff)})
			}
		}
	}
	dig := newDigester()
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return nil
		}
		var de *DamageError
		if errors.As(err, &de) {
			v.problem(Problem{File: file, Offset: de.Offset, End: de.End, Err: de.Err})
			continue
		}
		if err != nil {
			return err
		}
		v.records++
		for _, p := range r.Problems() {
			v.problem(Problem{File: file, Offset: rec.Offset, Record: rec.ID, Err: p})
		}
		bad := func(err error) { v.problem(Problem{File: file, Offset: rec.Offset, Record: rec.ID, Err: err}) }
		if rt, ok := recordTypes[rec.Type]; ok {
			for _, name := range rt.required {
				if !rec.Header.Has(name) {
					bad(fmt.Errorf("%w: %s record without %s", ErrMissing, rec.Type, name))
				}
			}
		}
		segmented := rec.Header.Has(FieldSegmentNumber)
		dig.reset(isHTTP(rec.ContentType) && (rec.Type == TypeResponse || rec.Type == TypeRequest) && !segmented)
		if _, err := io.Copy(dig, rec.Block); err != nil {
			// A damaged block is reported by the next call to Next.
			continue
		}
		if d := rec.Header.Get(FieldChecksum); d != "" {
			if ok, known := digestEqual(d, dig.blockDigest()); known && !ok {
				bad(fmt.Errorf("%w: block digest is %s, header says %s", ErrDigest, dig.blockDigest(), d))
			}
		}
		if d := rec.Header.Get(FieldPayloadDigest); d != "" && rec.Type != TypeRevisit && !segmented {
			if got := dig.payloadDigest(); got != "" {
				if ok, known := digestEqual(d, got); known && !ok {
					bad(fmt.Errorf("%w: payload digest is %s, header says %s", ErrDigest, got, d))
				}
			}
		}
		v.segment(file, rec, bad)
	}
}

// segment follows segment chains (section 7.2).
func (v *Verifier) segment(file string, rec *Record, bad func(error)) {
	num := rec.Header.Get(FieldSegmentNumber)
	if num == "" {
		return
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 1 {
		bad(fmt.Errorf("%w: Segment-Number %q", ErrSegment, num))
		return
	}
	if rec.Type != TypeContinuation {
		if n != 1 {
			bad(fmt.Errorf("%w: first segment has Segment-Number %d", ErrSegment, n))
			return
		}
		v.chains[rec.ID] = &chain{file: file, offset: rec.Offset, next: 2, total: rec.BlockLength}
		v.order = append(v.order, rec.ID)
		return
	}
	origin := rec.Header.Get(FieldSegmentOriginID)
	c := v.chains[origin]
	switch {
	case c == nil:
		bad(fmt.Errorf("%w: continuation of %s, which was not seen before it", ErrSegment, origin))
		return
	case c.done:
		bad(fmt.Errorf("%w: continuation of %s after its last segment", ErrSegment, origin))
		return
	case n != c.next:
		bad(fmt.Errorf("%w: segment %d of %s where %d was expected", ErrSegment, n, origin, c.next))
	}
	c.next = n + 1
	c.total += rec.BlockLength
	if el := rec.Header.Get(FieldEndLength); el != "" {
		c.done = true
		if want, err := parseLength(el); err != nil || want != c.total {
			bad(fmt.Errorf("%w: End-Length %s, but the segments of %s hold %d bytes", ErrSegment, el, origin, c.total))
		}
	}
}

// Finish reports the segment chains that never reached their last segment.
func (v *Verifier) Finish() {
	for _, id := range v.order {
		if c := v.chains[id]; !c.done {
			v.problem(Problem{File: c.file, Offset: c.offset, Record: id,
				Err: fmt.Errorf("%w: no last segment (with End-Length) after segment %d", ErrSegment, c.next-1)})
		}
	}
	v.chains, v.order = make(map[string]*chain), nil
}
