package capture

// Deduplication across sessions and team members, on upload. Before an upload to the
// team archive writes its bundle, it asks the Worker (POST /api/digests, at most
// maxDigestsAsked digests a call) which of the session's response payloads a bundle of
// the team already holds. The WARC of the bundle it sends then has, for each response
// with such a payload, a revisit record instead: the form shared/warc's Writer gives
// the session's own revisits (its Deduper), pointing at the team's capture
// (WARC-Refers-To-Target-URI and WARC-Refers-To-Date), the HTTP header kept and the
// payload left out; the session's own revisits of such a response are pointed at the
// team's capture too. The bundle's CDXJ is the index of that WARC, made again. The
// session itself, its downloads and its WACZ are not changed.
//
// The Worker's answers are asked once per upload and kept with the upload's state
// (teamUploadState.Dedup), so that every attempt of the upload writes the same bytes
// and a resumed upload can skip the parts already sent.

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/sha1"
	"encoding/base32"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/webkeep/webkeep/shared/cdx"
	"github.com/webkeep/webkeep/shared/httpmsg"
	"github.com/webkeep/webkeep/shared/warc"
)

const (
	// maxDigestsAsked is the most digests one POST /api/digests may ask about.
	maxDigestsAsked = 1000
	// maxDigestsAnswer bounds the answer to one such call: a capture (its URL, time
	// and bundle) for each digest asked.
	maxDigestsAnswer = 32 << 20
	// timestamp14 is the layout of a CDXJ timestamp, w3cDate that of
	// WARC-Refers-To-Date (as shared/warc writes it).
	timestamp14 = "20060102150405"
	w3cDate     = "2006-01-02T15:04:05Z"
)

// emptyPayloadDigest is the digest of an empty payload, as CDXJ lines give it: not
// worth a revisit.
var emptyPayloadDigest = func() string {
	sum := sha1.Sum(nil)
	return base32.StdEncoding.EncodeToString(sum[:])
}()

// A teamHolder is a capture of the team archive holding a payload, as the Worker
// answers it: what a revisit record refers to.
type teamHolder struct {
	URL       string `json:"url"`
	Timestamp string `json:"timestamp"` // 14 digits
	Source    string `json:"source"`    // the bundle
}

// teamDedup is what the team archive answered of a session's payloads, kept with the
// upload's state.
type teamDedup struct {
	// Asked counts the digests the Worker was asked about (0 when it does not
	// answer such questions).
	Asked int `json:"asked"`
	// Known holds a capture of each payload the team has, by the digest as CDXJ
	// lines give it (base32 SHA-1, without "sha1:").
	Known map[string]teamHolder `json:"known,omitempty"`
}

// teamDedupResult is the "dedup" member of an upload's result.
type teamDedupResult struct {
	// Revisits counts the responses the uploaded WARC holds as revisit records.
	Revisits int `json:"revisits"`
	// BytesSaved is how much smaller the uploaded WARC is than the session's, in
	// bytes as stored (gzip members): the members the revisits replaced (and those
	// of the session's own revisits pointed again) less the members written for them.
	BytesSaved int64 `json:"bytesSaved"`
	// Asked counts the payload digests the team archive was asked about.
	Asked int `json:"asked"`
}

// teamUploadResult is the result of an upload job: the bundle as the team archive
// keeps it, and what deduplication did.
type teamUploadResult struct {
	TeamUpload
	Dedup teamDedupResult `json:"dedup"`
}

// worthRevisit reports whether the response a CDXJ line describes has a payload the
// team archive is asked about: a response (not a revisit) of status 200-299 with a
// payload that is not empty and whose digest is a SHA-1 (the one a revisit's writer
// can check).
func worthRevisit(e *cdx.Entry) bool {
	if e.Mime == "warc/revisit" || !isSHA1Digest(e.Digest) || e.Digest == emptyPayloadDigest {
		return false
	}
	status, err := strconv.Atoi(e.Status)
	return err == nil && status >= 200 && status <= 299
}

// isSHA1Digest reports whether d is a SHA-1 in base32, as CDXJ lines give it.
func isSHA1Digest(d string) bool {
	if len(d) != 32 {
		return false
	}
	for i := 0; i < len(d); i++ {
		if c := d[i]; !(c >= 'A' && c <= 'Z' || c >= '2' && c <= '7') {
			return false
		}
	}
	return true
}

// cdxEntries calls f with each CDXJ line of the session that reads as one.
func (s *Session) cdxEntries(f func(e *cdx.Entry)) error {
	r, err := s.CDXLines()
	if err != nil {
		return err
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		if e, err := cdx.ParseEntry(sc.Bytes()); err == nil {
			f(&e)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("capture: session %s: reading CDX: %w", s.info.ID, err)
	}
	return nil
}

// payloadDigests returns, sorted and each once, the digests of the session's
// responses that are worth a revisit (worthRevisit).
func (s *Session) payloadDigests() ([]string, error) {
	seen := map[string]bool{}
	err := s.cdxEntries(func(e *cdx.Entry) {
		if worthRevisit(e) {
			seen[e.Digest] = true
		}
	})
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(seen))
	for d := range seen {
		out = append(out, d)
	}
	slices.Sort(out)
	return out, nil
}

// askDigests asks the team archive which of sess's payloads a bundle other than
// name (the bundle being uploaded, which an overwrite replaces) already holds. A
// Worker that does not know the question (404: an older one) means no deduplication.
func (tm *team) askDigests(ctx context.Context, sess *Session, name string) (*teamDedup, error) {
	digests, err := sess.payloadDigests()
	if err != nil {
		return nil, err
	}
	d := &teamDedup{Known: map[string]teamHolder{}}
	for len(digests) > 0 {
		batch := digests[:min(len(digests), maxDigestsAsked)]
		digests = digests[len(batch):]
		known, err := tm.digests(ctx, batch)
		var te *teamError
		if errors.As(err, &te) && te.status == httpmsg.StatusNotFound {
			return &teamDedup{}, nil
		}
		if err != nil {
			return nil, fmt.Errorf("asking the team archive which payloads it has: %w", err)
		}
		for _, dg := range batch {
			if h, ok := known[dg]; ok && h.usable(name) {
				d.Known[dg] = h
			}
		}
		d.Asked += len(batch)
	}
	return d, nil
}

// digests makes one POST /api/digests call.
func (tm *team) digests(ctx context.Context, digests []string) (map[string]teamHolder, error) {
	body, err := json.Marshal(map[string][]string{"digests": digests})
	if err != nil {
		return nil, err
	}
	resp, err := tm.request(ctx, httpmsg.MethodPost, "/api/digests", bytes.NewReader(body), int64(len(body)))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var got struct {
		Known map[string]teamHolder `json:"known"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxDigestsAnswer)).Decode(&got); err != nil {
		return nil, fmt.Errorf("the team archive's answer to POST /api/digests: %w", err)
	}
	return got.Known, nil
}

// usable reports whether a revisit record can refer to h: a capture with a URL and a
// 14-digit timestamp, in a bundle that is not own (the one being uploaded, which may
// replace it) and whose name can be part of a record id.
func (h teamHolder) usable(own string) bool {
	if h.URL == "" || h.Source == "" || h.Source == own || len(h.Source) > 128 {
		return false
	}
	if _, err := time.Parse(timestamp14, h.Timestamp); err != nil || len(h.Timestamp) != len(timestamp14) {
		return false
	}
	for i := 0; i < len(h.URL); i++ {
		if c := h.URL[i]; c <= ' ' || c == 0x7f {
			return false
		}
	}
	for i := 0; i < len(h.Source); i++ {
		if c := h.Source[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// recordID is the id a revisit record gives the team's capture of digest. The Worker
// does not know the WARC-Record-ID of the records it indexes, and WARC 0.9 requires
// a revisit to name the record it revisits (Related-Record-ID, draft section 4.6;
// WARC/1.1 writes it as WARC-Refers-To): the capture is named by its bundle, its
// time and its payload digest.
func (h teamHolder) recordID(digest string) string {
	return "urn:webkeep:team:" + h.Source + ":" + h.Timestamp + ":" + digest
}

// entry is the capture of digest as a revisit record refers to it.
func (h teamHolder) entry(digest string) warc.DedupEntry {
	t, _ := time.Parse(timestamp14, h.Timestamp)
	return warc.DedupEntry{ID: h.recordID(digest), TargetURI: h.URL, Date: t}
}

// A teamTarget is a record of the session's WARC that an upload may write again: a
// response whose payload the team holds, or a revisit of the session of one.
type teamTarget struct {
	offset, length int64
	digest         string
	revisit        bool
}

// maxTargetMember bounds the gzip member of a record written again: it is read whole.
// A record of the session is at most maxRecordBuffer long unless it is in segments,
// which are never written again; its member may be a little longer.
const maxTargetMember = maxRecordBuffer + 1<<20

// teamTargets returns, by offset, the records of the session that an upload with
// the known payloads may write again.
func (s *Session) teamTargets(known map[string]teamHolder) ([]teamTarget, error) {
	var out []teamTarget
	err := s.cdxEntries(func(e *cdx.Entry) {
		if _, ok := known[e.Digest]; !ok || e.Length <= 0 || e.Length > maxTargetMember {
			return
		}
		switch {
		case worthRevisit(e):
			out = append(out, teamTarget{offset: e.Offset, length: e.Length, digest: e.Digest})
		case e.Mime == "warc/revisit":
			out = append(out, teamTarget{offset: e.Offset, length: e.Length, digest: e.Digest, revisit: true})
		}
	})
	slices.SortStableFunc(out, func(a, b teamTarget) int { return cmp.Compare(a.offset, b.offset) })
	return out, err
}

// teamRewriteStats is what writing a session's WARC for the team did.
type teamRewriteStats struct {
	Revisits   int   // responses written as revisits
	Repointed  int   // revisits of the session pointed at the team's capture
	BytesSaved int64 // bytes of the members replaced less those written for them
}

// writeTeamWARC copies the session's WARC (gzip, a record a member) from src to dst,
// but for the targets (by offset, from its index): a response whose payload the
// team holds (known) becomes a revisit record that refers to the team's capture,
// when that record is shorter; a revisit of the session that refers to such a
// response is pointed at the team's capture. Every other member is copied as it is.
func writeTeamWARC(dst io.Writer, src io.Reader, targets []teamTarget, known map[string]teamHolder) (teamRewriteStats, error) {
	var st teamRewriteStats
	var pos int64
	var member []byte
	// Records written as revisits, by record id: the digest of their payload.
	revisited := map[string]string{}
	rw := newTeamRewriter(known)
	for _, t := range targets {
		if t.offset < pos {
			continue
		}
		n, err := io.CopyN(dst, src, t.offset-pos)
		pos += n
		if errors.Is(err, io.EOF) {
			return st, nil // the index points past the file: nothing more to write again
		}
		if err != nil {
			return st, err
		}
		if int64(cap(member)) < t.length {
			member = make([]byte, t.length)
		}
		member = member[:t.length]
		k, err := io.ReadFull(src, member)
		pos += int64(k)
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				_, err = dst.Write(member[:k])
				return st, err
			}
			return st, err
		}
		out, id, ok := rw.rewrite(member, t, revisited)
		if !ok || !t.revisit && len(out) >= len(member) {
			// A revisit no shorter than the response it would replace is not worth
			// a reference to another bundle.
			if _, err := dst.Write(member); err != nil {
				return st, err
			}
			continue
		}
		if _, err := dst.Write(out); err != nil {
			return st, err
		}
		st.BytesSaved += int64(len(member) - len(out))
		if t.revisit {
			st.Repointed++
		} else {
			st.Revisits++
			revisited[id] = t.digest
		}
	}
	_, err := io.Copy(dst, src)
	return st, err
}

// teamRewriter writes records of a session's WARC again for the team.
type teamRewriter struct {
	known map[string]teamHolder
	// dedup knows every payload the team holds, as the team's capture: a response
	// with one of them is written by shared/warc's Writer as a revisit of it.
	dedup   *warc.Deduper
	writers map[warc.Version]*warc.Writer // one a version, kept for its buffers
	buf     bytes.Buffer
}

func newTeamRewriter(known map[string]teamHolder) *teamRewriter {
	rw := &teamRewriter{known: known, dedup: warc.NewDeduper(), writers: map[warc.Version]*warc.Writer{}}
	for d, h := range known {
		rw.dedup.Add("sha1:"+d, h.entry(d))
	}
	return rw
}

// writer returns the Writer of version v, writing to rw.buf from offset 0.
func (rw *teamRewriter) writer(v warc.Version) *warc.Writer {
	rw.buf.Reset()
	w := rw.writers[v]
	if w == nil {
		w = warc.NewWriter(&rw.buf, warc.WriterOptions{Version: v, Gzip: true, Level: gzipLevel, MaxBuffer: maxRecordBuffer, Dedup: rw.dedup})
		rw.writers[v] = w
	}
	w.Reset(&rw.buf)
	return w
}

// rewrite returns the member that replaces member (target t), and the id of its
// record; ok is false when it is to be copied as it is: not a record that reads as
// the index says, a response in segments or marked truncated, a payload whose digest
// is not t's, or a revisit of a record not written as a revisit.
func (rw *teamRewriter) rewrite(member []byte, t teamTarget, revisited map[string]string) (out []byte, id string, ok bool) {
	rd, err := warc.NewReader(bytes.NewReader(member))
	if err != nil {
		return nil, "", false
	}
	rec, err := rd.Next()
	if err != nil || rec.BlockLength < 0 || rec.BlockLength > maxRecordBuffer || rec.Header.Has(warc.FieldSegmentNumber) || rec.Header.Has(warc.FieldTruncated) {
		return nil, "", false
	}
	block, err := io.ReadAll(io.LimitReader(rec.Block, rec.BlockLength+1))
	if err != nil || int64(len(block)) != rec.BlockLength {
		return nil, "", false
	}
	if _, err := rd.Next(); err != io.EOF {
		return nil, "", false // not one record in one member
	}
	orig := rw.known[t.digest].entry(t.digest)
	r := *rec
	r.Block = bytes.NewReader(block)
	switch {
	case !t.revisit && rec.Type == warc.TypeResponse:
		// Written as a revisit by the Writer itself (its Dedup), which checks the
		// payload's digest.
	case t.revisit && rec.Type == warc.TypeRevisit:
		related := rec.Header.Values(warc.FieldRelatedRecordID)
		if len(related) == 0 || revisited[related[0]] != t.digest || rec.Header.Get(warc.FieldPayloadDigest) != "sha1:"+t.digest {
			return nil, "", false
		}
		r.Header = rec.Header.Clone()
		for i, f := range r.Header {
			if strings.EqualFold(f.Name, warc.FieldRelatedRecordID) {
				r.Header[i].Value = orig.ID
				break
			}
		}
		r.Header.Set(warc.FieldRefersToTargetURI, orig.TargetURI)
		r.Header.Set(warc.FieldRefersToDate, orig.Date.UTC().Format(w3cDate))
	default:
		return nil, "", false
	}
	info, err := rw.writer(rec.Version).WriteRecord(&r)
	if err != nil || info.Type != warc.TypeRevisit || !t.revisit && info.RefersTo != orig.ID {
		return nil, "", false
	}
	return rw.buf.Bytes(), rec.ID, true
}

// indexTeamWARC indexes, as the session's index is made (pywb 2.6.7), the WARC written to
// the returned writer, in a goroutine; wait closes the writer and returns the lines,
// sorted as a bundle's .cdxj. Writes fail once the indexing has failed.
func indexTeamWARC(filename string) (w *io.PipeWriter, wait func() ([]byte, error)) {
	pr, pw := io.Pipe()
	type result struct {
		lines [][]byte
		err   error
	}
	done := make(chan result, 1)
	go func() {
		var lines [][]byte
		ix := &cdx.Indexer{Dialect: cdx.Pywb267, Workers: 1}
		err := ix.Index(pr, filename, func(e *cdx.Entry) error {
			lines = append(lines, bytes.TrimSuffix(e.AppendLine(nil, cdx.Pywb267), []byte("\n")))
			return nil
		})
		if err == nil {
			_, err = io.Copy(io.Discard, pr)
		}
		if err != nil {
			pr.CloseWithError(fmt.Errorf("indexing the WARC for the team archive: %w", err))
		} else {
			pr.Close()
		}
		done <- result{lines, err}
	}()
	return pw, func() ([]byte, error) {
		pw.Close()
		res := <-done
		if res.err != nil {
			return nil, fmt.Errorf("capture: indexing the WARC for the team archive: %w", res.err)
		}
		return sortedLines(res.lines), nil
	}
}

// sortedLines joins CDXJ lines sorted as CDXJ requires (by key, then timestamp, then
// the rest of the line), each ended by a newline.
func sortedLines(lines [][]byte) []byte {
	slices.SortStableFunc(lines, bytes.Compare)
	var out bytes.Buffer
	for _, l := range lines {
		out.Write(l)
		out.WriteByte('\n')
	}
	return out.Bytes()
}
