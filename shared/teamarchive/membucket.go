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
	uploads map[string]*memUpload
	nextID  int
	// Now gives upload times; time.Now when nil.
	Now func() time.Time
	// MinPartSize is the least size of a multipart upload's parts but the last;
	// zero means R2's MinPartSize. Tests lower it to keep parts small.
	MinPartSize int64
}

type memUpload struct {
	key   string
	opts  PutOptions
	parts map[int][]byte
}

type memObject struct {
	info Object
	data []byte
}

// NewMemBucket returns an empty MemBucket.
func NewMemBucket() *MemBucket {
	return &MemBucket{objects: map[string]*memObject{}, uploads: map[string]*memUpload{}}
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
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.store(key, data, hex.EncodeToString(sum[:]), opts)
}

// store puts data under key; b.mu is held.
func (b *MemBucket) store(key string, data []byte, etag string, opts PutOptions) (*Object, error) {
	now := time.Now
	if b.Now != nil {
		now = b.Now
	}
	old, exists := b.objects[key]
	if opts.IfNoneMatch && exists || opts.IfMatch != "" && (!exists || old.info.ETag != opts.IfMatch) {
		return nil, fmt.Errorf("%w: put %s", ErrPrecondition, key)
	}
	o := &memObject{
		info: Object{Key: key, Size: int64(len(data)), ETag: etag, Uploaded: now().UTC(), Meta: maps.Clone(opts.Meta)},
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

// CreateMultipart implements Multipart.
func (b *MemBucket) CreateMultipart(_ context.Context, key string, opts PutOptions) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.uploads == nil {
		b.uploads = map[string]*memUpload{}
	}
	b.nextID++
	id := fmt.Sprintf("mem-upload-%d", b.nextID)
	b.uploads[id] = &memUpload{key: key, opts: opts, parts: map[int][]byte{}}
	return id, nil
}

func (b *MemBucket) upload(key, uploadID string) (*memUpload, error) {
	u, ok := b.uploads[uploadID]
	if !ok || u.key != key {
		return nil, fmt.Errorf("%w: %s for %s", ErrNoUpload, uploadID, key)
	}
	return u, nil
}

// UploadPart implements Multipart. Its ETag is the part's MD5, as R2's.
func (b *MemBucket) UploadPart(_ context.Context, key, uploadID string, n int, body io.Reader, size int64) (string, error) {
	if n < 1 || n > MaxParts {
		return "", fmt.Errorf("teamarchive: upload part %d of %s: part numbers go from 1 to %d", n, key, MaxParts)
	}
	data, err := io.ReadAll(io.LimitReader(body, size))
	if err != nil {
		return "", fmt.Errorf("teamarchive: upload part %d of %s: %w", n, key, err)
	}
	if int64(len(data)) < size {
		return "", fmt.Errorf("teamarchive: upload part %d of %s: %w (%d of %d bytes)", n, key, ErrShortBody, len(data), size)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	u, err := b.upload(key, uploadID)
	if err != nil {
		return "", err
	}
	u.parts[n] = data
	sum := md5.Sum(data)
	return hex.EncodeToString(sum[:]), nil
}

// CompleteMultipart implements Multipart, with R2's rules: parts given in increasing
// order, each as uploaded (its ETag), all but the last of one size of at least
// MinPartSize, the last no larger. The ETag is S3's: the MD5 of the parts' MD5s, "-"
// and the number of parts.
func (b *MemBucket) CompleteMultipart(_ context.Context, key, uploadID string, parts []Part) (*Object, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	u, err := b.upload(key, uploadID)
	if err != nil {
		return nil, err
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("teamarchive: complete %s: no parts", key)
	}
	minPart := b.MinPartSize
	if minPart <= 0 {
		minPart = MinPartSize
	}
	var data []byte
	sums := md5.New()
	for i, p := range parts {
		d, ok := u.parts[p.Number]
		switch {
		case i > 0 && p.Number <= parts[i-1].Number:
			return nil, fmt.Errorf("teamarchive: complete %s: part %d after part %d: parts must be in increasing order", key, p.Number, parts[i-1].Number)
		case !ok:
			return nil, fmt.Errorf("teamarchive: complete %s: part %d was not uploaded", key, p.Number)
		}
		sum := md5.Sum(d)
		if hex.EncodeToString(sum[:]) != p.ETag {
			return nil, fmt.Errorf("teamarchive: complete %s: part %d: ETag %q is not the uploaded part's", key, p.Number, p.ETag)
		}
		first := len(u.parts[parts[0].Number])
		switch last := i == len(parts)-1; {
		case !last && len(d) < int(minPart):
			return nil, fmt.Errorf("teamarchive: complete %s: part %d is %d bytes, less than the %d of every part but the last", key, p.Number, len(d), minPart)
		case !last && len(d) != first, last && len(d) > first:
			return nil, fmt.Errorf("teamarchive: complete %s: part %d is %d bytes where part %d is %d: parts must be of one size, the last no larger", key, p.Number, len(d), parts[0].Number, first)
		}
		sums.Write(sum[:])
		data = append(data, d...)
	}
	o, err := b.store(key, data, fmt.Sprintf("%x-%d", sums.Sum(nil), len(parts)), u.opts)
	if err != nil {
		return nil, err
	}
	delete(b.uploads, uploadID)
	return o, nil
}

// AbortMultipart implements Multipart.
func (b *MemBucket) AbortMultipart(_ context.Context, key, uploadID string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if u, ok := b.uploads[uploadID]; ok && u.key == key {
		delete(b.uploads, uploadID)
	}
	return nil
}

// Uploads returns the number of multipart uploads in progress: tests check that
// none was left behind.
func (b *MemBucket) Uploads() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.uploads)
}
