package teamarchive

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/webkeep/webkeep/shared/cdx"
)

// Errors of uploads, usable with errors.Is.
var (
	// ErrFormat is returned for an upload that is neither a zip bundle nor a WARC.
	ErrFormat = errors.New("teamarchive: not a bundle (zip) or a WARC file")
	// ErrBundle is returned for a zip that holds no WARC and no CDXJ index, or an
	// index that cannot be read.
	ErrBundle = errors.New("teamarchive: unusable bundle")
)

// Kinds of upload.
const (
	KindBundle = "bundle" // a zip holding a WARC and its CDXJ index (shared/capture's bundle)
	KindWARC   = "warc"   // a WARC file, plain or gzip
)

// Key prefixes of the storage layout (see the package documentation).
const (
	prefixData  = "data/"
	prefixCDX   = "cdx/"
	prefixIndex = "index/"
	prefixURLDB = "urldb/"
)

// Limits of indexing.
const (
	maxIndexSize   = 256 << 20 // uncompressed CDXJ of one bundle
	keyHintLength  = 256       // bytes of the first and last index lines kept in the listing
	maxListLimit   = 1000      // R2's own maximum
	defaultListLen = 100
)

// BundleInfo is what the listing tells about a bundle.
type BundleInfo struct {
	Name     string    `json:"name"`
	Kind     string    `json:"kind"`
	Size     int64     `json:"size"`
	Records  int       `json:"records"` // CDXJ lines
	Uploader string    `json:"uploader"`
	Uploaded time.Time `json:"uploaded"`
	SHA256   string    `json:"sha256"`
}

// A bundleEntry is the listing entry's full record: the facts, where the bytes and
// the index are, and the files of the bundle.
type bundleEntry struct {
	BundleInfo
	DataKey string      `json:"data"`
	CDXKey  string      `json:"cdx"`
	First   string      `json:"first"` // first index line, cut at keyHintLength bytes
	Last    string      `json:"last"`  // last index line, likewise
	LastCut bool        `json:"lastCut"`
	Files   []zipMember `json:"files"`
}

// A zipMember locates one file of a bundle inside the stored object.
type zipMember struct {
	Name           string `json:"name"`
	Method         uint16 `json:"method"`
	Offset         int64  `json:"offset"` // of the file's data in the object
	CompressedSize int64  `json:"csize"`
	Size           int64  `json:"size"`
}

// meta is the listing entry's custom metadata: what a listing shows and what a CDX
// query needs, without reading the entry's body.
func (e *bundleEntry) meta() map[string]string {
	return map[string]string{
		"kind":     e.Kind,
		"size":     strconv.FormatInt(e.Size, 10),
		"records":  strconv.Itoa(e.Records),
		"uploader": e.Uploader,
		"uploaded": e.Uploaded.UTC().Format(time.RFC3339Nano),
		"sha256":   e.SHA256,
		"data":     e.DataKey,
		"cdx":      e.CDXKey,
		"first":    e.First,
		"last":     e.Last,
		"lastcut":  strconv.FormatBool(e.LastCut),
	}
}

func entryFromMeta(key string, m map[string]string) *bundleEntry {
	e := &bundleEntry{BundleInfo: BundleInfo{
		Name: strings.TrimPrefix(key, prefixIndex), Kind: m["kind"], Uploader: m["uploader"], SHA256: m["sha256"],
	}, DataKey: m["data"], CDXKey: m["cdx"], First: m["first"], Last: m["last"], LastCut: m["lastcut"] == "true"}
	e.Size, _ = strconv.ParseInt(m["size"], 10, 64)
	e.Records, _ = strconv.Atoi(m["records"])
	e.Uploaded, _ = time.Parse(time.RFC3339Nano, m["uploaded"])
	return e
}

// putBundle stores an upload: data first, then its index, then the listing entry,
// conditionally; whatever fails removes what this upload wrote.
func (s *Server) putBundle(w http.ResponseWriter, r *http.Request, name, uploader string) error {
	ctx := r.Context()
	// Without Content-Length (a chunked upload: miniflare sends them) the size is
	// learnt by reading, and the limit enforced while reading.
	size := r.ContentLength
	switch {
	case size == 0:
		return httpErr(http.StatusBadRequest, "empty upload")
	case size > s.cfg.MaxBundleSize:
		return httpErr(http.StatusRequestEntityTooLarge, "upload of %d bytes exceeds the limit of %d bytes", size, s.cfg.MaxBundleSize)
	}
	overwrite := r.URL.Query().Get("overwrite")
	replace := overwrite == "1" || overwrite == "true"
	indexKey := prefixIndex + name
	old, err := s.cfg.Bucket.Head(ctx, indexKey)
	switch {
	case errors.Is(err, ErrNotExist):
		old = nil
	case err != nil:
		return err
	case !replace:
		return httpErr(http.StatusConflict, "bundle %s exists; add ?overwrite=1 to replace it", name)
	}

	now := s.cfg.Now().UTC()
	upload := newUploadID(now)
	e := &bundleEntry{
		BundleInfo: BundleInfo{Name: name, Size: size, Uploader: uploader, Uploaded: now},
		DataKey:    prefixData + name + "/" + upload,
		CDXKey:     prefixCDX + name + "/" + upload,
	}
	// The upload's record first: a Worker stopped before the end leaves it, and the
	// sweep of abandoned uploads (see uploads.go) removes what it names.
	rec := &uploadRecord{Name: name, ID: upload, Uploader: uploader, Created: now, DataKey: e.DataKey, Overwrite: replace}
	if err := s.putRecord(ctx, rec); err != nil {
		return err
	}
	defer s.cleanup(rec.key())
	body := &uploadReader{r: r.Body, declared: size, max: s.cfg.MaxBundleSize, h: sha256.New()}
	stored, err := s.cfg.Bucket.Put(ctx, e.DataKey, body, size, PutOptions{})
	if err == nil && body.n == 0 {
		err = httpErr(http.StatusBadRequest, "empty upload")
	}
	if err != nil {
		s.cleanup(e.DataKey)
		switch {
		case errors.Is(body.err, errTooLarge):
			return httpErr(http.StatusRequestEntityTooLarge, "upload exceeds the limit of %d bytes", s.cfg.MaxBundleSize)
		case body.err != nil || errors.Is(err, ErrShortBody):
			return httpErr(http.StatusBadRequest, "upload interrupted after %d bytes: %v", body.n, err)
		}
		return fmt.Errorf("storing %s: %w", name, err)
	}
	e.Size = body.n
	if stored.Size != body.n {
		s.cleanup(e.DataKey)
		return fmt.Errorf("storing %s: stored %d bytes of %d", name, stored.Size, body.n)
	}
	e.SHA256 = hex.EncodeToString(body.h.Sum(nil))
	return s.publish(w, r, e, old)
}

// publish indexes a stored upload and lists it, with the condition that old (the
// entry it replaces, nil for none) is still the listed one; whatever fails removes
// what the upload wrote.
func (s *Server) publish(w http.ResponseWriter, r *http.Request, e *bundleEntry, old *Object) error {
	ctx := r.Context()
	name := e.Name
	indexKey := prefixIndex + name
	index, err := s.indexUpload(ctx, e)
	if err != nil {
		s.cleanup(e.DataKey)
		var ae *apiError
		if errors.Is(err, ErrFormat) {
			return &apiError{status: http.StatusUnsupportedMediaType, err: err}
		} else if !errors.As(err, &ae) && !errors.Is(err, context.Canceled) {
			return &apiError{status: http.StatusUnprocessableEntity, err: err}
		}
		return err
	}
	if _, err := s.cfg.Bucket.Put(ctx, e.CDXKey, bytes.NewReader(index), int64(len(index)), PutOptions{ContentType: "text/plain"}); err != nil {
		s.cleanup(e.DataKey, e.CDXKey)
		return fmt.Errorf("storing the index of %s: %w", name, err)
	}
	// Into the merged index before it is listed: a listed bundle is always
	// queryable. If the listing fails, its lines are taken out again.
	if err := s.indexLines(ctx, name, e.DataKey, index); err != nil {
		s.unindexQuietly(name, e.CDXKey)
		s.cleanup(e.DataKey, e.CDXKey)
		return err
	}

	// Its text too: a failure there loses only the text (said in the answer).
	text := s.indexText(ctx, e, index)

	cond := PutOptions{IfNoneMatch: true, ContentType: "application/json", Meta: e.meta()}
	var oldEntry *bundleEntry
	if old != nil {
		cond = PutOptions{IfMatch: old.ETag, ContentType: "application/json", Meta: e.meta()}
		oldEntry = entryFromMeta(indexKey, old.Meta)
	}
	doc, _ := json.Marshal(e)
	if _, err := s.cfg.Bucket.Put(ctx, indexKey, bytes.NewReader(doc), int64(len(doc)), cond); err != nil {
		s.unindexQuietly(name, e.CDXKey)
		s.cleanup(e.DataKey, e.CDXKey)
		if errors.Is(err, ErrPrecondition) {
			return httpErr(http.StatusConflict, "bundle %s was created or replaced by another upload meanwhile", name)
		}
		return fmt.Errorf("listing %s: %w", name, err)
	}
	status := http.StatusCreated
	if oldEntry != nil {
		status = http.StatusOK
		// Its lines out of the merged index before its data goes: a line found
		// always has its record. A failure here leaves them (and the data they
		// point to) for the sweep of this upload's record.
		if err := s.unindex(ctx, name, oldEntry.CDXKey); err != nil {
			s.cfg.Logf("teamarchive: replacing %s: %v", name, err)
		} else {
			s.cleanup(oldEntry.DataKey, oldEntry.CDXKey)
		}
	}
	// Listed: into the notary log. A failure there loses nothing (the bundle
	// stays listed) and is said in the answer (see notary.go).
	answer := struct {
		BundleInfo
		Search searchAnswer `json:"search"`
		Notary any          `json:"notary"`
	}{e.BundleInfo, text, s.notarize(ctx, e)}
	w.Header().Set("Location", "/api/bundles/"+name)
	writeJSON(w, status, answer)
	return nil
}

// cleanup removes what a failed or superseded upload wrote. It must run even when the
// request's context is done (an interrupted upload), hence its own context.
func (s *Server) cleanup(keys ...string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.cfg.Bucket.Delete(ctx, keys...); err != nil {
		s.cfg.Logf("teamarchive: cleanup of %v: %v", keys, err)
	}
}

// newUploadID is sortable by time and unique: the time and 64 random bits.
func newUploadID(t time.Time) string {
	var b [8]byte
	rand.Read(b[:])
	return t.Format("20060102T150405.000000000Z") + "-" + hex.EncodeToString(b[:])
}

// errTooLarge ends an upload that outgrows Config.MaxBundleSize.
var errTooLarge = errors.New("upload too large")

// uploadReader counts and hashes an upload: exactly declared bytes when the size
// is declared (an early EOF is ErrShortBody, more is an error), at most max when not.
type uploadReader struct {
	r        io.Reader
	declared int64 // -1: unknown
	max      int64
	n        int64
	h        hash.Hash // nil: no hash
	err      error
}

func (u *uploadReader) Read(p []byte) (int, error) {
	if u.err != nil {
		return 0, u.err
	}
	limit := u.max + 1 - u.n
	if u.declared >= 0 {
		limit = u.declared - u.n
	}
	if limit == 0 && u.declared >= 0 {
		var one [1]byte
		if n, _ := u.r.Read(one[:]); n > 0 {
			u.err = errors.New("body longer than its Content-Length")
			return 0, u.err
		}
		return 0, io.EOF
	}
	n, err := u.r.Read(p[:min(int64(len(p)), limit)])
	u.n += int64(n)
	if u.h != nil {
		u.h.Write(p[:n])
	}
	switch {
	case u.n > u.max:
		u.err = fmt.Errorf("%w: more than %d bytes", errTooLarge, u.max)
		return n, u.err
	case err == io.EOF && u.declared >= 0 && u.n < u.declared:
		u.err = fmt.Errorf("%w (%d of %d bytes)", ErrShortBody, u.n, u.declared)
		return n, u.err
	case err != nil && err != io.EOF:
		u.err = err
	}
	return n, err
}

// indexUpload reads the stored upload back and returns its sorted CDXJ index,
// filling in e's kind, records, files and key hints. A bundle's own .cdxj is used as
// it is (checked, sorted if it was not); a bundle without one, or a WARC, is indexed
// with shared/cdx as pywb would.
func (s *Server) indexUpload(ctx context.Context, e *bundleEntry) ([]byte, error) {
	ra := &bucketReaderAt{ctx: ctx, b: s.cfg.Bucket, key: e.DataKey, size: e.Size}
	var magic [5]byte
	n, _ := ra.ReadAt(magic[:], 0)
	var index []byte
	var err error
	switch m := magic[:n]; {
	case bytes.HasPrefix(m, []byte("PK\x03\x04")):
		e.Kind = KindBundle
		index, err = s.indexBundle(ctx, ra, e)
	case bytes.HasPrefix(m, []byte{0x1f, 0x8b}), bytes.EqualFold(m, []byte("warc/")):
		e.Kind = KindWARC
		e.Files = []zipMember{{Name: e.Name, Method: zip.Store, CompressedSize: e.Size, Size: e.Size}}
		index, err = s.indexWARC(ctx, e.DataKey, Range{0, -1}, e.Name)
	default:
		return nil, fmt.Errorf("%w: %s starts with %q", ErrFormat, e.Name, m)
	}
	if err != nil {
		return nil, err
	}
	lines := 0
	for line := range bytes.Lines(index) {
		if lines == 0 {
			e.First, _ = cutHint(line)
		}
		e.Last, e.LastCut = cutHint(line)
		lines++
	}
	e.Records = lines
	return index, nil
}

func cutHint(line []byte) (string, bool) {
	line = bytes.TrimRight(line, "\r\n")
	if len(line) > keyHintLength {
		return string(line[:keyHintLength]), true
	}
	return string(line), false
}

func (s *Server) indexBundle(ctx context.Context, ra *bucketReaderAt, e *bundleEntry) ([]byte, error) {
	zr, err := zip.NewReader(ra, e.Size)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrBundle, e.Name, err)
	}
	var indexes, warcs []int // positions in e.Files
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, "/") {
			continue
		}
		off, err := f.DataOffset()
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %s: %v", ErrBundle, e.Name, f.Name, err)
		}
		if f.Method != zip.Store && f.Method != zip.Deflate {
			return nil, fmt.Errorf("%w: %s: %s: compression method %d (want stored or deflated)", ErrBundle, e.Name, f.Name, f.Method)
		}
		e.Files = append(e.Files, zipMember{Name: f.Name, Method: f.Method, Offset: off, CompressedSize: int64(f.CompressedSize64), Size: int64(f.UncompressedSize64)})
		switch base := path.Base(f.Name); {
		case strings.HasSuffix(base, ".cdxj"):
			indexes = append(indexes, len(e.Files)-1)
		case strings.HasSuffix(base, ".warc.gz"), strings.HasSuffix(base, ".warc"):
			warcs = append(warcs, len(e.Files)-1)
		}
	}
	switch {
	case len(indexes) > 0:
		var all []byte
		for _, i := range indexes {
			m := &e.Files[i]
			if m.Size > maxIndexSize-int64(len(all)) {
				return nil, fmt.Errorf("%w: %s: %s: index larger than %d bytes", ErrBundle, e.Name, m.Name, maxIndexSize)
			}
			rc, err := s.openMember(ctx, e.DataKey, m, Range{0, -1})
			if err != nil {
				return nil, err
			}
			b, err := io.ReadAll(io.LimitReader(rc, maxIndexSize+1))
			rc.Close()
			if err != nil {
				return nil, fmt.Errorf("%w: %s: %s: %v", ErrBundle, e.Name, m.Name, err)
			}
			if err := checkCDXJ(b); err != nil {
				return nil, fmt.Errorf("%w: %s: %s: %v", ErrBundle, e.Name, m.Name, err)
			}
			all = append(all, b...)
			if len(all) > 0 && all[len(all)-1] != '\n' {
				all = append(all, '\n')
			}
		}
		return sortLines(all), nil
	case len(warcs) > 0:
		var all []byte
		for _, i := range warcs {
			b, err := s.indexMember(ctx, e.DataKey, &e.Files[i])
			if err != nil {
				return nil, err
			}
			all = append(all, b...)
		}
		return sortLines(all), nil
	}
	return nil, fmt.Errorf("%w: %s holds no .cdxj index and no .warc/.warc.gz file", ErrBundle, e.Name)
}

// indexMember indexes a WARC inside a bundle; filename in its lines is the member's
// name, which GET /api/bundles/{name}/{file} serves.
func (s *Server) indexMember(ctx context.Context, key string, m *zipMember) ([]byte, error) {
	if m.Method == zip.Store {
		return s.indexWARC(ctx, key, Range{m.Offset, m.CompressedSize}, m.Name)
	}
	rc, err := s.openMember(ctx, key, m, Range{0, -1})
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return indexReader(rc, m.Name)
}

func (s *Server) indexWARC(ctx context.Context, key string, rg Range, filename string) ([]byte, error) {
	_, rc, err := s.cfg.Bucket.Get(ctx, key, &rg)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return indexReader(rc, filename)
}

func indexReader(r io.Reader, filename string) ([]byte, error) {
	var out bytes.Buffer
	cw := cdx.NewWriter(&out, cdx.Pywb267)
	// The archive keeps only what it can index: damage is a rejection, not a note.
	var damage error
	ix := &cdx.Indexer{Dialect: cdx.Pywb267, Problems: func(err error) {
		if damage == nil {
			damage = err
		}
	}}
	if err := ix.Index(r, filename, cw.Write); err != nil {
		return nil, fmt.Errorf("%w: indexing %s: %v", ErrBundle, filename, err)
	}
	if damage != nil {
		return nil, fmt.Errorf("%w: %s is damaged: %v", ErrBundle, filename, damage)
	}
	if cw.Len() == 0 {
		return nil, fmt.Errorf("%w: %s holds no record to index", ErrBundle, filename)
	}
	if err := cw.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// openMember reads a bundle member's uncompressed bytes, the range rg of them when
// the member is stored (a deflated member is always read whole).
func (s *Server) openMember(ctx context.Context, key string, m *zipMember, rg Range) (io.ReadCloser, error) {
	if m.Method == zip.Store {
		n := m.CompressedSize - rg.Offset
		if rg.Length >= 0 {
			n = min(n, rg.Length)
		}
		_, rc, err := s.cfg.Bucket.Get(ctx, key, &Range{m.Offset + rg.Offset, n})
		return rc, err
	}
	_, rc, err := s.cfg.Bucket.Get(ctx, key, &Range{m.Offset, m.CompressedSize})
	if err != nil {
		return nil, err
	}
	return struct {
		io.Reader
		io.Closer
	}{io.LimitReader(flate.NewReader(rc), m.Size), rc}, nil
}

// checkCDXJ checks every line of an uploaded index, so a query never meets garbage.
func checkCDXJ(b []byte) error {
	n := 0
	for line := range bytes.Lines(b) {
		n++
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			continue
		}
		if len(line) > cdx.MaxLineLength {
			return fmt.Errorf("line %d: longer than %d bytes", n, cdx.MaxLineLength)
		}
		if _, _, _, err := cdx.SplitLine(line); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
	}
	return nil
}

// sortLines sorts lines in byte order, as pywb's SortedCDXWriter does, and drops
// empty ones.
func sortLines(b []byte) []byte {
	var lines [][]byte
	for line := range bytes.Lines(b) {
		if line = bytes.TrimRight(line, "\r\n"); len(line) > 0 {
			lines = append(lines, line)
		}
	}
	if slices.IsSortedFunc(lines, bytes.Compare) && bytes.Count(b, []byte("\n")) == len(lines) && !bytes.Contains(b, []byte("\r")) {
		return b
	}
	slices.SortStableFunc(lines, bytes.Compare)
	out := make([]byte, 0, len(b))
	for _, l := range lines {
		out = append(append(out, l...), '\n')
	}
	return out
}

// noBundle is the answer to a request for a bundle the archive does not hold.
func noBundle(name string) error {
	return httpErr(http.StatusNotFound, "no bundle %s", name)
}

func (s *Server) lookup(ctx context.Context, name string) (*bundleEntry, *Object, error) {
	o, err := s.cfg.Bucket.Head(ctx, prefixIndex+name)
	if errors.Is(err, ErrNotExist) {
		return nil, nil, noBundle(name)
	}
	if err != nil {
		return nil, nil, err
	}
	return entryFromMeta(o.Key, o.Meta), o, nil
}

func (s *Server) listBundles(w http.ResponseWriter, r *http.Request) error {
	limit := defaultListLen
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return httpErr(http.StatusBadRequest, "limit=%q: want a positive integer", clip(v))
		}
		limit = min(n, maxListLimit)
	}
	page, err := s.cfg.Bucket.List(r.Context(), prefixIndex, r.URL.Query().Get("cursor"), limit)
	if err != nil {
		return err
	}
	out := struct {
		Bundles   []BundleInfo `json:"bundles"`
		Cursor    string       `json:"cursor,omitempty"`
		Truncated bool         `json:"truncated"`
	}{Bundles: []BundleInfo{}, Truncated: page.Truncated}
	if page.Truncated {
		out.Cursor = page.Cursor
	}
	for _, o := range page.Objects {
		out.Bundles = append(out.Bundles, entryFromMeta(o.Key, o.Meta).BundleInfo)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) getBundle(w http.ResponseWriter, r *http.Request, name string) error {
	e, _, err := s.lookup(r.Context(), name)
	if err != nil {
		return err
	}
	ctype := "application/zip"
	if e.Kind == KindWARC {
		ctype = "application/warc"
	}
	return s.serveRange(w, r, e.DataKey, 0, e.Size, ctype, name, e.SHA256)
}

// getBundleIndex serves a bundle's CDXJ index as the merged index took it in: its
// lines sorted, each naming the member that holds its record (filename). A replay
// reads it to answer the resources of a page from the bundle that holds the page,
// without a query of the merged index for each.
func (s *Server) getBundleIndex(w http.ResponseWriter, r *http.Request, name string) error {
	e, _, err := s.lookup(r.Context(), name)
	if err != nil {
		return err
	}
	o, rc, err := s.cfg.Bucket.Get(r.Context(), e.CDXKey, nil)
	if err != nil {
		return fmt.Errorf("the index of %s: %w", name, err)
	}
	defer rc.Close()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Content-Length", strconv.FormatInt(o.Size, 10))
	if r.Method == http.MethodHead {
		return nil
	}
	_, err = io.Copy(w, rc)
	return err
}

// getBundleFile serves one member of a bundle: the WARC a CDXJ line's filename
// names (for a WARC upload, its own name). Stored members support Range, so a line's
// offset and length fetch exactly its record.
func (s *Server) getBundleFile(w http.ResponseWriter, r *http.Request, name, file string) error {
	ctx := r.Context()
	// The entry is read at once, not looked up first: a replay's record reads wait on
	// each trip to the bucket.
	_, rc, err := s.cfg.Bucket.Get(ctx, prefixIndex+name, nil)
	if errors.Is(err, ErrNotExist) {
		return noBundle(name)
	}
	if err != nil {
		return err
	}
	var e bundleEntry
	err = json.NewDecoder(io.LimitReader(rc, 16<<20)).Decode(&e)
	rc.Close()
	if err != nil {
		return fmt.Errorf("reading the entry of %s: %w", name, err)
	}
	i := slices.IndexFunc(e.Files, func(m zipMember) bool { return m.Name == file })
	if i < 0 {
		return httpErr(http.StatusNotFound, "bundle %s has no file %s", name, file)
	}
	m := &e.Files[i]
	ctype := "application/octet-stream"
	if strings.HasSuffix(file, ".warc.gz") || strings.HasSuffix(file, ".warc") {
		ctype = "application/warc"
	}
	if m.Method == zip.Store {
		return s.serveRange(w, r, e.DataKey, m.Offset, m.Size, ctype, file, e.SHA256+"-"+strconv.Itoa(i))
	}
	rc, err = s.openMember(ctx, e.DataKey, m, Range{0, -1})
	if err != nil {
		return err
	}
	defer rc.Close()
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Content-Length", strconv.FormatInt(m.Size, 10))
	if r.Method == http.MethodHead {
		return nil
	}
	_, err = io.Copy(w, rc)
	return err
}

// serveRange serves size bytes of key from base on, honouring a Range of one range
// or several (serveParts).
func (s *Server) serveRange(w http.ResponseWriter, r *http.Request, key string, base, size int64, ctype, filename, etag string) error {
	h := w.Header()
	h.Set("Accept-Ranges", "bytes")
	h.Set("ETag", `"`+etag+`"`)
	// The Worker's request comes with a field's values split at each comma
	// (github.com/syumai/workers' headers): several ranges are joined again.
	rangeField := strings.Join(r.Header.Values("Range"), ",")
	rgs, err := parseRanges(rangeField, size)
	if err != nil {
		h.Set("Content-Range", fmt.Sprintf("bytes */%d", size))
		return &apiError{status: http.StatusRequestedRangeNotSatisfiable, err: fmt.Errorf("range %q outside %d bytes", clip(rangeField), size)}
	}
	if ir := r.Header.Get("If-Range"); rgs != nil && ir != "" && ir != h.Get("ETag") {
		rgs = nil
	}
	h.Set("Content-Disposition", `attachment; filename="`+filename+`"`)
	if len(rgs) > 1 {
		return s.serveParts(w, r, key, base, size, ctype, filename, rgs)
	}
	status := http.StatusOK
	rg := Range{0, size}
	if rgs != nil {
		status = http.StatusPartialContent
		rg = rgs[0]
		h.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", rg.Offset, rg.Offset+rg.Length-1, size))
	}
	h.Set("Content-Type", ctype)
	h.Set("Content-Length", strconv.FormatInt(rg.Length, 10))
	if r.Method == http.MethodHead {
		w.WriteHeader(status)
		return nil
	}
	rc, err := s.openRange(r.Context(), key, base, rg, filename)
	if err != nil {
		return err
	}
	defer rc.Close()
	w.WriteHeader(status)
	_, err = io.Copy(w, rc)
	return err
}

// serveParts answers a Range of several ranges with 206 and each range a part of a
// multipart/byteranges body (RFC 9110 section 14.6), read from the bucket one after
// the other.
func (s *Server) serveParts(w http.ResponseWriter, r *http.Request, key string, base, size int64, ctype, filename string, rgs []Range) error {
	mw := multipart.NewWriter(w)
	w.Header().Set("Content-Type", "multipart/byteranges; boundary="+mw.Boundary())
	if r.Method == http.MethodHead {
		w.WriteHeader(http.StatusPartialContent)
		return nil
	}
	for i, rg := range rgs {
		// The first range is opened before the answer begins: an object gone
		// meanwhile is an error the client reads, not a cut answer.
		rc, err := s.openRange(r.Context(), key, base, rg, filename)
		if err != nil {
			return err
		}
		if i == 0 {
			w.WriteHeader(http.StatusPartialContent)
		}
		part, err := mw.CreatePart(textproto.MIMEHeader{
			"Content-Type":  {ctype},
			"Content-Range": {fmt.Sprintf("bytes %d-%d/%d", rg.Offset, rg.Offset+rg.Length-1, size)},
		})
		if err == nil {
			_, err = io.Copy(part, rc)
		}
		rc.Close()
		if err != nil {
			return err
		}
	}
	return mw.Close()
}

// openRange opens rg of the size bytes of key from base on.
func (s *Server) openRange(ctx context.Context, key string, base int64, rg Range, filename string) (io.ReadCloser, error) {
	_, rc, err := s.cfg.Bucket.Get(ctx, key, &Range{base + rg.Offset, rg.Length})
	if errors.Is(err, ErrNotExist) {
		return nil, httpErr(http.StatusConflict, "%s was replaced or deleted meanwhile; try again", filename)
	}
	return rc, err
}

func (s *Server) deleteBundle(w http.ResponseWriter, r *http.Request, name string) error {
	e, _, err := s.lookup(r.Context(), name)
	if err != nil {
		return err
	}
	// Out of the merged index first, then unlisted: a reader never finds a line
	// or an entry whose data is gone. A failure between leaves the bundle listed:
	// deleting it again completes.
	if err := s.unindex(r.Context(), name, e.CDXKey); err != nil {
		return err
	}
	if err := s.cfg.Bucket.Delete(r.Context(), prefixIndex+name); err != nil {
		return err
	}
	s.cleanup(e.DataKey, e.CDXKey)
	w.WriteHeader(http.StatusNoContent)
	return nil
}
