package warc

import (
	"fmt"
	"io"
	"strconv"
)

// segmentReader is the block of a reassembled record: the origin's block, then the
// blocks of the continuation records that follow it, in Segment-Number order.
type segmentReader struct {
	r      *Reader
	origin *Record
	seg    int       // number of the segment being read
	block  io.Reader // its block
	total  int64     // bytes read so far
	end    int64     // End-Length of the last segment, once seen
	last   bool
	done   bool
	err    error
}

func (s *segmentReader) Read(p []byte) (int, error) {
	for {
		if s.err != nil {
			return 0, s.err
		}
		if s.done {
			return 0, io.EOF
		}
		n, err := s.block.Read(p)
		s.total += int64(n)
		if err == io.EOF {
			err = s.advance()
			if err != nil {
				s.err = err
			}
			if n > 0 || err != nil {
				return n, err
			}
			continue
		}
		return n, err
	}
}

// advance moves to the next segment once the current one is read.
func (s *segmentReader) advance() error {
	if s.last {
		s.done = true
		if s.total != s.end {
			return fmt.Errorf("%w: record %s: segments hold %d bytes, End-Length says %d", ErrSegment, s.origin.ID, s.total, s.end)
		}
		s.origin.BlockLength = s.total
		return nil
	}
	rec, err := s.r.next()
	if err == io.EOF {
		return fmt.Errorf("%w: record %s: input ends after segment %d", ErrSegment, s.origin.ID, s.seg)
	}
	if err != nil {
		return err
	}
	if rec.Type != TypeContinuation || rec.Header.Get(FieldSegmentOriginID) != s.origin.ID {
		return fmt.Errorf("%w: record %s: segment %d is followed by %s record %s at %d", ErrSegment, s.origin.ID, s.seg, rec.Type, rec.ID, rec.Offset)
	}
	if n, _ := strconv.Atoi(rec.Header.Get(FieldSegmentNumber)); n != s.seg+1 {
		return fmt.Errorf("%w: record %s: segment %d is followed by segment %q at %d", ErrSegment, s.origin.ID, s.seg, rec.Header.Get(FieldSegmentNumber), rec.Offset)
	}
	s.seg++
	s.block = rec.Block
	if el := rec.Header.Get(FieldEndLength); el != "" {
		s.last = true
		if s.end, err = parseLength(el); err != nil {
			return fmt.Errorf("%w: record %s at %d: End-Length %q", ErrSegment, rec.ID, rec.Offset, el)
		}
		if t := rec.Header.Get(FieldTruncated); t != "" {
			s.origin.Header.Set(FieldTruncated, t)
		}
	}
	return nil
}
