package warc

// Damage: a Reader that finds a broken record or gzip member reports it as a
// *DamageError and moves on to the next plausible record start.

import (
	"errors"
	"fmt"
	"io"
)

// DamageError reports a damaged part of a file: the bytes from Offset up to End were
// skipped. For gzip files both are offsets in the compressed file. The Reader has
// already moved on to the next record start when it returns one.
type DamageError struct {
	Offset, End int64
	Err         error
}

func (e *DamageError) Error() string {
	return fmt.Sprintf("warc: damaged bytes %d-%d: %v", e.Offset, e.End, e.Err)
}

func (e *DamageError) Unwrap() error { return e.Err }

// atRecordStart reports whether the input continues with "warc/" (any case) and a
// version number.
func (r *Reader) atRecordStart() bool {
	p, _ := r.br.Peek(7)
	return looksLikeStart(p)
}

// looksLikeStart reports whether p starts with "warc/" (any case), a digit and ".".
func looksLikeStart(p []byte) bool {
	return len(p) >= 7 && (p[0]|0x20) == 'w' && (p[1]|0x20) == 'a' && (p[2]|0x20) == 'r' &&
		(p[3]|0x20) == 'c' && p[4] == '/' && '0' <= p[5] && p[5] <= '9' && p[6] == '.'
}

// resyncAfter reports damage that began at stream position from, and moves to the
// next plausible record start: "warc/" and a version at the start of a line (as
// section 5.1 suggests), or, when a gzip member is broken, the next gzip member.
func (r *Reader) resyncAfter(from int64, cause error) error {
	r.cur, r.blk = nil, nil
	var de *DamageError
	if errors.As(cause, &de) && r.gzip && errors.Is(cause, ErrGzip) {
		// The compressed data itself is broken: find the next member in the file.
		start := de.Offset
		end := r.resyncGzip()
		return &DamageError{Offset: start, End: end, Err: de.Err}
	}
	start, _ := r.fileOffset(from)
	err := r.scan()
	var end int64
	if err != nil && errors.As(err, &de) {
		// The scan ran into a broken member; report both as one range.
		end = r.resyncGzip()
		return &DamageError{Offset: start, End: end, Err: cause}
	}
	if r.gzip {
		if err == io.EOF {
			end = r.src.pos()
		} else {
			end, _ = r.fileOffset(r.pos)
		}
	} else {
		end = r.pos
	}
	return &DamageError{Offset: start, End: end, Err: cause}
}

// scan moves forward in the record stream to the next line that starts a record.
func (r *Reader) scan() error {
	for {
		p, err := r.br.Peek(r.br.Size())
		if len(p) == 0 {
			if err == nil {
				err = io.EOF
			}
			return err
		}
		i := 0
		for ; i < len(p); i++ {
			if (p[i]|0x20) != 'w' || (i > 0 && p[i-1] != '\n') {
				continue
			}
			if i+7 > len(p) && err == nil {
				break // too near the end of the window: look again from here
			}
			if looksLikeStart(p[i:]) {
				r.br.Discard(i)
				r.pos += int64(i)
				return nil
			}
		}
		r.br.Discard(i)
		r.pos += int64(i)
		if err != nil && i == len(p) {
			return err
		}
	}
}

// resyncGzip abandons the current member and finds the next gzip member header in
// the file; it returns the file offset where reading resumes.
func (r *Reader) resyncGzip() int64 {
	m := r.mem
	m.state, m.err = betweenMembers, nil
	defer func() { r.br.Reset(m); r.pos = m.produced }()
	for {
		p, _ := r.src.br.Peek(3)
		if len(p) < 3 {
			r.src.discard(int64(len(p)))
			m.state = inputEnded
			return r.src.pos()
		}
		if p[0] != 0x1f || p[1] != 0x8b || p[2] != 8 {
			r.src.discard(1)
			continue
		}
		at := r.src.pos()
		if m.start() == nil {
			return at
		}
		m.err, m.state = nil, betweenMembers
		if r.seeker != nil {
			// Go on from the byte after the false magic number.
			if _, err := r.seeker.Seek(at+1, io.SeekStart); err == nil {
				r.src.restart(r.file, at+1)
			}
		}
	}
}
