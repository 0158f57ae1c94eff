package warc

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// DefaultTargetSize is the file size section 10 recommends: 500 MB.
const DefaultTargetSize = 500_000_000

// FileName returns a file name of the form section 10 recommends:
// Prefix-Timestamp-Serial-Crawlhost.warc, with ".gz" appended for gzip files
// (section 9.3). The timestamp is the 14-digit GMT time the file was begun.
func FileName(prefix string, begun time.Time, serial int, host string, gzip bool) string {
	name := fmt.Sprintf("%s-%s-%05d-%s.warc", prefix, begun.UTC().Format(layout09), serial, host)
	if gzip {
		name += ".gz"
	}
	return name
}

// FileOptions configure a FileWriter.
type FileOptions struct {
	Prefix string // project or crawl abbreviation; "WEB" when empty
	Host   string // the machine writing; os.Hostname when empty
	Dir    string // where files are created by default
	// TargetSize is the size a file should not pass; zero means DefaultTargetSize.
	// A file is closed before the record that would overflow it, and a record too
	// large for any file is written as segments spread over several files.
	TargetSize int64
	// Writer configures the record writer of every file.
	Writer WriterOptions
	// Create opens a new file; by default os.Create in Dir.
	Create func(name string) (io.WriteCloser, error)
	// Now gives the time files are begun; time.Now by default.
	Now func() time.Time
	// Warcinfo, when set, returns a record to write first in each new file.
	Warcinfo func(name string) *Record
}

// FileWriter writes records into a series of WARC files named and rotated as
// section 10 recommends.
type FileWriter struct {
	opts   FileOptions
	w      *Writer
	f      io.WriteCloser
	name   string
	serial int
	files  []string
}

// NewFileWriter returns a FileWriter; no file is created before the first record.
func NewFileWriter(opts FileOptions) *FileWriter {
	if opts.Prefix == "" {
		opts.Prefix = "WEB"
	}
	if opts.Host == "" {
		opts.Host, _ = os.Hostname()
		if opts.Host == "" {
			opts.Host = "localhost"
		}
	}
	if opts.TargetSize <= 0 {
		opts.TargetSize = DefaultTargetSize
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Create == nil {
		dir := opts.Dir
		opts.Create = func(name string) (io.WriteCloser, error) { return os.Create(filepath.Join(dir, name)) }
	}
	// The host goes into a file name: keep it to one path element.
	opts.Host = strings.NewReplacer("/", "_", "\\", "_", " ", "_").Replace(opts.Host)
	return &FileWriter{opts: opts, w: NewWriter(io.Discard, opts.Writer)}
}

// Files returns the names of the files begun so far.
func (f *FileWriter) Files() []string { return f.files }

// overhead is a generous bound on a record's header and gzip framing.
const overhead = 4 << 10

// rotate closes the current file and begins the next one.
func (f *FileWriter) rotate() error {
	if err := f.closeFile(); err != nil {
		return err
	}
	f.serial++
	name := FileName(f.opts.Prefix, f.opts.Now(), f.serial, f.opts.Host, f.opts.Writer.Gzip)
	file, err := f.opts.Create(name)
	if err != nil {
		return fmt.Errorf("warc: creating %s: %w", name, err)
	}
	f.f, f.name = file, name
	f.files = append(f.files, name)
	f.w.Reset(file)
	if f.opts.Warcinfo != nil {
		if info := f.opts.Warcinfo(name); info != nil {
			if _, err := f.w.WriteRecord(info); err != nil {
				return fmt.Errorf("warc: %s: %w", name, err)
			}
		}
	}
	return nil
}

func (f *FileWriter) closeFile() error {
	if f.f == nil {
		return nil
	}
	err := f.f.Close()
	f.f = nil
	if err != nil {
		return fmt.Errorf("warc: closing %s: %w", f.name, err)
	}
	return nil
}

// fits reports whether n more bytes of block fit in the current file.
func (f *FileWriter) fits(n int64) bool {
	return f.f != nil && (f.w.Offset() == 0 || f.w.Offset()+n+overhead <= f.opts.TargetSize)
}

// WriteRecord writes r into the current file, or into a new one when it would
// overflow the current one; a record larger than a whole file is segmented.
func (f *FileWriter) WriteRecord(r *Record) (RecordInfo, error) {
	rec, err := f.w.normalize(r)
	if err != nil {
		return RecordInfo{}, err
	}
	if !f.fits(rec.BlockLength) {
		if err := f.rotate(); err != nil {
			return RecordInfo{}, err
		}
	}
	rs, seekable := rec.Block.(io.ReadSeeker)
	room := f.opts.TargetSize - overhead
	bufferable := rec.BlockLength <= f.w.opts.MaxBuffer || (seekable && (!f.w.opts.Gzip || f.w.ws != nil))
	var info RecordInfo
	if rec.BlockLength <= max(room, 1) && bufferable {
		info, err = f.w.writeOne(&rec, rs, seekable)
		info.File = f.name
		return info, err
	}
	first := ""
	info, err = f.w.writeSegments(&rec, max(room, 1), func(n int64) error {
		if !f.fits(n) {
			if err := f.rotate(); err != nil {
				return err
			}
		}
		if first == "" {
			first = f.name
		}
		return nil
	})
	info.File = first
	return info, err
}

// Close closes the current file.
func (f *FileWriter) Close() error {
	return f.closeFile()
}
