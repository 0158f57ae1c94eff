package capture

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
)

// storedChunk is the size of the chunks a storedFile is kept in: the most of it held in
// memory at a time.
const storedChunk = 1 << 20

// errTooLarge reports an input past one of the core's limits.
var errTooLarge = errors.New("too large")

// storedFile is a file kept in the store in chunks of storedChunk bytes under a prefix:
// an upload, or a block spooled while it is converted. It is read back as an
// io.ReaderAt holding one chunk in memory, so that a zip of any size can be opened
// without reading it whole.
type storedFile struct {
	store  Store
	prefix string
	size   int64

	mu  sync.Mutex
	at  int64 // index of the chunk in cur; -1: none
	cur []byte
}

// chunkKey is the key of a storedFile's i-th chunk.
func (f *storedFile) chunkKey(i int64) string { return fmt.Sprintf("%s%010d", f.prefix, i) }

// storeFile copies r into the store under prefix, at most limit bytes (more is an
// error wrapping errTooLarge, and nothing is left behind). Each chunk written gives
// the event loop a turn and reports the bytes stored so far to progress (if not nil).
func storeFile(ctx context.Context, store Store, prefix string, r io.Reader, limit int64, progress func(n int64)) (*storedFile, error) {
	f := &storedFile{store: store, prefix: prefix, at: -1}
	buf := make([]byte, storedChunk)
	for i := int64(0); ; i++ {
		if err := ctx.Err(); err != nil {
			f.remove()
			return nil, err
		}
		n, err := io.ReadFull(r, buf)
		if n > 0 {
			if f.size+int64(n) > limit {
				f.remove()
				return nil, fmt.Errorf("%w: over the limit of %d MiB", errTooLarge, limit>>20)
			}
			if perr := store.Put(f.chunkKey(i), buf[:n]); perr != nil {
				f.remove()
				return nil, perr
			}
			f.size += int64(n)
			if progress != nil {
				progress(f.size)
			}
			yield()
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return f, nil
		}
		if err != nil {
			f.remove()
			return nil, err
		}
	}
}

// Size returns the file's length in bytes.
func (f *storedFile) Size() int64 { return f.size }

// ReadAt reads from the chunks that hold [off, off+len(p)).
func (f *storedFile) ReadAt(p []byte, off int64) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if off < 0 {
		return 0, errors.New("capture: negative offset")
	}
	n := 0
	for n < len(p) {
		if off >= f.size {
			return n, io.EOF
		}
		i := off / storedChunk
		if i != f.at {
			b, err := f.store.Get(f.chunkKey(i))
			if err != nil {
				return n, err
			}
			f.at, f.cur = i, b
		}
		c := copy(p[n:], f.cur[off-i*storedChunk:])
		if c == 0 {
			return n, fmt.Errorf("capture: stored file %s: chunk %d is short", f.prefix, i)
		}
		n += c
		off += int64(c)
	}
	return n, nil
}

// open returns a reader over the whole file; closing it removes the file.
func (f *storedFile) open() *storedReader {
	return &storedReader{SectionReader: io.NewSectionReader(f, 0, f.size), f: f}
}

// remove deletes the file's chunks.
func (f *storedFile) remove() error {
	f.mu.Lock()
	f.cur, f.at = nil, -1
	f.mu.Unlock()
	return f.store.Delete(f.prefix)
}

// storedReader reads a storedFile from its start, pacing whoever reads it (a writer
// compressing a spooled block as it reads it), and removes it when closed.
type storedReader struct {
	*io.SectionReader
	f *storedFile
	pacer
}

func (r *storedReader) Read(p []byte) (int, error) {
	n, err := r.SectionReader.Read(p)
	r.pace()
	return n, err
}

// Close removes the file.
func (r *storedReader) Close() error { return r.f.remove() }
