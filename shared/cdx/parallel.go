package cdx

import (
	"bytes"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/gzip"
)

// readSeekerAt is a file that can be read in sections.
type readSeekerAt interface {
	io.Reader
	io.ReaderAt
	io.Seeker
}

// minSection is the least compressed size worth a section of its own.
const minSection = 1 << 20

// sectionsPerWorker is how many sections each worker gets, one after the
// other: a worker slowed down (by a busy CPU) leaves its later sections to
// the others, so that all finish at about the same time.
const sectionsPerWorker = 4

// indexParallel indexes a gzip file in sections that start at gzip members,
// a few per worker, and pairs the records of all sections in file order. It
// reports done = false, having read nothing it could not read again, when the
// file is not gzip, is small, or a section meets damage (or a false member
// start): the caller then indexes the file serially.
func (ix *Indexer) indexParallel(f readSeekerAt, filename string, emit func(*Entry) error) (done bool, err error) {
	workers := ix.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	start, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return false, nil
	}
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return false, nil
	}
	if _, err := f.Seek(start, io.SeekStart); err != nil {
		return false, err
	}
	workers = int(min(int64(workers), (size-start)/minSection))
	var magic [2]byte
	if workers < 2 || start != 0 {
		return false, nil
	}
	nsec := int(min(int64(workers*sectionsPerWorker), size/minSection))
	if _, err := f.ReadAt(magic[:], 0); err != nil || magic != [2]byte{0x1f, 0x8b} {
		return false, nil
	}
	cuts := []int64{0}
	for k := 1; k < nsec; k++ {
		c, ok := nextMember(f, size, max(size*int64(k)/int64(nsec), cuts[len(cuts)-1]+1))
		if !ok {
			break
		}
		cuts = append(cuts, c)
	}
	cuts = append(cuts, size)
	if len(cuts) < 3 {
		return false, nil
	}
	sections := make([][]*indexed, len(cuts)-1)
	ends := make([]int64, len(cuts)-1)
	errs := make([]error, len(cuts)-1)
	damaged := make([]bool, len(cuts)-1)
	var wg sync.WaitGroup
	var next atomic.Int32 // the next section to index
	for range min(workers, len(sections)) {
		wg.Go(func() {
			w := &Indexer{Dialect: ix.Dialect, NonSURT: ix.NonSURT}
			for {
				k := int(next.Add(1)) - 1
				if k >= len(sections) {
					return
				}
				sec := io.NewSectionReader(f, cuts[k], cuts[k+1]-cuts[k])
				ends[k], errs[k] = w.scan(sec, cuts[k], filename, func(error) bool {
					damaged[k] = true
					return false
				}, func(it *indexed) error {
					sections[k] = append(sections[k], it)
					return nil
				})
			}
		})
	}
	wg.Wait()
	for k, err := range errs {
		if damaged[k] {
			return false, nil
		}
		if err != nil {
			return true, err
		}
	}
	// Seek to the end, as a serial read would leave the file.
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		return true, err
	}
	p := pairer{ix: ix, emit: emit}
	for _, sec := range sections {
		for _, it := range sec {
			if err := p.add(it); err != nil {
				return true, err
			}
		}
	}
	end := ends[len(ends)-1]
	if end < 0 {
		end = size
	}
	return true, p.finish(end)
}

// nextMember finds the first gzip member at or after from that inflates whole
// and holds a WARC record; false if there is none.
func nextMember(f io.ReaderAt, size, from int64) (int64, bool) {
	buf := make([]byte, 64<<10)
	for off := from; off < size; {
		n, err := f.ReadAt(buf, off)
		if n < 3 {
			return 0, false
		}
		p := buf[:n]
		for i := 0; i+3 <= len(p); i++ {
			j := bytes.IndexByte(p[i:], 0x1f)
			if j < 0 {
				break
			}
			i += j
			if i+3 > len(p) {
				break
			}
			if p[i+1] == 0x8b && p[i+2] == 8 && isMember(f, size, off+int64(i)) {
				return off + int64(i), true
			}
		}
		if err != nil {
			return 0, false
		}
		off += int64(n) - 2 // a magic number may straddle the chunks
	}
	return 0, false
}

// isMember reports whether a whole gzip member starts at off, its CRC and
// length right, and inflates to something that starts like a WARC record.
func isMember(f io.ReaderAt, size, off int64) bool {
	zr, err := gzip.NewReader(io.NewSectionReader(f, off, size-off))
	if err != nil {
		return false
	}
	zr.Multistream(false)
	var head [5]byte
	if _, err := io.ReadFull(zr, head[:]); err != nil || !bytes.EqualFold(head[:], []byte("warc/")) {
		return false
	}
	_, err = io.Copy(io.Discard, zr)
	return err == nil
}
