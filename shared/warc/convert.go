package warc

import (
	"bytes"
	"fmt"
	"io"
	"os"
)

// Convert copies every record from r to w, which writes them in its own version:
// WARC 0.9 named fields become their WARC/1.1 counterparts and back, "message/http"
// becomes "application/http;msgtype=..." and back, and digests are computed afresh.
// Blocks are copied byte for byte; segments stay segments. A block longer than the
// Writer's MaxBuffer is spooled to a temporary file so that it need not be split. It
// returns the number of records written and stops at the first error, damage
// included.
func Convert(w *Writer, r *Reader) (int, error) {
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
		var spool *os.File
		if rec.BlockLength > w.opts.MaxBuffer {
			if spool, err = spoolBlock(rec); err != nil {
				return n, err
			}
			out.Block = spool
		} else {
			buf.Reset()
			if _, err := buf.ReadFrom(rec.Block); err != nil {
				return n, err
			}
			out.Block = bytes.NewReader(buf.Bytes())
		}
		out.BlockLength = rec.BlockLength
		_, err = w.WriteRecord(&out)
		if spool != nil {
			spool.Close()
			os.Remove(spool.Name())
		}
		if err != nil {
			return n, fmt.Errorf("warc: converting record %s at %d: %w", rec.ID, rec.Offset, err)
		}
		n++
	}
}

// spoolBlock copies a record's block to a temporary file and rewinds it.
func spoolBlock(rec *Record) (*os.File, error) {
	f, err := os.CreateTemp("", "warc-block-*")
	if err != nil {
		return nil, fmt.Errorf("warc: spooling record %s: %w", rec.ID, err)
	}
	if _, err := io.Copy(f, rec.Block); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("warc: spooling record %s: %w", rec.ID, err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return f, nil
}
