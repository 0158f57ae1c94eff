package main

import (
	"archive/zip"
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"mime"
	"os"
	"strconv"
	"strings"

	"github.com/webkeep/webkeep/shared/replay"
	"github.com/webkeep/webkeep/shared/search"
	"github.com/webkeep/webkeep/shared/warc"
)

const searchUsage = `usage: webkeep search [--limit N] FILE... [--] QUERY

Indexes the HTML, text, JSON and XML responses of the WARC (0.9, 1.0, 1.1,
gzip or plain) and WACZ files in memory and writes the matches of QUERY,
best first, one JSON line each: {"url", "ts", "title", "snippet", "file",
"offset"}, ts the 14-digit capture time, file and offset where the response
record starts (for a WACZ, "file.wacz#archive/name.warc.gz" and the offset in
that WARC). The last argument is the query, or what follows "--":

  words           all must be in the title or text ("Zurich" finds "Zürich")
  "a phrase"      its words in this order
  -word -"a b"    must not be there
  site:example.org  method:POST  status:404 | 4xx | 200-299
  from:2024-01-01  to:2024-06 (dates UTC, to: inclusive)  type:text/html

Exit status: 0 when something is found, 1 when nothing is (or a file could
not be read), 2 for a usage error or a query that does not parse.`

// maxSearchText bounds the text indexed of one response.
const maxSearchText = 4 << 20

// runSearch is "webkeep search".
func runSearch(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("webkeep search", flag.ContinueOnError)
	fs.SetOutput(stderr)
	limit := fs.Int("limit", 20, "the most results written (0: all)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, searchUsage)
		fs.PrintDefaults()
	}
	// The query may begin with a minus sign: it is the last argument, or what
	// follows "--", and is not read as a flag.
	var query string
	for i, a := range args {
		if a == "--" {
			query = strings.Join(args[i+1:], " ")
			args = args[:i]
			break
		}
	}
	if query == "" && len(args) > 0 {
		if last := args[len(args)-1]; last != "-h" && last != "-help" && last != "--help" {
			query, args = last, args[:len(args)-1]
		}
	}
	files, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	if len(files) == 0 || strings.TrimSpace(query) == "" || *limit < 0 {
		fs.Usage()
		return 2
	}
	q, err := search.ParseQuery(query)
	if err != nil {
		fmt.Fprintf(stderr, "webkeep search: %v\n", err)
		return 2
	}

	ix, err := search.Open(search.NewMemStore(), nil)
	if err != nil {
		fmt.Fprintf(stderr, "webkeep search: %v\n", err)
		return 1
	}
	s := &searcher{ix: ix, stderr: stderr}
	status := 0
	for _, name := range files {
		if err := s.addFile(name); err != nil {
			fmt.Fprintf(stderr, "webkeep search: %s: %v\n", name, err)
			status = 1
		}
	}
	res, err := ix.Search(q, *limit)
	if err != nil {
		fmt.Fprintf(stderr, "webkeep search: %v\n", err)
		return 1
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	for _, h := range res.Hits {
		ref := s.refs[refIndex(h.Ref)]
		line := searchLine{URL: h.URL, TS: h.Time.UTC().Format("20060102150405"), Title: h.Title,
			Snippet: h.Snippet, File: ref.file, Offset: ref.offset}
		if err := enc.Encode(line); err != nil {
			fmt.Fprintf(stderr, "webkeep search: %v\n", err)
			return 1
		}
	}
	if res.Total == 0 {
		return 1
	}
	return status
}

// searchLine is one line of "webkeep search".
type searchLine struct {
	URL     string `json:"url"`
	TS      string `json:"ts"`
	Title   string `json:"title"`
	Snippet string `json:"snippet"`
	File    string `json:"file"`
	Offset  int64  `json:"offset"`
}

// searcher indexes the responses of WARC files.
type searcher struct {
	ix     *search.Index
	stderr io.Writer
	refs   []recordRef // by Document.Ref, a decimal index
}

// recordRef is where a response record is.
type recordRef struct {
	file   string
	offset int64
}

func refIndex(ref string) int {
	i, _ := strconv.Atoi(ref)
	return i
}

// addFile indexes a WARC file, or the WARC files of a WACZ.
func (s *searcher) addFile(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	var magic [4]byte
	if _, err := io.ReadFull(f, magic[:]); err == nil && string(magic[:]) == "PK\x03\x04" {
		st, err := f.Stat()
		if err != nil {
			return err
		}
		zr, err := zip.NewReader(f, st.Size())
		if err != nil {
			return fmt.Errorf("WACZ: %w", err)
		}
		var errs []error
		for _, zf := range zr.File {
			if !strings.HasSuffix(zf.Name, ".warc") && !strings.HasSuffix(zf.Name, ".warc.gz") {
				continue
			}
			r, err := zf.Open()
			if err == nil {
				err = s.addWARC(r, name+"#"+zf.Name)
				r.Close()
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", zf.Name, err))
			}
		}
		return errors.Join(errs...)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	return s.addWARC(f, name)
}

// addWARC indexes the text responses of a WARC file. A response's method is its
// request's, found by the records' Related-Record-ID (WARC-Concurrent-To).
func (s *searcher) addWARC(r io.Reader, file string) error {
	wr, err := warc.NewReader(r)
	if err != nil {
		return err
	}
	wr.Reassemble(true)
	type pending struct {
		doc     search.Document
		id      string
		related []string
	}
	var docs []pending
	methods := map[string]string{} // by request record id and by the ids it relates to
	damaged := false
	for {
		rec, err := wr.Next()
		if err == io.EOF {
			break
		}
		var de *warc.DamageError
		if errors.As(err, &de) {
			fmt.Fprintf(s.stderr, "webkeep search: %s: %v\n", file, err)
			damaged = true
			continue
		}
		if err != nil {
			return err
		}
		related := relatedIDs(rec)
		switch rec.Type {
		case warc.TypeRequest:
			method := requestMethod(rec.Block)
			methods[rec.ID] = method
			for _, id := range related {
				methods[id] = method
			}
		case warc.TypeResponse:
			doc, ok, err := responseDoc(rec)
			if err != nil {
				fmt.Fprintf(s.stderr, "webkeep search: %s: record at offset %d: %v\n", file, rec.Offset, err)
			}
			if !ok {
				continue
			}
			s.refs = append(s.refs, recordRef{file, rec.Offset})
			doc.Session, doc.Ref = file, strconv.Itoa(len(s.refs)-1)
			docs = append(docs, pending{doc, rec.ID, related})
		}
	}
	for _, p := range docs {
		p.doc.Method = methods[p.id]
		for _, id := range p.related {
			if m, ok := methods[id]; ok && p.doc.Method == "" {
				p.doc.Method = m
			}
		}
		if p.doc.Method == "" {
			p.doc.Method = "GET"
		}
		if _, err := s.ix.Add(p.doc); err != nil {
			return err
		}
	}
	if damaged {
		return errors.New("damaged records were skipped")
	}
	return nil
}

// relatedIDs returns the record ids a record names as related (concurrent).
func relatedIDs(rec *warc.Record) []string {
	var ids []string
	for _, v := range rec.Header.Values(warc.FieldRelatedRecordID) {
		ids = append(ids, strings.Trim(strings.TrimSpace(v), "<>"))
	}
	return ids
}

// requestMethod reads the method of an HTTP request block.
func requestMethod(block io.Reader) string {
	line, err := bufio.NewReader(block).ReadString('\n')
	if err != nil && line == "" {
		return ""
	}
	method, _, _ := strings.Cut(line, " ")
	return strings.ToUpper(strings.TrimSpace(method))
}

// responseDoc reads an HTTP response record: its status, type and text. ok is
// false for a response that has no text to index, or whose body is in an
// encoding that cannot be undone (br, zstd).
func responseDoc(rec *warc.Record) (doc search.Document, ok bool, err error) {
	resp, err := replay.ReadResponse(rec)
	if err != nil {
		return doc, false, err
	}
	defer resp.Body.Close()
	ct := resp.Header.Get("Content-Type")
	if search.KindOf(ct) == search.KindNone {
		return doc, false, nil
	}
	if resp.Encoded() {
		return doc, false, nil
	}
	d, err := search.Extract(ct, resp.Body, maxSearchText)
	if err != nil {
		// What was read before the damage is still searchable.
		err = fmt.Errorf("body: %w", err)
	}
	mt, _, _ := mime.ParseMediaType(ct)
	return search.Document{URL: rec.TargetURI, Time: rec.Date, Status: resp.Status, Mime: mt, Title: d.Title, Text: d.Text},
		d.Text != "" || d.Title != "", err
}
