package replay

import "io"

// A File is the WARC file a session's captures are read from.
type File interface {
	// Size returns the file's length in bytes.
	Size() int64
	// Reader returns a reader of the file from offset off to its end. A File
	// kept in parts may return short reads, each to the end of a part: the WARC
	// reader buffers ahead, and a short read keeps it from fetching parts the
	// record does not need.
	Reader(off int64) io.Reader
}

// NewFile returns a File that reads src, of size bytes.
func NewFile(src io.ReaderAt, size int64) File { return readerAtFile{src, size} }

type readerAtFile struct {
	src  io.ReaderAt
	size int64
}

func (f readerAtFile) Size() int64 { return f.size }

func (f readerAtFile) Reader(off int64) io.Reader {
	return io.NewSectionReader(f.src, off, f.size-off)
}
