package zipnum

import (
	"bufio"
	"bytes"
	"fmt"
	"io"

	"github.com/klauspost/compress/gzip"

	"github.com/webkeep/webkeep/shared/cdx"
)

// A BlockReader reads the lines of compressed blocks: one block's gzip member
// (a range read of Offset and Length), several consecutive ones read in a
// single range, or a whole blocks file. It holds at most one line, of up to
// cdx.MaxLineLength bytes, in memory.
type BlockReader struct {
	r    io.Reader
	br   *bufio.Reader
	buf  []byte
	line int
	err  error
}

// NewBlockReader returns a BlockReader of the compressed bytes in r.
func NewBlockReader(r io.Reader) *BlockReader {
	return &BlockReader{r: r}
}

// ReadLine returns the next line without its newline; it stays valid until the
// next call. The last line of a block may lack its newline (some writers omit
// it). At the end ReadLine returns io.EOF; an empty input holds no lines. Errors
// name the line number and wrap the gzip error (a truncated block is
// io.ErrUnexpectedEOF), ErrLine for an empty line or ErrLineTooLong; they are
// final.
func (r *BlockReader) ReadLine() ([]byte, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.br == nil {
		src := bufio.NewReader(r.r) // an io.ByteReader: gzip adds no buffer of its own
		if _, err := src.Peek(1); err == io.EOF {
			r.err = io.EOF
			return nil, r.err
		}
		zr, err := gzip.NewReader(src)
		if err != nil {
			if err == io.EOF { // a header cut inside its name or comment
				err = io.ErrUnexpectedEOF
			}
			r.err = fmt.Errorf("zipnum: block header: %w", err)
			return nil, r.err
		}
		r.br = bufio.NewReaderSize(zr, 64<<10)
	}
	r.line++
	r.buf = r.buf[:0]
	for {
		frag, err := r.br.ReadSlice('\n')
		line := frag
		if len(r.buf) > 0 || err == bufio.ErrBufferFull {
			r.buf = append(r.buf, frag...)
			line = r.buf
		}
		if len(bytes.TrimSuffix(line, []byte{'\n'})) > cdx.MaxLineLength {
			r.err = fmt.Errorf("zipnum: block line %d: %w: over %d bytes", r.line, ErrLineTooLong, cdx.MaxLineLength)
			return nil, r.err
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && len(line) == 0:
			r.err = io.EOF
		case err != nil && err != io.EOF:
			r.err = fmt.Errorf("zipnum: block line %d: %w", r.line, err)
		case len(line) == 0 || line[0] == '\n':
			r.err = fmt.Errorf("zipnum: block line %d: %w: empty", r.line, ErrLine)
		default:
			return bytes.TrimSuffix(line, []byte{'\n'}), nil
		}
		return nil, r.err
	}
}
