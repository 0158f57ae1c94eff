package teamarchive

import (
	"context"
	"errors"
	"io"
	"time"
)

// Errors a Bucket returns, usable with errors.Is.
var (
	// ErrNotExist is returned for a key that holds no object.
	ErrNotExist = errors.New("teamarchive: object does not exist")
	// ErrPrecondition is returned by Put when its condition does not hold.
	ErrPrecondition = errors.New("teamarchive: precondition failed")
	// ErrShortBody is returned by Put when the body ends before the announced size.
	ErrShortBody = errors.New("teamarchive: body shorter than its declared size")
)

// A Bucket is the object store the archive keeps everything in: R2 in the Worker,
// MemBucket natively. Implementations must make Put atomic (an object is visible
// whole or not at all) and its condition checked atomically with the write, as R2 does.
type Bucket interface {
	// Head returns the object's facts, or ErrNotExist.
	Head(ctx context.Context, key string) (*Object, error)
	// Get returns the object's facts and a reader of its bytes, of the range r when
	// r is not nil (r.Length < 0: to the end). The caller closes the reader.
	Get(ctx context.Context, key string, r *Range) (*Object, io.ReadCloser, error)
	// Put stores exactly size bytes read from body under key, if opts' condition
	// holds (else ErrPrecondition, and nothing is stored). A body that ends early
	// stores nothing and returns an error wrapping ErrShortBody or the read error.
	// A size < 0 means unknown: body is read to its end (R2 then needs a multipart
	// upload); a read error still stores nothing. Conditions are only used with
	// known sizes.
	Put(ctx context.Context, key string, body io.Reader, size int64, opts PutOptions) (*Object, error)
	// Delete removes the keys; missing keys are not an error.
	Delete(ctx context.Context, keys ...string) error
	// List returns up to limit objects whose keys start with prefix, in key order,
	// from the position cursor (from a previous page; "" to start) on.
	List(ctx context.Context, prefix, cursor string, limit int) (*ListPage, error)
	Multipart
}

// An Object describes one stored object.
type Object struct {
	Key      string
	Size     int64
	ETag     string // opaque entity tag, without quotes
	Uploaded time.Time
	Meta     map[string]string // custom metadata (Put's PutOptions.Meta)
}

// A Range is a byte range of an object: Length bytes from Offset; Length < 0 reads
// to the end.
type Range struct {
	Offset, Length int64
}

// PutOptions are the condition and metadata of a Put.
type PutOptions struct {
	// IfMatch, when not empty, stores only if the object exists with this ETag.
	IfMatch string
	// IfNoneMatch stores only if no object exists under the key.
	IfNoneMatch bool
	// ContentType is stored with the object.
	ContentType string
	// Meta is stored as the object's custom metadata (R2 allows 2 KiB in all).
	Meta map[string]string
}

// A ListPage is one page of List.
type ListPage struct {
	Objects []Object
	// Cursor continues the listing when Truncated is set.
	Cursor    string
	Truncated bool
}

// Multipart uploads, as R2 has them: every part but the last at least MinPartSize
// bytes and all of the same size, at most MaxParts parts numbered from 1.
const (
	MinPartSize = 5 << 20
	MaxParts    = 10000
)

// ErrNoUpload is returned for a multipart upload that does not exist (any more):
// completed, aborted, or never created.
var ErrNoUpload = errors.New("teamarchive: no such multipart upload")

// A Multipart is the object store's multipart upload: the parts of one object sent
// one by one (each its own request), then assembled in one step. R2 has it; MemBucket
// does it in memory.
type Multipart interface {
	// CreateMultipart starts a multipart upload of key and returns its id. The object
	// appears only when the upload is completed.
	CreateMultipart(ctx context.Context, key string, opts PutOptions) (uploadID string, err error)
	// UploadPart stores part number n (1 to MaxParts) of an upload: exactly size bytes of
	// body, as Put. Sending a part again replaces it. It returns the part's ETag.
	UploadPart(ctx context.Context, key, uploadID string, n int, body io.Reader, size int64) (etag string, err error)
	// CompleteMultipart assembles the parts, in order, into the object key.
	CompleteMultipart(ctx context.Context, key, uploadID string, parts []Part) (*Object, error)
	// AbortMultipart discards an upload and its parts; an upload that does not exist is
	// not an error.
	AbortMultipart(ctx context.Context, key, uploadID string) error
}

// A Part names one uploaded part for CompleteMultipart.
type Part struct {
	Number int
	ETag   string
}
