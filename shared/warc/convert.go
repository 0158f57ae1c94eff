package warc

import (
	"bytes"
	"fmt"
	"io"
	"os"
)

// A Converter copies records from one WARC version to another (see Convert).
type Converter struct {
	// Spool keeps a block longer than the Writer's MaxBuffer while the record is
	// converted, so that the block need not be held in memory: it reads the block to
	// its end and returns it to be read again from its start, and Close releases it.
	// Nil means a temporary file (os.CreateTemp), which GOOS=js does not have: code
	// running in a browser spools through its own storage.
	Spool func(block io.Reader) (io.ReadSeekCloser, error)
	// JoinSegments writes each segmented record (section 7.2) as one whole record:
	// its block and those of its continuation records, spooled as one, under the
	// first segment's header without its segment fields. Replay tools read no
	// segments. Without it, segments stay segments.
	JoinSegments bool
}

// Convert copies every record from r to w, which writes them in its own version:
// WARC 0.9 named fields become their WARC/1.1 counterparts and back, "message/http"
// becomes "application/http;msgtype=..." and back, and digests are computed afresh.
// Blocks are copied byte for byte; segments stay segments. A block longer than the
// Writer's MaxBuffer is spooled to a temporary file so that it need not be split. It
// returns the number of records written and stops at the first error, damage
// included. It is (&Converter{}).Convert.
func Convert(w *Writer, r *Reader) (int, error) {
	return (&Converter{}).Convert(w, r)
}

// Convert copies every record from r to w as the package's Convert does, spooling a
// block longer than w's MaxBuffer with c.Spool.
func (c *Converter) Convert(w *Writer, r *Reader) (int, error) {
	spoolBlock := c.Spool
	if spoolBlock == nil {
		spoolBlock = spoolTemp
	}
	if c.JoinSegments {
		r.Reassemble(true)
	}
	n := 0
	var buf bytes.Buffer
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		out := *rec
		out.Header = rec.Header.Clone()
		// The block is read before it is written: a WARC 0.9 record may turn out to
		// be shorter than declared (the LAW form) only once it has been read.
		var spool io.ReadSeekCloser
		joined := rec.BlockLength < 0 // reassembled: its length is known once it is read
		if rec.BlockLength > w.opts.MaxBuffer || joined {
			if spool, err = spoolBlock(rec.Block); err != nil {
				return n, fmt.Errorf("warc: spooling record %s: %w", rec.ID, err)
			}
			out.Block = spool
			if joined {
				if out.BlockLength, err = spool.Seek(0, io.SeekEnd); err == nil {
					_, err = spool.Seek(0, io.SeekStart)
				}
				if err != nil {
					spool.Close()
					return n, fmt.Errorf("warc: spooling record %s: %w", rec.ID, err)
				}
				out.Header.Del(FieldSegmentNumber)
			}
		} else {
			buf.Reset()
			if _, err := buf.ReadFrom(rec.Block); err != nil {
				return n, err
			}
			out.Block = bytes.NewReader(buf.Bytes())
		}
		if !joined {
			out.BlockLength = rec.BlockLength
		}
		_, err = w.WriteRecord(&out)
		if spool != nil {
			if cerr := spool.Close(); err == nil && cerr != nil {
				err = fmt.Errorf("releasing the spooled block: %w", cerr)
			}
		}
		if err != nil {
			return n, fmt.Errorf("warc: converting record %s at %d: %w", rec.ID, rec.Offset, err)
		}
		n++
	}
}

// spoolTemp copies a block to a temporary file, rewound; closing it removes the file.
func spoolTemp(block io.Reader) (io.ReadSeekCloser, error) {
	f, err := os.CreateTemp("", "warc-block-*")
	if err != nil {
		return nil, err
	}
	t := &tempFile{f}
	if _, err := io.Copy(f, block); err != nil {
		t.Close()
		return nil, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		t.Close()
		return nil, err
	}
	return t, nil
}

// tempFile is a temporary file that removes itself when closed.
type tempFile struct{ *os.File }

func (t *tempFile) Close() error {
	err := t.File.Close()
	if rerr := os.Remove(t.Name()); err == nil {
		err = rerr
	}
	return err
}
