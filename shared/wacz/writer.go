package wacz

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"path"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/webkeep/webkeep/shared/cdx"
)

// A Writer writes a WACZ file to an io.Writer. Add the WARC files, the index and
// the pages in any order, then Close, which writes the manifest. The first error
// sticks: every later call returns it.
type Writer struct {
	zw      *zip.Writer
	opts    Options
	created time.Time

	resources []resource
	paths     map[string]bool // paths written so far
	indexRefs map[string]int  // WARC names the index refers to -> first line
	hasIndex  bool
	hasPages  bool
	mainURL   string
	mainDate  string

	err    error
	closed bool
}

// NewWriter returns a Writer that writes a WACZ to w. Close does not close w.
func NewWriter(w io.Writer, opts Options) *Writer {
	created := opts.Created
	if created.IsZero() {
		created = time.Now()
	}
	if opts.Software == "" {
		opts.Software = "webkeep"
	}
	if opts.BlockLines <= 0 {
		opts.BlockLines = DefaultBlockLines
	}
	return &Writer{
		zw:        zip.NewWriter(w),
		opts:      opts,
		created:   created.UTC(),
		paths:     map[string]bool{},
		indexRefs: map[string]int{},
	}
}

// AddWARC copies the WARC/1.0 or WARC/1.1 file r into archive/name, stored as it
// is so that the offsets of its index stay valid. name must be a plain file name
// of letters, digits, '-', '_' and '.', ending in .warc.gz for gzip data and in
// .warc otherwise. The data is checked to begin with a WARC/1.x record.
func (w *Writer) AddWARC(name string, r io.Reader) error {
	if err := w.usable(); err != nil {
		return err
	}
	if err := checkName(name); err != nil {
		return err
	}
	p := ArchiveDir + name
	if w.paths[p] {
		return fmt.Errorf("%w: %s", ErrDuplicate, p)
	}
	br := bufio.NewReaderSize(r, peekSize)
	head, err := br.Peek(peekSize)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return fmt.Errorf("wacz: %s: %w", p, err)
	}
	if err := checkWARC(name, head, len(head) < peekSize); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrWARC, p, err)
	}
	e, err := w.create(p, zip.Store)
	if err != nil {
		return err
	}
	if _, err := br.WriteTo(e); err != nil {
		return w.fail(fmt.Errorf("wacz: %s: at byte %d: %w", p, e.n, err))
	}
	w.finish(e)
	return nil
}

// peekSize is how much of a WARC file is read ahead to check its first record.
const peekSize = 64 << 10

// checkName reports whether name can be the name of a WARC file under archive/.
// The characters allowed are those a datapackage resource name and a URL path
// take without escaping.
func checkName(name string) error {
	ok := strings.HasSuffix(name, ".warc.gz") || strings.HasSuffix(name, ".warc")
	for i := 0; ok && i < len(name); i++ {
		c := name[i]
		ok = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.'
	}
	if !ok || strings.HasPrefix(name, ".") {
		return fmt.Errorf("%w: %q", ErrName, name)
	}
	return nil
}

// checkWARC checks that head, the beginning of a file named name (all of it when
// whole is true), is a WARC/1.x file, gzip-compressed exactly when name ends in
// .gz.
func checkWARC(name string, head []byte, whole bool) error {
	gz := len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b
	if gz != strings.HasSuffix(name, ".gz") {
		if gz {
			return errors.New("gzip data in a file not named .warc.gz")
		}
		return errors.New("a file named .warc.gz that is not gzip data")
	}
	first := head
	if gz {
		zr, err := gzip.NewReader(bytes.NewReader(head))
		if err != nil {
			return fmt.Errorf("first gzip member: %v", err)
		}
		zr.Multistream(false)
		var b [10]byte
		n, err := io.ReadFull(zr, b[:])
		if err != nil && err != io.EOF && !errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("first gzip member: %v", err)
		}
		if n < len(b) && !whole {
			return nil // the first record's header lies beyond the look-ahead
		}
		first = b[:n]
	}
	switch {
	case bytes.HasPrefix(first, []byte("WARC/1.0\r\n")), bytes.HasPrefix(first, []byte("WARC/1.1\r\n")):
		return nil
	case len(first) == 0:
		return errors.New("empty file")
	case bytes.HasPrefix(bytes.ToUpper(first), []byte("WARC/0.9")):
		return errors.New("WARC 0.9, which replay tools do not read (convert it to WARC/1.1)")
	}
	if len(first) > 10 {
		first = first[:10]
	}
	return fmt.Errorf("begins with %q", first)
}

// AddIndex writes the sorted CDXJ index cdxj ("urlkey timestamp {json}" lines,
// in byte order, each with the "filename" of a WARC file of this WACZ) as
// indexes/index.cdx.gz, gzip blocks of Options.BlockLines lines, and
// indexes/index.idx, which gives each block's first key, offset, length and
// SHA-256. A WACZ has one index. An index that is malformed or not sorted is
// refused with ErrIndex before anything is written.
func (w *Writer) AddIndex(cdxj []byte) error {
	if err := w.usable(); err != nil {
		return err
	}
	if w.hasIndex {
		return fmt.Errorf("%w: %s", ErrDuplicate, IndexPath)
	}
	refs := map[string]int{}
	var prev []byte
	err := eachLine(cdxj, func(n int, line []byte) error {
		file, err := parseLine(line)
		if err != nil {
			return fmt.Errorf("%w: line %d: %v", ErrIndex, n, err)
		}
		if prev != nil && bytes.Compare(line, prev) < 0 {
			return fmt.Errorf("%w: line %d: not sorted (%.60q after %.60q)", ErrIndex, n, line, prev)
		}
		if _, ok := refs[file]; !ok {
			refs[file] = n
		}
		prev = line
		return nil
	})
	if err != nil {
		return err
	}
	w.hasIndex = true
	w.indexRefs = refs

	e, err := w.create(IndexPath, zip.Store)
	if err != nil {
		return err
	}
	block := &hashWriter{w: e, h: sha256.New()} // the current block
	start := int64(0)                           // and its offset
	zw := gzip.NewWriter(block)
	var idx bytes.Buffer
	fmt.Fprintf(&idx, "!meta 0 {\"format\": %q, \"filename\": %q}\n", indexFormat, path.Base(IndexPath))
	var prefix []byte
	lines := 0
	flush := func() error {
		if err := zw.Close(); err != nil {
			return err
		}
		fmt.Fprintf(&idx, "%s {\"offset\": %d, \"length\": %d, \"digest\": \"sha256:%x\"}\n",
			prefix, start, block.n-start, block.h.Sum(nil))
		start = block.n
		block.h.Reset()
		zw.Reset(block)
		lines = 0
		return nil
	}
	err = eachLine(cdxj, func(_ int, line []byte) error {
		if lines == 0 {
			prefix = append(prefix[:0], blockKey(line)...)
		}
		if _, err := zw.Write(line); err != nil {
			return err
		}
		if _, err := zw.Write(newline); err != nil {
			return err
		}
		if lines++; lines == w.opts.BlockLines {
			return flush()
		}
		return nil
	})
	if err == nil && lines > 0 {
		err = flush()
	}
	if err != nil {
		return w.fail(fmt.Errorf("wacz: %s: %w", IndexPath, err))
	}
	w.finish(e)
	return w.writeFile(IndexIDXPath, idx.Bytes())
}

var newline = []byte{'\n'}

// eachLine calls f with every non-empty line of text, numbered from 1, without
// its newline; a last line need not end in one.
func eachLine(text []byte, f func(n int, line []byte) error) error {
	for n := 1; len(text) > 0; n++ {
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		if len(line) == 0 {
			continue
		}
		if err := f(n, line); err != nil {
			return err
		}
	}
	return nil
}

// blockKey returns the "urlkey timestamp" of a CDXJ line that parseLine accepted:
// the key of its block in index.idx.
func blockKey(line []byte) []byte {
	key, ts, _, _ := cdx.SplitLine(line)
	return line[:len(key)+1+len(ts)]
}

// parseLine checks a CDXJ line and returns the filename in its JSON.
func parseLine(line []byte) (filename string, err error) {
	_, _, obj, err := cdx.SplitLine(line)
	if err != nil {
		return "", err
	}
	name, ok := filenameOf(obj)
	if !ok {
		var fields struct {
			Filename string `json:"filename"`
		}
		json.Unmarshal(obj, &fields)
		name = fields.Filename
	}
	if name == "" {
		return "", errors.New(`no "filename"`)
	}
	return name, nil
}

// filenameOf finds the value of "filename" in the flat JSON object of a valid
// CDXJ line without decoding the rest, which is most of the cost of AddIndex. It
// reports false when the value has escapes, for json.Unmarshal to decode.
func filenameOf(obj []byte) (string, bool) {
	i := bytes.LastIndex(obj, []byte(`"filename"`))
	if i < 0 {
		return "", true
	}
	rest := bytes.TrimLeft(obj[i+len(`"filename"`):], " \t\r\n")
	if len(rest) == 0 || rest[0] != ':' {
		return "", false // "filename" was a value, not a key
	}
	rest = bytes.TrimLeft(rest[1:], " \t\r\n")
	if len(rest) == 0 || rest[0] != '"' {
		return "", false
	}
	end := bytes.IndexByte(rest[1:], '"')
	if end < 0 || bytes.IndexByte(rest[1:1+end], '\\') >= 0 {
		return "", false
	}
	return string(rest[1 : 1+end]), true
}

// AddPages writes pages/pages.jsonl: the header line
// {"format":"json-pages-1.0","id":"pages","title":"All Pages"} ("hasText":true
// when a page has text), then one line per page. The first page becomes the main
// page of the collection. A WACZ without pages gets a list with the header only.
func (w *Writer) AddPages(pages []Page) error {
	if err := w.usable(); err != nil {
		return err
	}
	if w.hasPages {
		return fmt.Errorf("%w: %s", ErrDuplicate, PagesPath)
	}
	hdr := pagesHeader{Format: pagesFormat, ID: "pages", Title: "All Pages"}
	for i, p := range pages {
		switch {
		case p.URL == "":
			return fmt.Errorf("%w: page %d: no url", ErrPage, i+1)
		case p.TS.IsZero():
			return fmt.Errorf("%w: page %d (%s): no ts", ErrPage, i+1, p.URL)
		}
		hdr.HasText = hdr.HasText || p.Text != ""
	}
	w.hasPages = true
	e, err := w.create(PagesPath, zip.Deflate)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(e)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	err = enc.Encode(hdr)
	for i := 0; i < len(pages) && err == nil; i++ {
		p := &pages[i]
		err = enc.Encode(pageLine{ID: pageID(p), URL: p.URL, TS: formatTime(p.TS), Title: p.Title, Text: p.Text, Size: p.Size})
	}
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return w.fail(fmt.Errorf("wacz: %s: %w", PagesPath, err))
	}
	w.finish(e)
	if len(pages) > 0 {
		w.mainURL, w.mainDate = pages[0].URL, formatTime(pages[0].TS)
	}
	return nil
}

// pageID returns the page's ID, or one derived from its time and URL: stable, so
// that the same pages give the same file.
func pageID(p *Page) string {
	if p.ID != "" {
		return p.ID
	}
	sum := sha256.Sum256([]byte(formatTime(p.TS) + " " + p.URL))
	return hex.EncodeToString(sum[:8])
}

// authority is what signs the WACZ, nil when nothing does.
func (w *Writer) authority() Authority {
	if w.opts.Authority != nil {
		return w.opts.Authority
	}
	if w.opts.Signer != nil {
		return &KeyAuthority{Signer: w.opts.Signer, Software: w.opts.Software}
	}
	return nil
}

// formatTime writes t in RFC 3339, in UTC, with a fraction only when it has one.
func formatTime(t time.Time) string {
	return t.UTC().Format(time.RFC3339Nano)
}

// Close writes pages/pages.jsonl if no pages were added, then datapackage.json,
// which lists every file with its size and SHA-256, and datapackage-digest.json
// (signed by Options.Authority or Options.Signer, if set), and finishes the ZIP. It reports
// ErrIncomplete when no WARC or no index was added, ErrIndex when the index refers
// to a WARC file not in the WACZ, and ErrSignature when the signing fails.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	if w.err != nil {
		w.closed = true
		return w.err
	}
	if !w.hasPages {
		if err := w.AddPages(nil); err != nil {
			return err
		}
	}
	w.closed = true
	if err := w.check(); err != nil {
		w.err = err
		w.zw.Close()
		return err
	}
	dp := datapackage{
		Profile:      profile,
		WACZVersion:  Version,
		Title:        w.opts.Title,
		Description:  w.opts.Description,
		Created:      formatTime(w.created),
		Modified:     formatTime(w.created),
		Software:     w.opts.Software,
		MainPageURL:  w.mainURL,
		MainPageDate: w.mainDate,
		Resources:    w.resources,
	}
	manifest, err := marshal(dp)
	if err != nil {
		return w.fail(err)
	}
	sum := sha256.Sum256(manifest)
	df := digestFile{Path: DatapackagePath, Hash: "sha256:" + hex.EncodeToString(sum[:])}
	if a := w.authority(); a != nil {
		ctx := w.opts.Context
		if ctx == nil {
			ctx = context.Background()
		}
		if df.SignedData, err = signManifestHash(ctx, a, df.Hash, w.opts.SignedAt); err != nil {
			return w.fail(err)
		}
	}
	digest, err := marshal(df)
	if err != nil {
		return w.fail(err)
	}
	if err := w.writeFile(DatapackagePath, manifest); err != nil {
		return err
	}
	if err := w.writeFile(DigestPath, digest); err != nil {
		return err
	}
	if err := w.zw.Close(); err != nil {
		return w.fail(fmt.Errorf("wacz: %w", err))
	}
	return nil
}

// check verifies that the package has what the specification requires.
func (w *Writer) check() error {
	warcs := 0
	for p := range w.paths {
		if strings.HasPrefix(p, ArchiveDir) {
			warcs++
		}
	}
	if warcs == 0 {
		return fmt.Errorf("%w: no WARC file under %s", ErrIncomplete, ArchiveDir)
	}
	if !w.hasIndex {
		return fmt.Errorf("%w: no index", ErrIncomplete)
	}
	for name, line := range w.indexRefs {
		if !w.paths[ArchiveDir+name] {
			return fmt.Errorf("%w: line %d: filename %q is not a file under %s", ErrIndex, line, name, ArchiveDir)
		}
	}
	return nil
}

// marshal encodes v as indented JSON, as py-wacz writes its manifests.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("wacz: %w", err)
	}
	return b.Bytes(), nil
}

// usable returns the error that stops the Writer, if any.
func (w *Writer) usable() error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return ErrClosed
	}
	return nil
}

// fail makes err sticky and returns it.
func (w *Writer) fail(err error) error {
	if w.err == nil {
		w.err = err
	}
	return err
}

// hashWriter counts and hashes the bytes it writes to w.
type hashWriter struct {
	w io.Writer
	h hash.Hash
	n int64
}

func (hw *hashWriter) Write(p []byte) (int, error) {
	n, err := hw.w.Write(p)
	hw.h.Write(p[:n])
	hw.n += int64(n)
	return n, err
}

// entry is a ZIP entry being written: its bytes are counted and hashed on their
// way into the ZIP, for datapackage.json.
type entry struct {
	hashWriter
	path string
}

// create starts the ZIP entry p.
func (w *Writer) create(p string, method uint16) (*entry, error) {
	zw, err := w.zw.CreateHeader(&zip.FileHeader{Name: p, Method: method, Modified: w.created})
	if err != nil {
		return nil, w.fail(fmt.Errorf("wacz: %s: %w", p, err))
	}
	w.paths[p] = true
	return &entry{hashWriter{w: zw, h: sha256.New()}, p}, nil
}

// finish records the finished entry e as a resource of the datapackage.
func (w *Writer) finish(e *entry) {
	if e.path == DatapackagePath || e.path == DigestPath {
		return
	}
	w.resources = append(w.resources, resource{
		Name:  strings.ToLower(path.Base(e.path)),
		Path:  e.path,
		Hash:  "sha256:" + hex.EncodeToString(e.h.Sum(nil)),
		Bytes: e.n,
	})
}

// writeFile writes a small file, deflated.
func (w *Writer) writeFile(p string, data []byte) error {
	e, err := w.create(p, zip.Deflate)
	if err != nil {
		return err
	}
	if _, err := e.Write(data); err != nil {
		return w.fail(fmt.Errorf("wacz: %s: %w", p, err))
	}
	w.finish(e)
	return nil
}
