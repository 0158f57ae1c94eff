//go:build js && wasm

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"syscall/js"
	"time"

	"github.com/webkeep/webkeep/shared/teamarchive"
	"github.com/webkeep/webkeep/wasm/jspromise"
)

// smallPut is the size up to which a Put sends one buffer; larger bodies are
// streamed through a FixedLengthStream, which R2 requires for a stream (its length
// must be known) and which keeps memory flat.
const smallPut = 1 << 20

const chunkSize = 64 << 10

var (
	uint8Array        = js.Global().Get("Uint8Array")
	fixedLengthStream = js.Global().Get("FixedLengthStream")
	headersClass      = js.Global().Get("Headers")
	objectClass       = js.Global().Get("Object")
)

// r2Bucket is teamarchive.Bucket over an R2 binding (the Workers runtime API:
// head, get with range, put with onlyIf and customMetadata, list with include,
// delete of many keys), which syumai/workers' r2 package does not cover.
type r2Bucket struct {
	b js.Value
}

func toObject(v js.Value) *teamarchive.Object {
	o := &teamarchive.Object{
		Key:      v.Get("key").String(),
		Size:     int64(v.Get("size").Float()),
		ETag:     v.Get("etag").String(),
		Uploaded: time.UnixMilli(int64(v.Get("uploaded").Call("getTime").Float())).UTC(),
		Meta:     map[string]string{},
	}
	if m := v.Get("customMetadata"); m.Truthy() {
		entries := objectClass.Call("entries", m)
		for i := range entries.Length() {
			o.Meta[entries.Index(i).Index(0).String()] = entries.Index(i).Index(1).String()
		}
	}
	return o
}

func (r *r2Bucket) Head(_ context.Context, key string) (*teamarchive.Object, error) {
	v, err := jspromise.Await(r.b.Call("head", key))
	if err != nil {
		return nil, fmt.Errorf("r2 head %s: %w", key, err)
	}
	if v.IsNull() {
		return nil, fmt.Errorf("%w: %s", teamarchive.ErrNotExist, key)
	}
	return toObject(v), nil
}

func (r *r2Bucket) Get(_ context.Context, key string, rg *teamarchive.Range) (*teamarchive.Object, io.ReadCloser, error) {
	opts := map[string]any{}
	if rg != nil {
		if rg.Length == 0 {
			o, err := r.Head(context.Background(), key)
			return o, io.NopCloser(eofReader{}), err
		}
		rv := map[string]any{"offset": rg.Offset}
		if rg.Length > 0 {
			rv["length"] = rg.Length
		}
		opts["range"] = rv
	}
	v, err := jspromise.Await(r.b.Call("get", key, opts))
	if err != nil {
		return nil, nil, fmt.Errorf("r2 get %s: %w", key, err)
	}
	if v.IsNull() {
		return nil, nil, fmt.Errorf("%w: %s", teamarchive.ErrNotExist, key)
	}
	return toObject(v), &streamReader{stream: v.Get("body")}, nil
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

func (r *r2Bucket) Put(_ context.Context, key string, body io.Reader, size int64, opts teamarchive.PutOptions) (*teamarchive.Object, error) {
	jsOpts := putOptions(opts)
	if opts.IfMatch != "" || opts.IfNoneMatch {
		h := headersClass.New()
		if opts.IfMatch != "" {
			h.Call("set", "If-Match", `"`+opts.IfMatch+`"`)
		}
		if opts.IfNoneMatch {
			h.Call("set", "If-None-Match", "*")
		}
		jsOpts["onlyIf"] = h
	}

	if size < 0 {
		return r.putUnknown(key, body, jsOpts)
	}
	value, finish, err := sizedBody(body, size)
	if err != nil {
		return nil, fmt.Errorf("r2 put %s: %w", key, err)
	}
	v, err := jspromise.Await(r.b.Call("put", key, value, jsOpts))
	if perr := finish(err != nil); perr != nil {
		return nil, fmt.Errorf("r2 put %s: %w", key, perr)
	}
	if err != nil {
		return nil, fmt.Errorf("r2 put %s: %w", key, err)
	}
	if v.IsNull() {
		return nil, fmt.Errorf("%w: put %s", teamarchive.ErrPrecondition, key)
	}
	return toObject(v), nil
}

// putOptions are R2's options for opts' content type and metadata.
func putOptions(opts teamarchive.PutOptions) map[string]any {
	jsOpts := map[string]any{}
	if opts.ContentType != "" {
		jsOpts["httpMetadata"] = map[string]any{"contentType": opts.ContentType}
	}
	if len(opts.Meta) > 0 {
		m := map[string]any{}
		for k, v := range opts.Meta {
			m[k] = v
		}
		jsOpts["customMetadata"] = m
	}
	return jsOpts
}

// sizedBody makes exactly size bytes of body a value R2 takes: one buffer up to
// smallPut, else a FixedLengthStream fed as R2 reads it, so memory stays flat. Once R2
// has answered, finish (told whether R2 failed) waits for the stream's feeder and
// returns its error: a short or failing body.
func sizedBody(body io.Reader, size int64) (js.Value, func(failed bool) error, error) {
	if size <= smallPut || fixedLengthStream.IsUndefined() {
		buf := make([]byte, size)
		if n, err := io.ReadFull(body, buf); err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
				err = fmt.Errorf("%w (%d of %d bytes)", teamarchive.ErrShortBody, n, size)
			}
			return js.Undefined(), nil, err
		}
		value := uint8Array.New(len(buf))
		js.CopyBytesToJS(value, buf)
		return value, func(bool) error { return nil }, nil
	}
	fls := fixedLengthStream.New(size)
	writer := fls.Get("writable").Call("getWriter")
	pumpErr := make(chan error, 1)
	go func() { pumpErr <- pump(writer, body, size) }()
	return fls.Get("readable"), func(failed bool) error {
		if failed {
			writer.Call("abort", "put failed")
		}
		return <-pumpErr
	}, nil
}

// noUpload turns R2's refusal of an unknown multipart upload into ErrNoUpload.
func noUpload(err error) error {
	if s := err.Error(); strings.Contains(s, "does not exist") || strings.Contains(s, "10024") {
		return fmt.Errorf("%w: %v", teamarchive.ErrNoUpload, err)
	}
	return err
}

func (r *r2Bucket) CreateMultipart(_ context.Context, key string, opts teamarchive.PutOptions) (string, error) {
	up, err := jspromise.Await(r.b.Call("createMultipartUpload", key, putOptions(opts)))
	if err != nil {
		return "", fmt.Errorf("r2 create multipart %s: %w", key, err)
	}
	return up.Get("uploadId").String(), nil
}

func (r *r2Bucket) UploadPart(_ context.Context, key, uploadID string, n int, body io.Reader, size int64) (string, error) {
	value, finish, err := sizedBody(body, size)
	if err != nil {
		return "", fmt.Errorf("r2 upload part %d of %s: %w", n, key, err)
	}
	up := r.b.Call("resumeMultipartUpload", key, uploadID)
	p, err := jspromise.Await(up.Call("uploadPart", n, value))
	if perr := finish(err != nil); perr != nil {
		return "", fmt.Errorf("r2 upload part %d of %s: %w", n, key, perr)
	}
	if err != nil {
		return "", fmt.Errorf("r2 upload part %d of %s: %w", n, key, noUpload(err))
	}
	return p.Get("etag").String(), nil
}

func (r *r2Bucket) CompleteMultipart(_ context.Context, key, uploadID string, parts []teamarchive.Part) (*teamarchive.Object, error) {
	list := make([]any, len(parts))
	for i, p := range parts {
		list[i] = map[string]any{"partNumber": p.Number, "etag": p.ETag}
	}
	up := r.b.Call("resumeMultipartUpload", key, uploadID)
	v, err := jspromise.Await(up.Call("complete", list))
	if err != nil {
		return nil, fmt.Errorf("r2 complete %s: %w", key, noUpload(err))
	}
	return toObject(v), nil
}

func (r *r2Bucket) AbortMultipart(_ context.Context, key, uploadID string) error {
	up := r.b.Call("resumeMultipartUpload", key, uploadID)
	if _, err := jspromise.Await(up.Call("abort")); err != nil {
		if errors.Is(noUpload(err), teamarchive.ErrNoUpload) {
			return nil
		}
		return fmt.Errorf("r2 abort %s: %w", key, err)
	}
	return nil
}

// partSize is the multipart part size: R2 wants at least 5 MiB and equal sizes for
// every part but the last.
const partSize = 8 << 20

// putUnknown stores a body of unknown length: one put when it fits in a part, else
// a multipart upload, aborted (nothing stored) if the body fails.
func (r *r2Bucket) putUnknown(key string, body io.Reader, jsOpts map[string]any) (*teamarchive.Object, error) {
	buf := make([]byte, partSize)
	n, err := io.ReadFull(body, buf)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return r.Put(context.Background(), key, bytes.NewReader(buf[:n]), int64(n), teamarchive.PutOptions{
			ContentType: jsString(jsOpts["httpMetadata"], "contentType"), Meta: metaOf(jsOpts),
		})
	}
	if err != nil {
		return nil, fmt.Errorf("r2 put %s: %w", key, err)
	}
	up, err := jspromise.Await(r.b.Call("createMultipartUpload", key, jsOpts))
	if err != nil {
		return nil, fmt.Errorf("r2 multipart %s: %w", key, err)
	}
	fail := func(err error) (*teamarchive.Object, error) {
		jspromise.Await(up.Call("abort"))
		return nil, fmt.Errorf("r2 put %s: %w", key, err)
	}
	var parts []any
	for part := 1; n > 0; part++ {
		chunk := uint8Array.New(n)
		js.CopyBytesToJS(chunk, buf[:n])
		p, err := jspromise.Await(up.Call("uploadPart", part, chunk))
		if err != nil {
			return fail(err)
		}
		parts = append(parts, p)
		n, err = io.ReadFull(body, buf)
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
			return fail(err)
		}
	}
	v, err := jspromise.Await(up.Call("complete", parts))
	if err != nil {
		return fail(err)
	}
	return toObject(v), nil
}

func jsString(v any, field string) string {
	m, _ := v.(map[string]any)
	s, _ := m[field].(string)
	return s
}

func metaOf(jsOpts map[string]any) map[string]string {
	m, _ := jsOpts["customMetadata"].(map[string]any)
	if m == nil {
		return nil
	}
	out := map[string]string{}
	for k, v := range m {
		out[k], _ = v.(string)
	}
	return out
}

// pump copies exactly size bytes of body into a FixedLengthStream's writer, waiting
// on each write so memory stays at one chunk; a short or failing body aborts the
// stream, which fails the put: nothing is stored.
func pump(writer js.Value, body io.Reader, size int64) error {
	buf := make([]byte, chunkSize)
	var done int64
	for done < size {
		n, err := body.Read(buf[:min(int64(len(buf)), size-done)])
		if n > 0 {
			chunk := uint8Array.New(n)
			js.CopyBytesToJS(chunk, buf[:n])
			if _, werr := jspromise.Await(writer.Call("write", chunk)); werr != nil {
				return werr
			}
			done += int64(n)
		}
		if err == io.EOF && done < size {
			err = fmt.Errorf("%w (%d of %d bytes)", teamarchive.ErrShortBody, done, size)
		}
		if err != nil && err != io.EOF {
			writer.Call("abort", err.Error())
			return err
		}
	}
	_, err := jspromise.Await(writer.Call("close"))
	return err
}

func (r *r2Bucket) Delete(_ context.Context, keys ...string) error {
	if len(keys) == 0 {
		return nil
	}
	arr := make([]any, len(keys))
	for i, k := range keys {
		arr[i] = k
	}
	if _, err := jspromise.Await(r.b.Call("delete", arr)); err != nil {
		return fmt.Errorf("r2 delete %v: %w", keys, err)
	}
	return nil
}

func (r *r2Bucket) List(_ context.Context, prefix, cursor string, limit int) (*teamarchive.ListPage, error) {
	opts := map[string]any{"prefix": prefix, "include": []any{"customMetadata"}}
	if cursor != "" {
		opts["cursor"] = cursor
	}
	if limit > 0 {
		opts["limit"] = limit
	}
	v, err := jspromise.Await(r.b.Call("list", opts))
	if err != nil {
		return nil, fmt.Errorf("r2 list %s: %w", prefix, err)
	}
	page := &teamarchive.ListPage{Truncated: v.Get("truncated").Bool()}
	if c := v.Get("cursor"); c.Type() == js.TypeString {
		page.Cursor = c.String()
	}
	objs := v.Get("objects")
	for i := range objs.Length() {
		page.Objects = append(page.Objects, *toObject(objs.Index(i)))
	}
	return page, nil
}

// streamReader reads a ReadableStream of bytes.
type streamReader struct {
	stream  js.Value
	reader  js.Value
	started bool
	handed  bool // the stream went to the response as it is
	buf     []byte
	err     error
}

func (s *streamReader) Read(p []byte) (int, error) {
	for len(s.buf) == 0 {
		if s.err != nil {
			return 0, s.err
		}
		if !s.started {
			s.reader = s.stream.Call("getReader")
			s.started = true
		}
		res, err := jspromise.Await(s.reader.Call("read"))
		if err != nil {
			s.err = err
			continue
		}
		if res.Get("done").Bool() {
			s.err = io.EOF
			continue
		}
		chunk := res.Get("value")
		s.buf = make([]byte, chunk.Get("byteLength").Int())
		js.CopyBytesToGo(s.buf, chunk)
	}
	n := copy(p, s.buf)
	s.buf = s.buf[n:]
	return n, nil
}

func (s *streamReader) Close() error {
	if s.handed {
		return nil
	}
	if s.started {
		s.reader.Call("cancel")
	} else if s.err == nil {
		s.stream.Call("cancel")
	}
	s.err = io.ErrClosedPipe
	return nil
}

// rawBodyWriter is syumai/workers' ResponseWriter: given the stream itself, it hands
// it to the Response, so a download never passes through Go's memory.
type rawBodyWriter interface {
	WriteRawJSBody(body js.Value)
}

// WriteTo lets io.Copy hand an untouched stream to the response.
func (s *streamReader) WriteTo(w io.Writer) (int64, error) {
	if rw, ok := w.(rawBodyWriter); ok && !s.started && s.err == nil {
		rw.WriteRawJSBody(s.stream)
		s.started, s.handed, s.err = true, true, io.EOF
		return 0, nil
	}
	return io.Copy(w, struct{ io.Reader }{s})
}

// missingBucket answers every call with the configuration error.
type missingBucket struct{}

var errNoBinding = errors.New("the R2 binding ARCHIVE is not configured")

func (missingBucket) Head(context.Context, string) (*teamarchive.Object, error) {
	return nil, errNoBinding
}
func (missingBucket) Get(context.Context, string, *teamarchive.Range) (*teamarchive.Object, io.ReadCloser, error) {
	return nil, nil, errNoBinding
}
func (missingBucket) Put(context.Context, string, io.Reader, int64, teamarchive.PutOptions) (*teamarchive.Object, error) {
	return nil, errNoBinding
}
func (missingBucket) Delete(context.Context, ...string) error { return errNoBinding }
func (missingBucket) CreateMultipart(context.Context, string, teamarchive.PutOptions) (string, error) {
	return "", errNoBinding
}
func (missingBucket) UploadPart(context.Context, string, string, int, io.Reader, int64) (string, error) {
	return "", errNoBinding
}
func (missingBucket) CompleteMultipart(context.Context, string, string, []teamarchive.Part) (*teamarchive.Object, error) {
	return nil, errNoBinding
}
func (missingBucket) AbortMultipart(context.Context, string, string) error { return errNoBinding }
func (missingBucket) List(context.Context, string, string, int) (*teamarchive.ListPage, error) {
	return nil, errNoBinding
}
