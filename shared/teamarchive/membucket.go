package teamarchive

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
)

// MemBucket is a Bucket in memory, with R2's semantics: atomic conditional puts,
// MD5 ETags, key-ordered listing. It serves tests and local use.
type MemBucket struct {
	mu      sync.Mutex
	objects map[string]*memObject
	// Now gives upload times; time.Now when nil.
	Now func() time.Time
}

type memObject struct {
	info Object
	data []byte
}

// NewMemBucket returns an empty MemBucket.
func NewMemBucket() *MemBucket {
	return &MemBucket{objects: map[string]*memObject{}}
}

func (b *MemBucket) lookup(key string) (*memObject, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	o, ok := b.objects[key]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNotExist, key)
	}
	return o, nil
}

// Head implements Bucket.
func (b *MemBucket) Head(_ context.Context, key string) (*Object, error) {
	o, err := b.lookup(key)
	if err != nil {
		return nil, err
	}
	info := o.info
	return &info, nil
}

// Get implements Bucket.
func (b *MemBucket) Get(_ context.Context, key string, r *Range) (*Object, io.ReadCloser, error) {
	o, err := b.lookup(key)
	if err != nil {
		return nil, nil, err
	}
	data := o.data
	if r != nil {
		if r.Offset < 0 || r.Offset > int64(len(data)) {
			return nil, nil, fmt.Errorf("teamarchive: range offset %d outside %s (%d bytes)", r.Offset, key, len(data))
		}
		data = data[r.Offset:]
		if r.Length >= 0 && r.Length < int64(len(data)) {
			data = data[:r.Length]
		}
	}
	info := o.info
	return &info, io.NopCloser(bytes.NewReader(data)), nil
}

// Put implements Bucket.
func (b *MemBucket) Put(_ context.Context, key string, body io.Reader, size int64, opts PutOptions) (*Object, error) {
	if size >= 0 {
		body = io.LimitReader(body, size)
	}
	data, err := io.ReadAll(body)
	if err != nil {
		return nil, fmt.Errorf("teamarchive: put %s: %w", key, err)
	}
	if size < 0 {
		size = int64(len(data))
	} else if int64(len(data)) < size {
		return nil, fmt.Errorf("teamarchive: put %s: %w (%d of %d bytes)", key, ErrShortBody, len(data), size)
	}
	sum := md5.Sum(data)
	now := time.Now
	if b.Now != nil {
		now = b.Now
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	old, exists := b.objects[key]
	if opts.IfNoneMatch && exists || opts.IfMatch != "" && (!exists || old.info.ETag != opts.IfMatch) {
		return nil, fmt.Errorf("%w: put %s", ErrPrecondition, key)
	}
	o := &memObject{
		info: Object{Key: key, Size: size, ETag: hex.EncodeToString(sum[:]), Uploaded: now().UTC(), Meta: maps.Clone(opts.Meta)},
		data: data,
	}
	b.objects[key] = o
	info := o.info
	return &info, nil
}

// Delete implements Bucket.
func (b *MemBucket) Delete(_ context.Context, keys ...string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, k := range keys {
		delete(b.objects, k)
	}
	return nil
}

// List implements Bucket. The cursor is the last key of the previous page.
func (b *MemBucket) List(_ context.Context, prefix, cursor string, limit int) (*ListPage, error) {
	if limit <= 0 {
		limit = 1000
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	var keys []string
	for k := range b.objects {
		if strings.HasPrefix(k, prefix) && k > cursor {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	page := &ListPage{}
	for i, k := range keys {
		if i == limit {
			page.Truncated = true
			page.Cursor = keys[i-1]
			break
		}
		info := b.objects[k].info
		page.Objects = append(page.Objects, info)
	}
	return page, nil
}

// Keys returns every key in the bucket, sorted: tests check that nothing was left
// behind.
func (b *MemBucket) Keys() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Sorted(maps.Keys(b.objects))
}
