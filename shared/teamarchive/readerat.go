package teamarchive

import (
	"context"
	"io"
)

// readBlock is the unit bucketReaderAt fetches: large enough that reading a zip's
// directory takes one or two requests, small enough to keep in memory a few times.
const readBlock = 64 << 10

// bucketReaderAt reads an object with ranged Gets, keeping the last few blocks, so
// archive/zip can read a stored bundle's directory without downloading it.
type bucketReaderAt struct {
	ctx    context.Context
	b      Bucket
	key    string
	size   int64
	blocks [4]struct {
		n    int64 // block number + 1; 0 is empty
		data []byte
	}
	next int
}

func (ra *bucketReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, io.ErrUnexpectedEOF
	}
	total := 0
	for len(p) > 0 {
		if off >= ra.size {
			return total, io.EOF
		}
		block, err := ra.block(off / readBlock)
		if err != nil {
			return total, err
		}
		n := copy(p, block[off%readBlock:])
		p, off, total = p[n:], off+int64(n), total+n
	}
	return total, nil
}

func (ra *bucketReaderAt) block(i int64) ([]byte, error) {
	for _, b := range ra.blocks {
		if b.n == i+1 {
			return b.data, nil
		}
	}
	_, rc, err := ra.b.Get(ra.ctx, ra.key, &Range{i * readBlock, min(readBlock, ra.size-i*readBlock)})
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) != min(readBlock, ra.size-i*readBlock) {
		return nil, io.ErrUnexpectedEOF
	}
	slot := &ra.blocks[ra.next]
	ra.next = (ra.next + 1) % len(ra.blocks)
	slot.n, slot.data = i+1, data
	return data, nil
}
