// Package zipnum reads and writes the ZipNum compressed CDX index layout, the
// one the Internet Archive's wayback, pywb's ZipNumIndexSource and Common
// Crawl's cdx-NNNNN.gz files with their cluster.idx use.
//
// Sorted CDXJ lines ("urlkey timestamp {json}") are cut into blocks of a fixed
// number of lines (3000 in pywb and Common Crawl). Each block is one
// independent gzip member, so any block can be decompressed alone from a range
// read, and the members are concatenated into one blocks file (a "part"), which
// as a whole is an ordinary gzip file. A summary, one tab-separated line per
// block, lists the "urlkey timestamp" prefix of each block's first line, the
// part's name, the block's offset and compressed length and, optionally, the
// 1-based number of the summary line:
//
//	com,example)/ 20240101000000	cdx-00000.gz	0	1843	1
//	com,example)/path/2999 20240101000000	cdx-00000.gz	1843	1790	2
//
// A lookup binary-searches the summary (Search, BlocksFor), range-reads the
// blocks that can hold the wanted keys and scans their lines (BlockReader).
// pywb's .loc file, which maps part names to paths or URLs, is left to the
// caller.
package zipnum

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/gzip"

	"github.com/webkeep/webkeep/shared/cdx"
)

// DefaultLinesPerBlock is the block size pywb's and Common Crawl's tools use,
// and the one NewWriter takes when given a size below 1.
const DefaultLinesPerBlock = 3000

var (
	// ErrOrder is wrapped by the errors for a line, or a summary key, that sorts
	// before the one preceding it.
	ErrOrder = errors.New("zipnum: not in sorted order")
	// ErrLine is wrapped by the errors for a line that cannot be stored: empty,
	// holding a newline, or with a tab in its "urlkey timestamp" prefix.
	ErrLine = errors.New("zipnum: invalid line")
	// ErrLineTooLong is wrapped by the errors for a line longer than
	// cdx.MaxLineLength.
	ErrLineTooLong = errors.New("zipnum: line too long")
	// ErrSummary is wrapped by the errors for a malformed summary line or
	// summary entry.
	ErrSummary = errors.New("zipnum: malformed summary")
	// ErrClosed is returned by Writer.WriteLine after Close.
	ErrClosed = errors.New("zipnum: write after Close")
)

// A BlockInfo locates one block in its blocks file.
type BlockInfo struct {
	FirstKey string // the "urlkey timestamp" prefix of the block's first line
	Offset   int64  // byte offset of the block's gzip member in the blocks file
	Length   int64  // compressed length of the member in bytes
	Lines    int    // lines in the block; 0 when unknown (read from a summary)
}

// A Writer writes sorted lines into gzip blocks of a fixed number of lines.
// Its output is streamed: memory does not grow with the block size.
type Writer struct {
	cw     countWriter
	zw     *gzip.Writer
	per    int
	open   bool // a block has been started and not finished
	n      int  // lines written
	prev   []byte
	blocks []BlockInfo
	err    error // sticky write or Close error
}

// NewWriter returns a Writer that writes blocks of linesPerBlock lines to w
// (DefaultLinesPerBlock if linesPerBlock < 1). Closing the Writer does not
// close w.
func NewWriter(w io.Writer, linesPerBlock int) *Writer {
	if linesPerBlock < 1 {
		linesPerBlock = DefaultLinesPerBlock
	}
	return &Writer{cw: countWriter{w: w}, per: linesPerBlock}
}

// WriteLine writes one line, given without its newline. The line must sort,
// in byte order, at or after the previous one (else an error wrapping
// ErrOrder), be non-empty without a newline and without a tab in its
// "urlkey timestamp" prefix (else ErrLine), and be at most cdx.MaxLineLength
// bytes (else ErrLineTooLong). Such a rejected line is not written and the
// Writer stays usable; an error from the underlying writer is final.
func (w *Writer) WriteLine(line []byte) error {
	if w.err != nil {
		return w.err
	}
	num := w.n + 1
	key := firstKey(line)
	switch {
	case len(line) == 0:
		return fmt.Errorf("zipnum: line %d: %w: empty", num, ErrLine)
	case bytes.IndexByte(line, '\n') >= 0:
		return fmt.Errorf("zipnum: line %d: %w: holds a newline", num, ErrLine)
	case bytes.IndexByte(key, '\t') >= 0:
		return fmt.Errorf("zipnum: line %d: %w: tab in its key %q", num, ErrLine, key)
	case len(line) > cdx.MaxLineLength:
		return fmt.Errorf("zipnum: line %d: %w: %d bytes", num, ErrLineTooLong, len(line))
	case w.n > 0 && bytes.Compare(line, w.prev) < 0:
		return fmt.Errorf("zipnum: line %d: %w: %.60q sorts before the previous line", num, ErrOrder, line)
	}
	if !w.open {
		if w.zw == nil {
			w.zw = gzip.NewWriter(&w.cw)
		} else {
			w.zw.Reset(&w.cw)
		}
		w.blocks = append(w.blocks, BlockInfo{FirstKey: string(key), Offset: w.cw.n})
		w.open = true
	}
	if _, err := w.zw.Write(line); err != nil {
		w.err = err
		return err
	}
	if _, err := w.zw.Write(newline); err != nil {
		w.err = err
		return err
	}
	w.n++
	w.prev = append(w.prev[:0], line...)
	b := &w.blocks[len(w.blocks)-1]
	if b.Lines++; b.Lines == w.per {
		return w.finish()
	}
	return nil
}

// finish closes the open block's gzip member and records its length.
func (w *Writer) finish() error {
	w.open = false
	if err := w.zw.Close(); err != nil {
		w.err = err
		return err
	}
	b := &w.blocks[len(w.blocks)-1]
	b.Length = w.cw.n - b.Offset
	return nil
}

// Close finishes the last block. It does not close the underlying writer.
func (w *Writer) Close() error {
	if w.err != nil {
		if w.err == ErrClosed {
			return nil
		}
		return w.err
	}
	if w.open {
		if err := w.finish(); err != nil {
			return err
		}
	}
	w.err = ErrClosed
	return nil
}

// Blocks returns the blocks completed so far, in order; after Close, all of
// them. The caller must not modify the returned slice's elements.
func (w *Writer) Blocks() []BlockInfo {
	n := len(w.blocks)
	if w.open {
		n--
	}
	return w.blocks[:n:n]
}

// firstKey returns the "urlkey timestamp" prefix of line: up to its second
// space, or all of it.
func firstKey(line []byte) []byte {
	i := bytes.IndexByte(line, ' ')
	if i < 0 {
		return line
	}
	j := bytes.IndexByte(line[i+1:], ' ')
	if j < 0 {
		return line
	}
	return line[:i+1+j]
}

var newline = []byte{'\n'}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
