package capture

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/shared/cdx"
	"github.com/webkeep/webkeep/shared/httpmsg"
	"github.com/webkeep/webkeep/shared/recorder"
	"github.com/webkeep/webkeep/shared/urldb"
	"github.com/webkeep/webkeep/shared/wacz"
	"github.com/webkeep/webkeep/shared/warc"
)

// RecordDetail is one archived record as the archive page shows it.
type RecordDetail = api.RecordDetail

// maxHeadBytes bounds how much of a block is shown as an HTTP head.
const maxHeadBytes = 64 << 10

func detail(rec *warc.Record) (*RecordDetail, error) {
	d := &RecordDetail{Offset: rec.Offset, Type: rec.Type, URI: rec.TargetURI, Date: rec.Date, ID: rec.ID, Fields: fields(rec.Header), Length: rec.BlockLength}
	if strings.Contains(rec.ContentType, "http") {
		br := bufio.NewReader(io.LimitReader(rec.Block, maxHeadBytes))
		var head bytes.Buffer
		for {
			line, err := br.ReadString('\n')
			head.WriteString(line)
			if err != nil || line == "\r\n" || line == "\n" {
				break
			}
		}
		d.HTTP = strings.TrimRight(head.String(), "\r\n")
	}
	if rec.Type == warc.TypeMetadata && strings.HasPrefix(rec.ContentType, "text/") {
		b, err := io.ReadAll(io.LimitReader(rec.Block, api.MaxNoteText))
		if err != nil {
			return nil, fmt.Errorf("reading the note at offset %d: %w", rec.Offset, err)
		}
		d.Text = string(b)
	}
	return d, nil
}

// Record returns the record at offset and, for a response, the request it answers.
// Records are found by reading the session's WARC from the start, hopping from member
// to member.
func (s *Session) Record(offset int64) (*RecordDetail, error) {
	src, err := s.WARC()
	if err != nil {
		return nil, err
	}
	rd, err := warc.NewReader(src)
	if err != nil {
		return nil, err
	}
	byID := map[string]int64{}
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: no record at offset %d", ErrNotFound, offset)
		}
		if err != nil {
			return nil, err
		}
		if rec.Offset < offset {
			if rec.Type == warc.TypeRequest {
				byID[rec.ID] = rec.Offset
			}
			continue
		}
		if rec.Offset > offset {
			return nil, fmt.Errorf("%w: no record at offset %d", ErrNotFound, offset)
		}
		d, err := detail(rec)
		if err != nil {
			return nil, err
		}
		if reqOff, ok := byID[rec.Header.Get(warc.FieldRelatedRecordID)]; ok && rec.Type == warc.TypeResponse {
			if req, err := s.Record(reqOff); err == nil {
				d.Request = req
			}
		}
		return d, nil
	}
}

// WriteWARC11 writes the session as WARC/1.1, converting record by record; a record
// the session holds as segments is written whole, its block spooled in the store.
func (s *Session) WriteWARC11(w io.Writer) error {
	src, err := s.WARC()
	if err != nil {
		return err
	}
	rd, err := warc.NewReader(src)
	if err != nil {
		return err
	}
	ww := warc.NewWriter(w, warc.WriterOptions{Version: warc.V11, Gzip: true, Level: gzipLevel, MaxBuffer: maxRecordBuffer})
	c := s.converter()
	c.JoinSegments = true // replay tools read no segments
	if _, err := c.Convert(ww, rd); err != nil {
		return err
	}
	return ww.Close()
}

// converter converts records holding at most maxRecordBuffer of a block in memory: a
// longer block is spooled in the store (IndexedDB in the browser, which has no
// temporary files).
func (s *Session) converter() *warc.Converter {
	return &warc.Converter{Spool: func(block io.Reader) (io.ReadSeekCloser, error) {
		f, err := storeFile(context.Background(), s.store, recorder.NewSpoolPrefix(), block, math.MaxInt64, nil)
		if err != nil {
			return nil, err
		}
		return f.open(), nil
	}}
}

// chunkSink appends what is written to a session stream in chunks of a bounded size.
type chunkSink struct {
	s      *Session
	stream string
	buf    bytes.Buffer
	n      int64
}

// sinkChunk is the size of the chunks a chunkSink stores (the last may be shorter),
// whatever the writes: the most a replay reads from the store for a range of a
// large body (a seek in a video), where a member written whole made a chunk as
// large as itself (8 MiB).
const sinkChunk = 1 << 20

func (c *chunkSink) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		k := min(len(p), sinkChunk-c.buf.Len())
		c.buf.Write(p[:k])
		c.n += int64(k)
		p = p[k:]
		if c.buf.Len() >= sinkChunk {
			if err := c.flush(); err != nil {
				return n - len(p), err
			}
		}
	}
	return n, nil
}

func (c *chunkSink) flush() error {
	if c.buf.Len() == 0 {
		return nil
	}
	err := c.s.appendChunk(c.stream, c.buf.Bytes())
	c.buf.Reset()
	return err
}

// maxImport bounds an import: the upload is kept in the store until it is imported.
const maxImport = 4 << 30

// maxImportPages bounds the pages file of an imported bundle, which is read whole.
const maxImportPages = 64 << 20

// startImport keeps an upload in the store and starts a job that imports it as a new
// session (see Import). The job's Done and Total count the bytes of the upload read;
// its Result is the new session's SessionInfo. A failed or cancelled import leaves no
// session behind.
func (a *archive) startImport(ctx context.Context, name string, body io.Reader) (*Job, error) {
	f, err := storeFile(ctx, a.store, recorder.NewSpoolPrefix(), body, maxImport, nil)
	if err != nil {
		return nil, fmt.Errorf("import %s: %w", importName(name), err)
	}
	return a.jobs.start("import", func(ctx context.Context, progress func(done, total int)) (any, error) {
		defer f.remove()
		return a.importFile(ctx, name, f, progress)
	}), nil
}

// importBody makes a new session from a WARC (0.9, 1.0 or 1.1, gzip or plain) or a
// webkeep bundle named name. Records are rewritten as WARC 0.9 with their ids and
// links kept, and indexed afresh. The upload is kept in the store while it is read
// (a bundle's zip is opened there, never read whole), and so is a block too long to
// hold in memory. If the import fails, no session is left of it.
func (a *archive) importBody(ctx context.Context, name string, body io.Reader) (SessionInfo, error) {
	f, err := storeFile(ctx, a.store, recorder.NewSpoolPrefix(), body, maxImport, nil)
	if err != nil {
		return SessionInfo{}, fmt.Errorf("import %s: %w", importName(name), err)
	}
	defer f.remove()
	return a.importFile(ctx, name, f, nil)
}

// isWACZ reports whether a zip is a WACZ: it has a datapackage.json.
func isWACZ(zr *zip.Reader) bool {
	for _, zf := range zr.File {
		if zf.Name == wacz.DatapackagePath {
			return true
		}
	}
	return false
}

// importName names an upload in messages.
func importName(name string) string {
	if name == "" {
		return "the upload"
	}
	return name
}

func (a *archive) importFile(ctx context.Context, name string, f *storedFile, progress func(done, total int)) (SessionInfo, error) {
	// A WACZ is read twice, checked then imported: each reading is half the job.
	verifying := false
	half := func(first bool) func(done, total int) {
		if progress == nil {
			return nil
		}
		return func(done, total int) {
			switch {
			case !verifying:
				progress(done, total)
			case first:
				progress(done/2, total)
			default:
				progress(total/2+done/2, total)
			}
		}
	}
	in := &jobInput{r: f, ctx: ctx, size: f.Size(), progress: half(false)}
	var checked *api.Verification
	fail := func(err error) (SessionInfo, error) {
		if checked != nil && !checked.OK && len(checked.Problems) > 0 {
			// What was found wrong in the WACZ says why its records did not read.
			err = fmt.Errorf("%w; the WACZ does not verify, %s: %s", err, plural(checked.Failed, "problem"), strings.Join(checked.Problems[:min(3, len(checked.Problems))], "; "))
		}
		return SessionInfo{}, fmt.Errorf("import %s: %w", importName(name), err)
	}
	var magic [4]byte
	f.ReadAt(magic[:], 0)
	var warcSrc io.Reader = &jobReader{r: io.NewSectionReader(in, 0, f.Size()), ctx: ctx}
	var pages []byte
	if bytes.Equal(magic[:], []byte("PK\x03\x04")) {
		zr, err := zip.NewReader(in, f.Size())
		if err != nil {
			return fail(fmt.Errorf("not a readable zip: %w", err))
		}
		if isWACZ(zr) {
			// A WACZ is verified as it is imported: its files, records and index
			// against its manifest, and its signature. The session says what held.
			verifying = true
			rep, err := wacz.Verify(&jobInput{r: f, ctx: ctx, size: f.Size(), progress: half(true)}, f.Size(), wacz.VerifyOptions{Context: ctx})
			if err != nil {
				return fail(fmt.Errorf("verifying the WACZ: %w", err))
			}
			checked = verification(rep, a.signing.ownFingerprint())
			in.far = 0 // the import's half counts from the start (the zip's directory is at its end)
		}
		warcSrc = nil
		for _, zf := range zr.File {
			switch {
			case strings.HasSuffix(zf.Name, ".warc.gz") || strings.HasSuffix(zf.Name, ".warc"):
				if warcSrc == nil {
					rc, err := zf.Open()
					if err != nil {
						return fail(fmt.Errorf("%s: %w", zf.Name, err))
					}
					defer rc.Close()
					warcSrc = &jobReader{r: rc, ctx: ctx}
				}
			case zf.Name == bundlePages || zf.Name == "pages/pages.jsonl":
				rc, err := zf.Open()
				if err != nil {
					return fail(fmt.Errorf("%s: %w", zf.Name, err))
				}
				pages, err = io.ReadAll(io.LimitReader(rc, maxImportPages+1))
				rc.Close()
				if err != nil {
					return fail(fmt.Errorf("%s: %w", zf.Name, err))
				}
				if len(pages) > maxImportPages {
					return fail(fmt.Errorf("%s: %w: over the limit of %d MiB", zf.Name, errTooLarge, maxImportPages>>20))
				}
			}
		}
		if warcSrc == nil {
			return fail(fmt.Errorf("the zip holds no .warc.gz or .warc file"))
		}
	}
	rd, err := warc.NewReader(warcSrc)
	if err != nil {
		return fail(err)
	}
	if name == "" {
		name = "Imported " + a.now().UTC().Format("2006-01-02 15:04")
	}
	// Listed once the import has saved its info, at the end: until then no request
	// waits on it, which the import holds locked.
	sess, err := a.sessions.reserve(name, a.now())
	if err != nil {
		return fail(err)
	}
	err = sess.importRecords(ctx, rd, pages, checked)
	if err == nil && sess.Info().Records == 0 {
		err = errors.New("the file holds no WARC records")
	}
	if err != nil {
		// Nothing of a failed import is kept: no session named after the file.
		if derr := a.sessions.remove(sess.info.ID); derr != nil {
			err = fmt.Errorf("%w (and removing what was imported: %v)", err, derr)
		}
		return fail(err)
	}
	a.search.grew()
	return sess.Info(), nil
}

func (s *Session) importRecords(ctx context.Context, rd *warc.Reader, pages []byte, checked *api.Verification) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.info.Imported = true
	s.info.Verification = checked
	sink := &chunkSink{s: s, stream: streamWARC}
	w := warc.NewWriter(sink, warc.WriterOptions{Version: warc.V09, Gzip: true, Level: gzipLevel, MaxBuffer: maxRecordBuffer})
	n, err := s.converter().Convert(w, rd)
	if ferr := sink.flush(); err == nil {
		err = ferr
	}
	s.info.Records += n
	s.info.Bytes += sink.n
	s.w = nil
	if err != nil {
		s.saveInfo()
		return err
	}
	// Index what was written, as pywb would index the file.
	chunks, err := recorder.OpenChunks(s.store, sessionKey(s.info.ID, streamWARC+"/"))
	if err != nil {
		return err
	}
	src := &jobReader{r: chunks, ctx: ctx}
	var lines []byte
	ix := &cdx.Indexer{Dialect: cdx.Pywb267}
	err = ix.Index(src, s.BaseName()+".warc.gz", func(e *cdx.Entry) error {
		lines = e.AppendLine(lines, cdx.Pywb267)
		s.info.Exchanges++
		if e.Method != "" && e.Method != httpmsg.MethodGet {
			s.info.NonGET++
		}
		if len(lines) >= sinkChunk {
			if err := s.appendChunk(streamCDX, lines); err != nil {
				return err
			}
			lines = lines[:0]
		}
		return nil
	})
	if len(lines) > 0 {
		if aerr := s.appendChunk(streamCDX, lines); err == nil {
			err = aerr
		}
	}
	if len(pages) > 0 {
		var kept []byte
		for _, line := range bytes.Split(pages, []byte("\n")) {
			// A WACZ pages file starts with a header line that is not a page.
			if len(bytes.TrimSpace(line)) == 0 || bytes.Contains(line, []byte(`"format"`)) {
				continue
			}
			kept = append(append(kept, line...), '\n')
			s.info.Pages++
			var page struct {
				Restored bool `json:"restored"`
			}
			if json.Unmarshal(line, &page) == nil && page.Restored {
				s.info.Restored++
			}
		}
		if len(kept) > 0 {
			if aerr := s.appendChunk(streamPages, kept); err == nil {
				err = aerr
			}
		}
	}
	if serr := s.saveInfo(); err == nil {
		err = serr
	}
	return err
}

// Response returns an archived response as the URL database sees one: its URL,
// status, headers, and the length and digest of its body.
func (s *Session) Response(offset int64) (string, urldb.Response, error) {
	src, err := s.WARC()
	if err != nil {
		return "", urldb.Response{}, err
	}
	rd, err := warc.NewReader(src)
	if err != nil {
		return "", urldb.Response{}, err
	}
	for {
		rec, err := rd.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = fmt.Errorf("%w: no record at offset %d", ErrNotFound, offset)
			}
			return "", urldb.Response{}, err
		}
		if rec.Offset < offset {
			continue
		}
		if rec.Offset > offset || rec.Type != warc.TypeResponse {
			return "", urldb.Response{}, fmt.Errorf("the record at offset %d is not a response", offset)
		}
		resp, err := httpmsg.ReadResponse(bufio.NewReader(rec.Block))
		if err != nil {
			return "", urldb.Response{}, fmt.Errorf("the response at offset %d: %w", offset, err)
		}
		out := urldb.Response{Status: resp.StatusCode, Header: resp.Header}
		if err := out.ReadBody(resp.Body); err != nil {
			return "", urldb.Response{}, err
		}
		return rec.TargetURI, out, nil
	}
}

// fields returns a record's WARC named fields as the API sends them.
func fields(h warc.Header) []api.Field {
	out := make([]api.Field, len(h))
	for i, f := range h {
		out[i] = api.Field{Name: f.Name, Value: f.Value}
	}
	return out
}
