package capture

import (
	"archive/zip"
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/webkeep/webkeep/shared/cdx"
	"github.com/webkeep/webkeep/shared/urldb"
	"github.com/webkeep/webkeep/shared/warc"
)

// RecordDetail is one archived record as the archive page shows it.
type RecordDetail struct {
	Offset  int64         `json:"offset"`
	Type    string        `json:"type"`
	URI     string        `json:"uri"`
	Date    time.Time     `json:"date"`
	ID      string        `json:"id"`
	Fields  warc.Header   `json:"fields"`
	HTTP    string        `json:"http,omitempty"` // start line and headers of an HTTP message
	Length  int64         `json:"blockLength"`
	Request *RecordDetail `json:"request,omitempty"`
}

// maxHeadBytes bounds how much of a block is shown as an HTTP head.
const maxHeadBytes = 64 << 10

func detail(rec *warc.Record) (*RecordDetail, error) {
	d := &RecordDetail{Offset: rec.Offset, Type: rec.Type, URI: rec.TargetURI, Date: rec.Date, ID: rec.ID, Fields: rec.Header, Length: rec.BlockLength}
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

// WriteWARC11 writes the session as WARC/1.1, converting record by record.
func (s *Session) WriteWARC11(w io.Writer) error {
	src, err := s.WARC()
	if err != nil {
		return err
	}
	rd, err := warc.NewReader(src)
	if err != nil {
		return err
	}
	ww := warc.NewWriter(w, warc.WriterOptions{Version: warc.V11, Gzip: true, Level: gzipLevel})
	if _, err := warc.Convert(ww, rd); err != nil {
		return err
	}
	return ww.Close()
}

// chunkSink appends what is written to a session stream in chunks of a bounded size.
type chunkSink struct {
	s      *Session
	stream string
	buf    bytes.Buffer
	n      int64
}

const sinkChunk = 4 << 20

func (c *chunkSink) Write(p []byte) (int, error) {
	c.buf.Write(p)
	c.n += int64(len(p))
	if c.buf.Len() >= sinkChunk {
		return len(p), c.flush()
	}
	return len(p), nil
}

func (c *chunkSink) flush() error {
	if c.buf.Len() == 0 {
		return nil
	}
	err := c.s.appendChunk(c.stream, c.buf.Bytes())
	c.buf.Reset()
	return err
}

// maxImport bounds an imported bundle, which is read into memory to open the zip.
const maxImport = 2 << 30

// Import makes a new session from a WARC (0.9, 1.0 or 1.1, gzip or plain) or a
// webkeep bundle. Records are rewritten as WARC 0.9 with their ids and links kept, and
// indexed afresh.
func (s *Service) Import(name string, body io.Reader) (SessionInfo, error) {
	br := bufio.NewReaderSize(body, 64<<10)
	magic, _ := br.Peek(4)
	var warcSrc io.Reader = br
	var pages []byte
	if bytes.Equal(magic, []byte("PK\x03\x04")) {
		data, err := io.ReadAll(io.LimitReader(br, maxImport+1))
		if err != nil {
			return SessionInfo{}, err
		}
		if len(data) > maxImport {
			return SessionInfo{}, fmt.Errorf("import: the bundle is larger than %d GB", maxImport>>30)
		}
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return SessionInfo{}, fmt.Errorf("import: not a readable zip: %w", err)
		}
		warcSrc = nil
		for _, f := range zr.File {
			switch {
			case strings.HasSuffix(f.Name, ".warc.gz") || strings.HasSuffix(f.Name, ".warc"):
				if warcSrc == nil {
					rc, err := f.Open()
					if err != nil {
						return SessionInfo{}, fmt.Errorf("import: %s: %w", f.Name, err)
					}
					defer rc.Close()
					warcSrc = rc
				}
			case f.Name == bundlePages || f.Name == "pages/pages.jsonl":
				rc, err := f.Open()
				if err == nil {
					pages, _ = io.ReadAll(io.LimitReader(rc, 64<<20))
					rc.Close()
				}
			}
		}
		if warcSrc == nil {
			return SessionInfo{}, fmt.Errorf("import: the zip holds no .warc.gz or .warc file")
		}
	}
	rd, err := warc.NewReader(warcSrc)
	if err != nil {
		return SessionInfo{}, fmt.Errorf("import: %w", err)
	}
	if name == "" {
		name = "Imported " + s.now().UTC().Format("2006-01-02 15:04")
	}
	s.mu.Lock()
	sess, err := createSession(s.store, name, s.now())
	if err == nil {
		s.sessions[sess.info.ID] = sess
	}
	s.mu.Unlock()
	if err != nil {
		return SessionInfo{}, err
	}
	if err := sess.importRecords(rd, pages); err != nil {
		sess.Note("import stopped: " + err.Error())
		return sess.Info(), fmt.Errorf("import: %w (the records before it were kept in session %s)", err, sess.info.ID)
	}
	return sess.Info(), nil
}

func (s *Session) importRecords(rd *warc.Reader, pages []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.info.Imported = true
	sink := &chunkSink{s: s, stream: streamWARC}
	w := warc.NewWriter(sink, warc.WriterOptions{Version: warc.V09, Gzip: true, Level: gzipLevel})
	n, err := warc.Convert(w, rd)
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
	src, err := openChunks(s.store, sessionKey(s.info.ID, streamWARC+"/"))
	if err != nil {
		return err
	}
	var lines []byte
	ix := &cdx.Indexer{Dialect: cdx.Pywb267}
	err = ix.Index(src, s.BaseName()+".warc.gz", func(e *cdx.Entry) error {
		lines = e.AppendLine(lines, cdx.Pywb267)
		s.info.Exchanges++
		if e.Method != "" && e.Method != http.MethodGet {
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
		resp, err := http.ReadResponse(bufio.NewReader(rec.Block), nil)
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
