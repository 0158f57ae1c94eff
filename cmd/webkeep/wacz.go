package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/webkeep/webkeep/shared/cdx"
	"github.com/webkeep/webkeep/shared/wacz"
	"github.com/webkeep/webkeep/shared/waczauth"
	"github.com/webkeep/webkeep/shared/warc"
)

const waczUsage = `usage: webkeep wacz create -o OUT.wacz [flags] FILE...
       webkeep wacz verify [--key KEY] FILE.wacz
       webkeep wacz sign --key KEY.pem IN.wacz OUT.wacz
       webkeep wacz keygen -o KEY.pem [--pub PUBLIC.pem]

create packs WARC files into a WACZ 1.1.1 file that ReplayWeb.page opens: the
WARCs under archive/ (WARC 0.9 files are converted to WARC/1.1 first, since
replay tools read only 1.x), their CDXJ index, pages/pages.jsonl and
datapackage.json (--key KEY.pem signs it).

verify checks every file, WARC record and index line of a WACZ, the hash of
datapackage.json and its signature; sign signs a WACZ with a key keygen made
(WACZ signing 0.1.0, anonymous form: ECDSA P-384, SHA-256, as ReplayWeb.page
checks it).
`

// runWACZ dispatches the wacz subcommands.
func runWACZ(args []string, stdout, stderr io.Writer) int {
	usage := func(w io.Writer) { fmt.Fprint(w, waczUsage) }
	return dispatch("wacz", usage, subcommands{"create": waczCreate, "verify": waczVerify, "sign": waczSign, "keygen": waczKeygen}, args, stdout, stderr)
}

func waczCreate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("webkeep wacz create", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "the WACZ `file` to write (must end in .wacz)")
	pagesFile := fs.String("pages", "", "a pages.jsonl `file` listing the pages (url, ts, title, ...)")
	detect := fs.Bool("detect-pages", true, "without --pages, list every HTML GET response with status 200 as a page")
	title := fs.String("title", "", "the collection's `title`")
	desc := fs.String("description", "", "the collection's description (Markdown)")
	keyFile := fs.String("key", "", "sign the WACZ with the private key in this `file` (PEM, as webkeep wacz keygen writes it)")
	dialect := dialectFlag{cdx.WarcioJS}
	fs.Var(&dialect, "dialect", "`dialect` of the index's POST keys and requestBody: warcio.js (the keys ReplayWeb.page looks POSTs and PUTs up under), pywb-2.6.7 or pywb-2.8")
	fs.Usage = func() {
		fmt.Fprint(stderr, waczUsage, "\nflags:\n")
		fs.PrintDefaults()
	}
	files, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	if *out == "" || !strings.HasSuffix(*out, ".wacz") || len(files) == 0 {
		fmt.Fprintln(stderr, "webkeep wacz create: need -o OUT.wacz and at least one WARC file")
		fs.Usage()
		return 2
	}
	c := &waczCreator{
		dialect: dialect.d,
		detect:  *detect && *pagesFile == "",
		stderr:  stderr,
		names:   map[string]string{},
		seen:    map[string]bool{},
	}
	c.cw = cdx.NewWriter(&c.index, c.dialect)
	defer c.cleanup()
	if *pagesFile != "" {
		pages, err := readPages(*pagesFile)
		if err != nil {
			fmt.Fprintf(stderr, "webkeep wacz create: %v\n", err)
			return 1
		}
		c.pages = pages
	}
	for _, f := range files {
		if err := c.add(f, filepath.Dir(*out)); err != nil {
			fmt.Fprintf(stderr, "webkeep wacz create: %v\n", err)
			return 1
		}
	}
	opts := wacz.Options{Title: *title, Description: *desc}
	if *keyFile != "" {
		key, err := readPrivateKey(*keyFile)
		if err == nil {
			opts.Signer, err = waczauth.NewSigner(key)
		}
		if err != nil {
			fmt.Fprintf(stderr, "webkeep wacz create: --key: %v\n", err)
			return 1
		}
	}
	if err := c.write(*out, opts); err != nil {
		fmt.Fprintf(stderr, "webkeep wacz create: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s: %d WARC files (%d converted from WARC 0.9), %d index lines, %d pages\n",
		*out, len(c.warcs), c.converted, c.lines, len(c.pages))
	if c.damaged {
		// The WACZ holds what could be read; the input was bad all the same.
		return 1
	}
	return 0
}

// waczCreator gathers the WARC files, their index and the pages of a WACZ.
type waczCreator struct {
	dialect cdx.Dialect
	detect  bool
	stderr  io.Writer

	warcs     []waczWARC
	names     map[string]string // archive name -> input file
	tmp       string            // directory of converted files
	converted int
	index     bytes.Buffer
	cw        *cdx.Writer
	lines     int
	pages     []wacz.Page
	seen      map[string]bool // URLs of detected pages
	damaged   bool            // an input had damaged records, left out
}

// waczWARC is one WARC file going into the WACZ.
type waczWARC struct {
	name string // under archive/
	path string // on disk: the input, or its WARC/1.1 conversion
}

// add takes the WARC file in: converts it to WARC/1.1 (in a temporary directory
// under dir) if it is WARC 0.9, and indexes it.
func (c *waczCreator) add(in, dir string) error {
	version, gz, err := warcVersion(in)
	if err != nil {
		return err
	}
	stem := archiveStem(filepath.Base(in))
	w := waczWARC{name: stem + ".warc", path: in}
	if gz || version == warc.V09 {
		w.name += ".gz"
	}
	if prev, dup := c.names[w.name]; dup {
		return fmt.Errorf("%s and %s would both be archive/%s", prev, in, w.name)
	}
	if version == warc.V09 {
		if c.tmp == "" {
			if c.tmp, err = os.MkdirTemp(dir, ".wacz-"); err != nil {
				return err
			}
		}
		w.path = filepath.Join(c.tmp, w.name)
		if err := convertFile(in, w.path, warc.V11, true); err != nil {
			return err
		}
		c.converted++
	}
	c.names[w.name] = in
	c.warcs = append(c.warcs, w)

	f, err := os.Open(w.path)
	if err != nil {
		return err
	}
	defer f.Close()
	ix := &cdx.Indexer{Dialect: c.dialect, Problems: func(err error) {
		// The error names the file (its archive name) and the damaged range.
		fmt.Fprintf(c.stderr, "webkeep wacz create: %s: %v\n", in, errors.Unwrap(err))
		c.damaged = true
	}}
	return ix.Index(f, w.name, func(e *cdx.Entry) error {
		c.lines++
		if c.detect && isPage(e) && !c.seen[e.URL] {
			ts, err := time.Parse("20060102150405", e.Timestamp)
			if err == nil {
				c.seen[e.URL] = true
				c.pages = append(c.pages, wacz.Page{URL: e.URL, TS: ts})
			}
		}
		return c.cw.Write(e)
	})
}

// isPage reports whether an index entry is a page a person would open: an HTML
// response to a GET with status 200.
func isPage(e *cdx.Entry) bool {
	return e.Status == "200" && e.Method == "" && (e.Mime == "text/html" || e.Mime == "application/xhtml+xml")
}

// warcVersion returns the version of the first record of a WARC file and
// whether the file is gzip-compressed.
func warcVersion(name string) (warc.Version, bool, error) {
	f, err := os.Open(name)
	if err != nil {
		return 0, false, err
	}
	defer f.Close()
	r, err := warc.NewReader(f)
	if err != nil {
		return 0, false, fmt.Errorf("%s: %w", name, err)
	}
	rec, err := r.Next()
	if err != nil {
		if err == io.EOF {
			err = errors.New("no WARC record")
		}
		return 0, false, fmt.Errorf("%s: %w", name, err)
	}
	return rec.Version, r.Gzip(), nil
}

// archiveStem returns the name of a WARC file without its .warc, .warc.gz or .gz
// extension, with any character a WACZ name may not hold replaced by '-'.
func archiveStem(base string) string {
	for _, ext := range []string{".gz", ".warc"} {
		base = strings.TrimSuffix(base, ext)
	}
	b := []byte(base)
	for i, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			b[i] = '-'
		}
	}
	if len(b) == 0 || b[0] == '.' {
		b = append([]byte("warc"), b...)
	}
	return string(b)
}

// write writes the WACZ to out through a temporary file beside it, so that a
// failure leaves no partial file.
func (c *waczCreator) write(out string, opts wacz.Options) error {
	if err := c.cw.Close(); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), ".wacz-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	tmp.Chmod(0o644)
	bw := bufio.NewWriterSize(tmp, 1<<20)
	w := wacz.NewWriter(bw, opts)
	for _, a := range c.warcs {
		f, err := os.Open(a.path)
		if err != nil {
			tmp.Close()
			return err
		}
		err = w.AddWARC(a.name, f)
		f.Close()
		if err != nil {
			tmp.Close()
			return err
		}
	}
	err = w.AddIndex(c.index.Bytes())
	if err == nil {
		err = w.AddPages(c.pages)
	}
	if err == nil {
		err = w.Close()
	}
	return commitFile(tmp, bw, out, err)
}

// cleanup removes the converted files.
func (c *waczCreator) cleanup() {
	if c.tmp != "" {
		os.RemoveAll(c.tmp)
	}
}

// pageInput is a line of a pages.jsonl file: a page, or the header line, which
// has "format".
type pageInput struct {
	Format    string `json:"format"`
	ID        string `json:"id"`
	URL       string `json:"url"`
	TS        string `json:"ts"`
	Timestamp string `json:"timestamp"` // 14 digits, as py-wacz also reads
	Title     string `json:"title"`
	Text      string `json:"text"`
	Size      int64  `json:"size"`
}

// readPages reads a pages.jsonl file: JSON lines with url and ts (RFC 3339) or
// timestamp (14 digits); a header line is skipped.
func readPages(name string) ([]wacz.Page, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var pages []wacz.Page
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var in pageInput
		if err := json.Unmarshal(sc.Bytes(), &in); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, line, err)
		}
		if in.Format != "" {
			continue
		}
		if in.URL == "" {
			return nil, fmt.Errorf("%s:%d: no url", name, line)
		}
		p := wacz.Page{ID: in.ID, URL: in.URL, Title: in.Title, Text: in.Text, Size: in.Size}
		switch {
		case in.TS != "":
			p.TS, err = time.Parse(time.RFC3339Nano, in.TS)
		case in.Timestamp != "":
			p.TS, err = time.Parse("20060102150405", in.Timestamp)
		default:
			err = errors.New("no ts")
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: ts: %v", name, line, err)
		}
		pages = append(pages, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return pages, nil
}

// commitFile ends a file written through bw to tmp, beside out: unless writing it
// failed (err), the buffer is flushed, tmp closed and renamed to out, so that out is
// never seen half written.
func commitFile(tmp *os.File, bw *bufio.Writer, out string, err error) error {
	if err == nil {
		err = bw.Flush()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), out)
}
