package teamarchive

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Defaults of the uploads in parts.
const (
	DefaultPartSize      = 16 << 20
	DefaultMaxUploadSize = 16 << 30
	DefaultUploadTTL     = 24 * time.Hour
)

// Key prefixes of uploads in progress (see the package documentation).
const (
	prefixUploads = "uploads/"
	prefixParts   = "parts/"
)

// sweepBatch bounds the abandoned uploads one request removes, so that a sweep stays
// inside a Worker's subrequest budget.
const sweepBatch = 20

// An uploadRecord is an upload in progress, kept under uploads/{name}/{id} until the
// bundle is listed or the upload aborted: what the sweep needs to remove it if it is
// abandoned.
type uploadRecord struct {
	Name      string    `json:"name"`
	ID        string    `json:"upload"`
	Uploader  string    `json:"uploader"`
	Created   time.Time `json:"created"`
	DataKey   string    `json:"data"`
	Multipart string    `json:"-"` // the bucket's multipart upload id; "" for a single PUT
	PartSize  int64     `json:"partSize,omitempty"`
	Overwrite bool      `json:"overwrite,omitempty"`
}

func (u *uploadRecord) key() string        { return prefixUploads + u.Name + "/" + u.ID }
func (u *uploadRecord) partPrefix() string { return prefixParts + u.Name + "/" + u.ID + "/" }
func (u *uploadRecord) cdxKey() string     { return prefixCDX + strings.TrimPrefix(u.DataKey, prefixData) }

func (u *uploadRecord) meta() map[string]string {
	return map[string]string{
		"uploader":  u.Uploader,
		"created":   u.Created.UTC().Format(time.RFC3339Nano),
		"data":      u.DataKey,
		"multipart": u.Multipart,
		"partsize":  strconv.FormatInt(u.PartSize, 10),
		"overwrite": strconv.FormatBool(u.Overwrite),
	}
}

func recordFromObject(o *Object) *uploadRecord {
	name, id, _ := strings.Cut(strings.TrimPrefix(o.Key, prefixUploads), "/")
	u := &uploadRecord{Name: name, ID: id, Uploader: o.Meta["uploader"], DataKey: o.Meta["data"],
		Multipart: o.Meta["multipart"], Overwrite: o.Meta["overwrite"] == "true"}
	u.Created, _ = time.Parse(time.RFC3339Nano, o.Meta["created"])
	u.PartSize, _ = strconv.ParseInt(o.Meta["partsize"], 10, 64)
	return u
}

func (s *Server) putRecord(ctx context.Context, u *uploadRecord) error {
	if _, err := s.cfg.Bucket.Put(ctx, u.key(), http.NoBody, 0, PutOptions{IfNoneMatch: true, Meta: u.meta()}); err != nil {
		return fmt.Errorf("recording the upload of %s: %w", u.Name, err)
	}
	return nil
}

// A partRecord is one received part, kept under parts/{name}/{id}/{number}, with
// the bucket's ETag of it (opaque: miniflare's is no MD5). State is the SHA-256 state of the whole upload after this part, when the part was
// hashed on from the state its predecessor recorded (Prev, "" for part 1): parts sent
// in order give the bundle's SHA-256 without reading it again.
type partRecord struct {
	Number int    `json:"number"`
	Size   int64  `json:"size"`
	ETag   string `json:"etag"`
	state  string
	prev   string
}

func partKey(u *uploadRecord, n int) string { return fmt.Sprintf("%s%05d", u.partPrefix(), n) }

func partFromObject(o *Object) partRecord {
	p := partRecord{ETag: o.Meta["etag"], state: o.Meta["state"], prev: o.Meta["prev"]}
	p.Number, _ = strconv.Atoi(o.Key[strings.LastIndexByte(o.Key, '/')+1:])
	p.Size, _ = strconv.ParseInt(o.Meta["size"], 10, 64)
	return p
}

// routeUploads serves /api/uploads and below: path is what follows "/api/uploads".
func (s *Server) routeUploads(w http.ResponseWriter, r *http.Request, path string) error {
	path = strings.TrimPrefix(path, "/")
	if path == "" {
		if err := methods(r, http.MethodGet, http.MethodDelete); err != nil {
			return err
		}
		if _, err := s.authorize(w, r, true); err != nil {
			return err
		}
		if r.Method == http.MethodDelete {
			n, err := s.sweep(r.Context(), sweepBatch)
			if err != nil {
				return err
			}
			writeJSON(w, http.StatusOK, map[string]int{"removed": n})
			return nil
		}
		return s.listUploads(w, r)
	}
	parts := strings.Split(path, "/")
	for _, p := range parts[:min(len(parts), 2)] {
		if err := ValidName(p); err != nil {
			return err
		}
	}
	switch len(parts) {
	case 1:
		if err := methods(r, http.MethodPost); err != nil {
			return err
		}
		who, err := s.authorize(w, r, true)
		if err != nil {
			return err
		}
		return s.createUpload(w, r, parts[0], who)
	case 2, 3:
	default:
		return httpErr(http.StatusNotFound, "no such endpoint: %s", clip(r.URL.EscapedPath()))
	}
	allowed := []string{http.MethodGet, http.MethodPost, http.MethodDelete}
	if len(parts) == 3 {
		allowed = []string{http.MethodPut}
	}
	if err := methods(r, allowed...); err != nil {
		return err
	}
	who, err := s.authorize(w, r, true)
	if err != nil {
		return err
	}
	u, err := s.openUpload(r.Context(), parts[0], parts[1], who)
	if err != nil {
		return err
	}
	if len(parts) == 3 {
		n, err := strconv.Atoi(parts[2])
		if err != nil || n < 1 || n > MaxParts || parts[2] != strconv.Itoa(n) {
			return httpErr(http.StatusBadRequest, "part number %q: want 1 to %d", clip(parts[2]), MaxParts)
		}
		return s.putPart(w, r, u, n)
	}
	switch r.Method {
	case http.MethodPost:
		return s.completeUpload(w, r, u)
	case http.MethodDelete:
		s.removeUpload(u, false)
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	received, err := s.listParts(r.Context(), u)
	if err != nil {
		return err
	}
	return s.writeUpload(w, http.StatusOK, u, received)
}

// openUpload finds an upload in progress; only its uploader may continue it.
func (s *Server) openUpload(ctx context.Context, name, id, who string) (*uploadRecord, error) {
	o, err := s.cfg.Bucket.Head(ctx, prefixUploads+name+"/"+id)
	if errors.Is(err, ErrNotExist) {
		return nil, httpErr(http.StatusNotFound, "no upload %s of %s in progress (completed, aborted or abandoned): start again", id, name)
	}
	if err != nil {
		return nil, err
	}
	u := recordFromObject(o)
	if u.Multipart == "" {
		return nil, httpErr(http.StatusConflict, "upload %s of %s is a single PUT, not an upload in parts", id, name)
	}
	if u.Uploader != who {
		return nil, httpErr(http.StatusForbidden, "upload %s of %s belongs to %s", id, name, u.Uploader)
	}
	return u, nil
}

// uploadAnswer is what the upload routes answer.
type uploadAnswer struct {
	Name     string       `json:"name"`
	Upload   string       `json:"upload"`
	PartSize int64        `json:"partSize"`
	MaxParts int          `json:"maxParts"`
	MaxSize  int64        `json:"maxSize"`
	Uploader string       `json:"uploader"`
	Created  time.Time    `json:"created"`
	Parts    []partRecord `json:"parts"`
	Received int64        `json:"received"` // bytes in the parts received
}

func (s *Server) writeUpload(w http.ResponseWriter, status int, u *uploadRecord, parts []partRecord) error {
	a := uploadAnswer{Name: u.Name, Upload: u.ID, PartSize: u.PartSize, MaxParts: MaxParts,
		MaxSize: min(u.PartSize*MaxParts, s.cfg.MaxUploadSize), Uploader: u.Uploader, Created: u.Created, Parts: parts}
	if a.Parts == nil {
		a.Parts = []partRecord{}
	}
	for _, p := range parts {
		a.Received += p.Size
	}
	writeJSON(w, status, a)
	return nil
}

// createUpload starts an upload in parts of name: a multipart upload in the bucket
// and its record. It first removes a few abandoned uploads.
func (s *Server) createUpload(w http.ResponseWriter, r *http.Request, name, who string) error {
	ctx := r.Context()
	if _, err := s.sweep(ctx, sweepBatch); err != nil {
		s.cfg.Logf("teamarchive: sweeping abandoned uploads: %v", err)
	}
	overwrite := r.URL.Query().Get("overwrite")
	replace := overwrite == "1" || overwrite == "true"
	if !replace {
		if _, err := s.cfg.Bucket.Head(ctx, prefixIndex+name); err == nil {
			return httpErr(http.StatusConflict, "bundle %s exists; add ?overwrite=1 to replace it", name)
		} else if !errors.Is(err, ErrNotExist) {
			return err
		}
	}
	now := s.cfg.Now().UTC()
	id := newUploadID(now)
	u := &uploadRecord{Name: name, ID: id, Uploader: who, Created: now, DataKey: prefixData + name + "/" + id,
		PartSize: s.cfg.PartSize, Overwrite: replace}
	mp, err := s.cfg.Bucket.CreateMultipart(ctx, u.DataKey, PutOptions{})
	if err != nil {
		return fmt.Errorf("starting the upload of %s: %w", name, err)
	}
	u.Multipart = mp
	if err := s.putRecord(ctx, u); err != nil {
		s.abortQuietly(u)
		return err
	}
	w.Header().Set("Location", "/api/uploads/"+name+"/"+id)
	return s.writeUpload(w, http.StatusCreated, u, nil)
}

func (s *Server) abortQuietly(u *uploadRecord) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.cfg.Bucket.AbortMultipart(ctx, u.DataKey, u.Multipart); err != nil {
		s.cfg.Logf("teamarchive: aborting the upload %s of %s: %v", u.ID, u.Name, err)
	}
}

// putPart stores part n: exactly PartSize bytes, but the last part, which may be
// smaller. The part is hashed as it streams through, on from the state of part n-1
// when that part recorded one.
func (s *Server) putPart(w http.ResponseWriter, r *http.Request, u *uploadRecord, n int) error {
	ctx := r.Context()
	size := r.ContentLength
	switch {
	case size == 0:
		return httpErr(http.StatusBadRequest, "part %d is empty", n)
	case size > u.PartSize:
		return httpErr(http.StatusRequestEntityTooLarge, "part %d of %d bytes exceeds the part size of %d bytes", n, size, u.PartSize)
	case int64(n-1)*u.PartSize+max(size, 1) > s.cfg.MaxUploadSize:
		return httpErr(http.StatusRequestEntityTooLarge, "part %d would take the upload past the limit of %d bytes", n, s.cfg.MaxUploadSize)
	}
	var body io.Reader = r.Body
	if size < 0 {
		// No Content-Length (chunked): the part is read first, at most PartSize bytes.
		b, err := io.ReadAll(io.LimitReader(r.Body, u.PartSize+1))
		switch {
		case err != nil:
			return httpErr(http.StatusBadRequest, "part %d interrupted after %d bytes: %v", n, len(b), err)
		case int64(len(b)) > u.PartSize:
			return httpErr(http.StatusRequestEntityTooLarge, "part %d exceeds the part size of %d bytes", n, u.PartSize)
		case len(b) == 0:
			return httpErr(http.StatusBadRequest, "part %d is empty", n)
		}
		body, size = bytes.NewReader(b), int64(len(b))
	}

	rec := partRecord{Number: n, Size: size}
	whole := sha256.New()
	if n > 1 {
		o, err := s.cfg.Bucket.Head(ctx, partKey(u, n-1))
		if err == nil {
			if prev := partFromObject(o); prev.state != "" && restoreHash(whole, prev.state) == nil {
				rec.prev = prev.state
			}
		}
	}
	chained := n == 1 || rec.prev != ""
	in := &uploadReader{r: body, declared: size, max: size}
	var part io.Reader = in
	if chained {
		part = io.TeeReader(in, whole)
	}
	etag, err := s.cfg.Bucket.UploadPart(ctx, u.DataKey, u.Multipart, n, part, size)
	if err != nil {
		if in.err != nil || errors.Is(err, ErrShortBody) {
			return httpErr(http.StatusBadRequest, "part %d interrupted after %d of %d bytes: %v", n, in.n, size, err)
		}
		if errors.Is(err, ErrNoUpload) {
			return httpErr(http.StatusNotFound, "upload %s of %s is gone (aborted or abandoned): start again", u.ID, u.Name)
		}
		return fmt.Errorf("storing part %d of %s: %w", n, u.Name, err)
	}
	rec.ETag = etag
	if chained {
		st, err := whole.(encoding.BinaryMarshaler).MarshalBinary()
		if err == nil {
			rec.state = hex.EncodeToString(st)
		}
	}
	meta := map[string]string{"size": strconv.FormatInt(size, 10), "etag": etag, "state": rec.state, "prev": rec.prev}
	if _, err := s.cfg.Bucket.Put(ctx, partKey(u, n), http.NoBody, 0, PutOptions{Meta: meta}); err != nil {
		return fmt.Errorf("recording part %d of %s: %w", n, u.Name, err)
	}
	writeJSON(w, http.StatusOK, rec)
	return nil
}

func restoreHash(h hash.Hash, state string) error {
	b, err := hex.DecodeString(state)
	if err != nil {
		return err
	}
	return h.(encoding.BinaryUnmarshaler).UnmarshalBinary(b)
}

// listParts returns the parts received, by number.
func (s *Server) listParts(ctx context.Context, u *uploadRecord) ([]partRecord, error) {
	var parts []partRecord
	cursor := ""
	for {
		page, err := s.cfg.Bucket.List(ctx, u.partPrefix(), cursor, maxListLimit)
		if err != nil {
			return nil, err
		}
		for i := range page.Objects {
			parts = append(parts, partFromObject(&page.Objects[i]))
		}
		if !page.Truncated {
			return parts, nil
		}
		cursor = page.Cursor
	}
}

// completeUpload assembles the parts, checks them against what the client says it
// sent (optional JSON {"parts": n, "size": bytes, "sha256": hex}), then indexes and
// lists the bundle as a single PUT does.
func (s *Server) completeUpload(w http.ResponseWriter, r *http.Request, u *uploadRecord) error {
	ctx := r.Context()
	var want struct {
		Parts  int    `json:"parts"`
		Size   int64  `json:"size"`
		SHA256 string `json:"sha256"`
	}
	if b, err := io.ReadAll(io.LimitReader(r.Body, 4096)); err != nil {
		return httpErr(http.StatusBadRequest, "reading the completion: %v", err)
	} else if len(bytes.TrimSpace(b)) > 0 {
		if err := json.Unmarshal(b, &want); err != nil {
			return httpErr(http.StatusBadRequest, "completion body: %v (want {\"parts\": n, \"size\": bytes, \"sha256\": hex})", err)
		}
	}
	parts, err := s.listParts(ctx, u)
	if err != nil {
		return err
	}
	if len(parts) == 0 {
		return httpErr(http.StatusBadRequest, "upload %s of %s has no parts yet", u.ID, u.Name)
	}
	for i, p := range parts {
		if p.Number != i+1 {
			return httpErr(http.StatusBadRequest, "part %d is missing (parts received: %s)", i+1, partNumbers(parts))
		}
	}
	var size int64
	list := make([]Part, len(parts))
	for i, p := range parts {
		last := i == len(parts)-1
		switch {
		case !last && p.Size != u.PartSize:
			return httpErr(http.StatusBadRequest, "part %d is %d bytes: every part but the last must be exactly %d bytes", p.Number, p.Size, u.PartSize)
		}
		size += p.Size
		list[i] = Part{Number: p.Number, ETag: p.ETag}
	}
	switch {
	case want.Parts != 0 && want.Parts != len(parts):
		return httpErr(http.StatusBadRequest, "%d parts sent, %d received (%s)", want.Parts, len(parts), partNumbers(parts))
	case want.Size != 0 && want.Size != size:
		return httpErr(http.StatusBadRequest, "%d bytes sent, %d received", want.Size, size)
	}
	var old *Object
	if o, err := s.cfg.Bucket.Head(ctx, prefixIndex+u.Name); err == nil {
		if !u.Overwrite {
			return httpErr(http.StatusConflict, "bundle %s was created meanwhile; upload again with ?overwrite=1 to replace it", u.Name)
		}
		old = o
	} else if !errors.Is(err, ErrNotExist) {
		return err
	}

	stored, err := s.cfg.Bucket.CompleteMultipart(ctx, u.DataKey, u.Multipart, list)
	if err != nil {
		if errors.Is(err, ErrNoUpload) {
			return httpErr(http.StatusNotFound, "upload %s of %s is gone (aborted or abandoned): start again", u.ID, u.Name)
		}
		return fmt.Errorf("assembling %s: %w", u.Name, err)
	}
	// From here the parts are one object: whatever fails removes it with the record.
	defer s.removeUpload(u, true)
	if stored.Size != size {
		s.cleanup(u.DataKey)
		return fmt.Errorf("assembling %s: %d bytes stored of %d", u.Name, stored.Size, size)
	}
	sum, err := s.uploadSHA256(ctx, u, parts)
	if err != nil {
		s.cleanup(u.DataKey)
		return fmt.Errorf("hashing %s: %w", u.Name, err)
	}
	if want.SHA256 != "" && !strings.EqualFold(want.SHA256, sum) {
		s.cleanup(u.DataKey)
		return httpErr(http.StatusBadRequest, "the assembled %s has SHA-256 %s, the client sent %s: upload it again", u.Name, sum, clip(want.SHA256))
	}
	e := &bundleEntry{
		BundleInfo: BundleInfo{Name: u.Name, Size: size, Uploader: u.Uploader, Uploaded: s.cfg.Now().UTC(), SHA256: sum},
		DataKey:    u.DataKey,
		CDXKey:     u.cdxKey(),
	}
	return s.publish(w, r, e, old)
}

func partNumbers(parts []partRecord) string {
	var runs []string
	for i := 0; i < len(parts); {
		j := i
		for j+1 < len(parts) && parts[j+1].Number == parts[j].Number+1 {
			j++
		}
		if j == i {
			runs = append(runs, strconv.Itoa(parts[i].Number))
		} else {
			runs = append(runs, fmt.Sprintf("%d-%d", parts[i].Number, parts[j].Number))
		}
		i = j + 1
	}
	if len(runs) == 0 {
		return "none"
	}
	return strings.Join(runs, ",")
}

// uploadSHA256 is the SHA-256 of the assembled upload: from the state the parts
// chained while they arrived, reading back only what follows the first part whose
// chain is broken (a part sent out of order, or again with other bytes).
func (s *Server) uploadSHA256(ctx context.Context, u *uploadRecord, parts []partRecord) (string, error) {
	h := sha256.New()
	var offset int64
	state := ""
	for _, p := range parts {
		if p.state == "" || p.prev != state {
			break
		}
		state = p.state
		offset += p.Size
	}
	if state != "" {
		if err := restoreHash(h, state); err != nil {
			return "", err
		}
	}
	var total int64
	for _, p := range parts {
		total += p.Size
	}
	if offset < total {
		_, rc, err := s.cfg.Bucket.Get(ctx, u.DataKey, &Range{offset, total - offset})
		if err != nil {
			return "", err
		}
		defer rc.Close()
		if _, err := io.Copy(h, rc); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// removeUpload removes an upload's record and part records, and aborts its
// multipart upload; with completed set, the upload's object is kept (it is listed,
// or publish removed it already).
func (s *Server) removeUpload(u *uploadRecord, completed bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if u.Multipart != "" && !completed {
		s.abortQuietly(u)
	}
	parts, err := s.listParts(ctx, u)
	if err != nil {
		s.cfg.Logf("teamarchive: listing the parts of %s: %v", u.key(), err)
	}
	keys := []string{u.key()}
	for _, p := range parts {
		keys = append(keys, partKey(u, p.Number))
	}
	for len(keys) > 0 {
		n := min(len(keys), maxListLimit)
		s.cleanup(keys[:n]...)
		keys = keys[n:]
	}
}

// sweep removes up to limit uploads older than Config.UploadTTL: their multipart
// upload, their records, and their data unless it is the listed bundle's (the
// Worker stopped after listing it, before removing its record).
func (s *Server) sweep(ctx context.Context, limit int) (int, error) {
	deadline := s.cfg.Now().Add(-s.cfg.UploadTTL)
	removed := 0
	cursor := ""
	for removed < limit {
		page, err := s.cfg.Bucket.List(ctx, prefixUploads, cursor, maxListLimit)
		if err != nil {
			return removed, err
		}
		for i := range page.Objects {
			u := recordFromObject(&page.Objects[i])
			if removed == limit || !u.Created.Before(deadline) {
				continue
			}
			listed := false
			if o, err := s.cfg.Bucket.Head(ctx, prefixIndex+u.Name); err == nil {
				listed = o.Meta["data"] == u.DataKey
			}
			if listed {
				// Listed, then stopped: what it replaced may be left.
				if err := s.sweepReplaced(ctx, u); err != nil {
					return removed, err
				}
			} else if err := s.unindex(ctx, u.Name, u.cdxKey()); err != nil {
				return removed, err
			}
			s.removeUpload(u, false)
			if !listed {
				s.cleanup(u.DataKey, u.cdxKey())
			}
			s.cfg.Logf("teamarchive: removed the upload %s of %s by %s, abandoned since %s", u.ID, u.Name, u.Uploader, u.Created.Format(time.RFC3339))
			removed++
		}
		if !page.Truncated {
			break
		}
		cursor = page.Cursor
	}
	return removed, nil
}

// listUploads lists the uploads in progress (single PUTs too), oldest first.
func (s *Server) listUploads(w http.ResponseWriter, r *http.Request) error {
	page, err := s.cfg.Bucket.List(r.Context(), prefixUploads, r.URL.Query().Get("cursor"), maxListLimit)
	if err != nil {
		return err
	}
	out := struct {
		Uploads   []*uploadRecord `json:"uploads"`
		Cursor    string          `json:"cursor,omitempty"`
		Truncated bool            `json:"truncated"`
	}{Uploads: []*uploadRecord{}, Truncated: page.Truncated}
	if page.Truncated {
		out.Cursor = page.Cursor
	}
	for i := range page.Objects {
		out.Uploads = append(out.Uploads, recordFromObject(&page.Objects[i]))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// sweepReplaced removes what a listed upload replaced, when its Worker stopped
// before doing so: every other stored index of the bundle whose upload has no
// record (is not under way), out of the merged index, then with its data.
func (s *Server) sweepReplaced(ctx context.Context, u *uploadRecord) error {
	page, err := s.cfg.Bucket.List(ctx, prefixCDX+u.Name+"/", "", maxListLimit)
	if err != nil {
		return err
	}
	for _, o := range page.Objects {
		id := uploadOf(o.Key)
		if o.Key == u.cdxKey() {
			continue
		}
		if _, err := s.cfg.Bucket.Head(ctx, prefixUploads+u.Name+"/"+id); err == nil {
			continue // another upload under way
		}
		if err := s.unindex(ctx, u.Name, o.Key); err != nil {
			return err
		}
		s.cleanup(o.Key, prefixData+u.Name+"/"+id)
	}
	return nil
}
