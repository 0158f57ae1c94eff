package capture

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/webkeep/webkeep/shared/cdx"
	"github.com/webkeep/webkeep/shared/recorder"
	"github.com/webkeep/webkeep/shared/warc"
)

// nextPageID returns the id AddPage gives the next page added without one.
func (s *Session) nextPageID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fmt.Sprintf("p%d", s.info.Pages+1)
}

// AddPage records a visited page.
func (s *Session) AddPage(p recorder.Page) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.ID == "" {
		p.ID = fmt.Sprintf("p%d", s.info.Pages+1)
	}
	line, err := json.Marshal(p)
	if err != nil {
		return err
	}
	restored := 0
	if p.Restored {
		restored = 1
	}
	s.info.Pages++
	s.info.Restored += restored
	s.info.Updated = time.Now().UTC()
	if err := s.commit(streamChunk{streamPages, append(line, '\n')}); err != nil {
		s.info.Pages--
		s.info.Restored -= restored
		return err
	}
	return nil
}

// WriteExchange archives one exchange: its request and response records (or a
// metadata record saying why there is no response), and the CDX lines that find them.
// The records reach the store before WriteExchange returns.
func (s *Session) WriteExchange(ex *recorder.Exchange) error {
	err := s.write(func() (int, error) { return s.writeRecords(ex) }, func(records int) { s.count(ex, records) })
	if err != nil {
		return fmt.Errorf("capture: %s %s: %w", ex.Method, ex.URL, err)
	}
	return nil
}

// WriteNote archives a note about page (a URL) as a metadata record of its own: what
// the browser did not let webkeep keep of it, where no exchange's records can say so.
// The record reaches the store before WriteNote returns.
func (s *Session) WriteNote(page, note string) error {
	err := s.write(func() (int, error) {
		_, err := s.w.WriteRecord(&warc.Record{
			Type:        warc.TypeMetadata,
			TargetURI:   page,
			Date:        time.Now().UTC(),
			ContentType: "text/plain",
			Block:       strings.NewReader(note),
			BlockLength: int64(len(note)),
		})
		return 1, err
	}, func(records int) {
		s.info.Records += records
		s.info.Updated = time.Now().UTC()
	})
	if err != nil {
		return fmt.Errorf("capture: note on %s: %w", page, err)
	}
	return nil
}

// write runs records, which writes records to s.w and returns their count, and stores
// them with their CDX lines; counted adds them to the session's counts once they are
// stored. On an error the session is as it was before.
func (s *Session) write(records func() (int, error), counted func(records int)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w == nil {
		if s.dedup == nil {
			d, err := s.loadDedup()
			if err != nil {
				// Payloads are then written again in full: nothing is lost.
				s.note(err.Error())
			}
			s.dedup = d
		}
		s.sink = &chunkSink{s: s, stream: streamWARC}
		ix := &cdx.Indexer{Dialect: cdx.Pywb267}
		s.index = ix.Follow(s.BaseName()+".warc.gz", func(e *cdx.Entry) error {
			s.cdxLines = e.AppendLine(s.cdxLines, cdx.Pywb267)
			return nil
		})
		s.w = warc.NewWriter(s.sink, warc.WriterOptions{
			Version: warc.V09, Gzip: true, Level: gzipLevel, MaxBuffer: maxRecordBuffer, Dedup: s.dedup,
			Offset: s.info.Bytes, Written: s.indexWritten,
		})
	}
	before := s.sink.n
	saved := s.info
	saved.Notes = slices.Clone(s.info.Notes)
	saved.Reasons = maps.Clone(s.info.Reasons)
	s.dedupLines = s.dedupLines[:0]
	s.revisitLines = s.revisitLines[:0]
	s.cdxLines = s.cdxLines[:0]
	n, err := records()
	if err == nil {
		err = s.index.End(s.w.Offset())
	}
	if err == nil {
		// The records' last bytes, their CDX lines, the payloads they archived and the
		// counts that include them are stored together.
		s.info.Bytes += s.sink.n - before
		counted(n)
		err = s.commit(streamChunk{streamWARC, s.sink.buf.Bytes()}, streamChunk{streamCDX, s.cdxLines}, streamChunk{streamDedup, s.dedupLines}, streamChunk{streamRevisits, s.revisitLines})
	}
	s.sink.buf.Reset()
	if err != nil {
		// The writer's state is unknown after a failed record: start a fresh one,
		// after what reached the store, and forget payloads it may have remembered
		// from records that did not (a revisit must not point at one).
		s.info = saved
		s.w = nil
		s.dedup = nil
		return err
	}
	return nil
}

// count adds an exchange written as n records to the session's counts.
func (s *Session) count(ex *recorder.Exchange, records int) {
	s.info.Records += records
	s.info.Exchanges++
	if ex.Method != "GET" {
		s.info.NonGET++
	}
	if ex.Status == 0 {
		s.info.Failures++
	}
	if ex.ReqTruncated || ex.Status != 0 && ex.RespTruncated != "" {
		s.info.Incomplete++
	}
	if len(ex.PasswordFields) > 0 {
		s.info.LoginPosts++
	}
	for _, why := range []string{ex.Failure, ex.ReqNote, ex.RespNote} {
		if why == "" || why == ex.RespNote && ex.RespTruncated == "" || why == ex.ReqNote && !ex.ReqTruncated {
			continue
		}
		s.addReason(why, 1)
	}
	for _, n := range []string{ex.ReqNote, ex.RespNote} {
		if n != "" {
			s.note(ex.URL + ": " + n)
		}
	}
	s.info.Updated = time.Now().UTC()
}

// addReason counts n requests under the reason why gives (reasonOf). s.mu is held.
func (s *Session) addReason(why string, n int) {
	if s.info.Reasons == nil {
		s.info.Reasons = map[string]int{}
	}
	if r := reasonOf(why); s.info.Reasons[r] > 0 || len(s.info.Reasons) < maxReasons {
		s.info.Reasons[r] += n
	} else {
		s.info.Reasons["other reasons"] += n
	}
}

// lost counts n requests that were not recorded, for the reason why gives, among the
// session's reasons (SessionInfo.Reasons).
func (s *Session) lost(why string, n int) {
	if n == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.addReason(why, n)
	s.saveInfo()
}

// gzipLevel is the compression level of the archives the extension writes. Measured as
// wasm under node (scripts/bench/sections/warc.sh): level 4 writes about 40% faster than the
// default 6 for 0.5% more bytes.
const gzipLevel = 4

// maxRecordBuffer is the most of a record held in memory: a larger body is written
// as segments (section 7.2 of the draft), each one gzip member.
const maxRecordBuffer = 8 << 20

// writeRecords writes ex's records and returns their count.
func (s *Session) writeRecords(ex *recorder.Exchange) (int, error) {
	date := ex.Started
	if date.IsZero() {
		date = time.Now().UTC()
	}
	var ip warc.Header
	if ex.RemoteIP != "" {
		ip = warc.Header{{Name: warc.FieldIPAddress, Value: ex.RemoteIP}}
	}
	reqMsg := ex.RequestMessage()
	reqFields := ip
	if ex.ReqTruncated {
		reqFields = append(append(warc.Header{}, ip...), warc.Field{Name: warc.FieldTruncated, Value: "unspecified"})
	}
	reqInfo, err := s.w.WriteRecord(&warc.Record{
		Type:        warc.TypeRequest,
		TargetURI:   ex.URL,
		Date:        date,
		ContentType: "message/http",
		Header:      reqFields,
		Block:       bytes.NewReader(reqMsg),
		BlockLength: int64(len(reqMsg)),
	})
	if err != nil {
		return 0, fmt.Errorf("request record: %w", err)
	}
	n := 1
	related := warc.Header{{Name: warc.FieldRelatedRecordID, Value: reqInfo.ID}}
	// writeMetadata writes a note about the exchange as a metadata record related to
	// the record whose id is given.
	writeMetadata := func(note, relatedID, what string) error {
		if _, err := s.w.WriteRecord(&warc.Record{
			Type:        warc.TypeMetadata,
			TargetURI:   ex.URL,
			Date:        date,
			ContentType: "text/plain",
			Header:      warc.Header{{Name: warc.FieldRelatedRecordID, Value: relatedID}},
			Block:       strings.NewReader(note),
			BlockLength: int64(len(note)),
		}); err != nil {
			return fmt.Errorf("%s record: %w", what, err)
		}
		n++
		return nil
	}
	// writeNote says in the archive itself why the request or the response is
	// incomplete (or how its body was had), a metadata record each. It follows the
	// response: replay indexers pair a request with the record next to it.
	writeNote := func(notes ...string) error {
		for _, note := range notes {
			if note == "" {
				continue
			}
			if err := writeMetadata(note, reqInfo.ID, "note"); err != nil {
				return err
			}
		}
		return nil
	}
	if ex.Status == 0 {
		if err := writeNote(ex.ReqNote, ex.Redaction); err != nil {
			return n, err
		}
		err := writeMetadata("no response: "+ex.Failure, reqInfo.ID, "failure")
		return n, err
	}
	head := ex.ResponseHead()
	body, err := ex.Body()
	if err != nil {
		return n, fmt.Errorf("response body: %w", err)
	}
	respFields := append(append(warc.Header{}, ip...), related...)
	if ex.RespTruncated != "" {
		respFields = append(respFields, warc.Field{Name: warc.FieldTruncated, Value: ex.RespTruncated})
	}
	respInfo, err := s.w.WriteRecord(&warc.Record{
		Type:        warc.TypeResponse,
		TargetURI:   ex.URL,
		Date:        date,
		ContentType: "message/http",
		Header:      respFields,
		Block:       &yieldingReader{r: io.MultiReader(bytes.NewReader(head), body)},
		BlockLength: int64(len(head)) + ex.BodyLen(),
	})
	if err != nil {
		return n, fmt.Errorf("response record: %w", err)
	}
	n += max(1, respInfo.Segments) // a large body is written as segments
	if respInfo.Type == warc.TypeRevisit {
		line, _ := json.Marshal(revisitLine{Offset: respInfo.Offset, Status: ex.Status})
		s.revisitLines = append(append(s.revisitLines, line...), '\n')
	}
	if respInfo.Type == warc.TypeResponse && respInfo.PayloadDigest != "" {
		if _, known := s.dedup.Lookup(respInfo.PayloadDigest); known {
			line, err := json.Marshal(dedupLine{Digest: respInfo.PayloadDigest, ID: respInfo.ID, URI: ex.URL, Date: date})
			if err != nil {
				return n, fmt.Errorf("dedup line: %w", err)
			}
			s.dedupLines = append(append(s.dedupLines, line...), '\n')
		}
	}
	if err := writeNote(ex.ReqNote, ex.Redaction, ex.RespNote, ex.CacheNote); err != nil {
		return n, err
	}
	return n, nil
}

// indexWritten indexes a record s.w has written (see warc.WriterOptions.Written). A
// record the index cannot read is noted, and has no CDX line.
func (s *Session) indexWritten(wr *warc.WrittenRecord) {
	if err := s.index.Add(wr.Record, wr.PayloadDigest); err != nil {
		s.note(fmt.Sprintf("%s: no CDX line: %v", wr.Record.TargetURI, err))
	}
}
