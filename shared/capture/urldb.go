package capture

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/url"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/shared/recorder"
	"github.com/webkeep/webkeep/shared/urldb"
	"github.com/webkeep/webkeep/shared/urlrules"
)

// urlDatabase is the URL database the user loaded: its domain files are kept in the
// store (under "urldb/"), so verdicts go on after a restart. A restarted core reads
// and parses them when the database is first used (ensure), not as it starts: most
// wakes of the service worker (the popup's status, a page's event) need no verdict, and
// parsing the published database's YAML made each of them wait (BENCHMARKS.md, "Core
// cold start in Chromium").
type urlDatabase struct {
	store    Store
	mu       sync.Mutex
	read     bool // the kept domain files were read, or the database was set since
	db       *urldb.Database
	problems []string
}

const urldbPrefix = "urldb/"

// DatabaseInfo describes the loaded URL database.
type DatabaseInfo = api.DatabaseInfo

// DomainInfo is one domain of the database.
type DomainInfo = api.DomainInfo

// loadURLDatabase returns the database whose domain files are kept in store; they are
// read when it is first used.
func loadURLDatabase(store Store) *urlDatabase {
	return &urlDatabase{store: store}
}

// ensure reads and parses the domain files kept in the store, the first time the
// database is used. d.mu is held.
func (d *urlDatabase) ensure() {
	if d.read {
		return
	}
	d.read = true
	keys, err := d.store.Keys(urldbPrefix)
	if err != nil {
		d.problems = append(d.problems, fmt.Sprintf("the kept URL database cannot be read (%v): load it again on the options page", err))
		return
	}
	if len(keys) == 0 {
		return
	}
	var files []urldb.File
	var unread []string
	for _, k := range keys {
		b, err := d.store.Get(k)
		if err != nil {
			unread = append(unread, fmt.Sprintf("%s: the kept file cannot be read (%v): load the database again on the options page", strings.TrimPrefix(k, urldbPrefix), err))
			continue
		}
		files = append(files, urldb.File{Name: strings.TrimPrefix(k, urldbPrefix), Data: b})
	}
	d.set(urldb.LoadFiles(files...))
	d.problems = append(unread, d.problems...)
}

// set takes a freshly loaded database and its problems. d.mu is held.
func (d *urlDatabase) set(db *urldb.Database, err error) {
	d.read = true
	d.db = db
	d.problems = nil
	var list urldb.ErrorList
	if errors.As(err, &list) {
		for _, e := range list {
			d.problems = append(d.problems, e.Error())
		}
	} else if err != nil {
		d.problems = append(d.problems, err.Error())
	}
}

// Info describes the database.
func (d *urlDatabase) Info() DatabaseInfo {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.ensure()
	info := DatabaseInfo{Loaded: d.db != nil && len(d.db.Domains) > 0, Domains: []DomainInfo{}, Problems: d.problems, Origins: []string{}}
	if info.Problems == nil {
		info.Problems = []string{}
	}
	if d.db != nil {
		for _, dom := range d.db.Domains {
			info.Domains = append(info.Domains, DomainInfo{Name: dom.Name, Records: len(dom.Records)})
			info.Records += len(dom.Records)
		}
		// Every record of a domain is checked on the same site: one record a domain
		// says which (a database of 500,000 records would otherwise make as many URLs).
		var targets []urldb.Target
		for _, dom := range d.db.Domains {
			for _, r := range dom.Records {
				if !r.Has(urldb.CategoryDeprecated) {
					targets = append(targets, urldb.Targets([]urldb.Entry{{Domain: dom, Record: r}}, urldb.TargetOptions{})...)
					break
				}
			}
		}
		info.Origins = originPatterns(targets)
	}
	return info
}

// originPatterns returns the match patterns of the sites of targets, each once,
// sorted: scheme and host, any port, any path.
func originPatterns(targets []urldb.Target) []string {
	seen := map[string]bool{}
	patterns := []string{}
	for _, t := range targets {
		u, err := url.Parse(t.URL)
		if err != nil || u.Hostname() == "" || (u.Scheme != "http" && u.Scheme != "https") {
			continue
		}
		host := u.Hostname()
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
		p := u.Scheme + "://" + host + "/*"
		if !seen[p] {
			seen[p] = true
			patterns = append(patterns, p)
		}
	}
	slices.Sort(patterns)
	return patterns
}

// Replace loads a new database from domain files and keeps them. Files that do not
// load are reported in the answer; the others are used.
func (d *urlDatabase) Replace(files []urldb.File) (DatabaseInfo, error) {
	return d.replace(context.Background(), files, nil)
}

// replace is Replace as a job: it gives the event loop a turn as it parses, reports
// the documents parsed to progress (if not nil), and stops, changing nothing, once
// ctx is done.
func (d *urlDatabase) replace(ctx context.Context, files []urldb.File, progress func(done, total int)) (DatabaseInfo, error) {
	if len(files) == 0 {
		return d.Info(), fmt.Errorf("no .yaml domain files were given: choose the database's folder, or a zip of it")
	}
	docs, parsed := 0, 0
	for _, f := range files {
		docs += bytes.Count(f.Data, []byte("\n---")) + 1
	}
	var p pacer
	loader := &urldb.Loader{Pause: func() error {
		if parsed++; progress != nil {
			progress(min(parsed, docs), docs)
		}
		p.pace()
		return ctx.Err()
	}}
	db, err := loader.LoadFiles(files...)
	if ctx.Err() != nil {
		return d.Info(), ctx.Err()
	}
	if db == nil {
		return d.Info(), err
	}
	d.mu.Lock()
	if derr := d.store.Delete(urldbPrefix); derr != nil {
		d.mu.Unlock()
		return d.Info(), derr
	}
	for _, f := range files {
		if !strings.HasSuffix(f.Name, ".yaml") {
			continue
		}
		if perr := d.store.Put(urldbPrefix+path.Base(f.Name), f.Data); perr != nil {
			d.mu.Unlock()
			return d.Info(), perr
		}
	}
	d.set(db, err)
	d.mu.Unlock()
	return d.Info(), nil
}

// Clear forgets the database.
func (d *urlDatabase) Clear() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.read, d.db, d.problems = true, nil, nil
	return d.store.Delete(urldbPrefix)
}

// rulesFor returns the URL rules kept in the metadata of a database domain under the
// registered domain (the first such domain file that has them), or "".
func (d *urlDatabase) rulesFor(registered string) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.ensure()
	if d.db == nil {
		return ""
	}
	for _, dom := range d.db.Domains {
		if host, r, err := urlrules.Host(dom.Name); err == nil && (r == registered || host == registered) {
			if v, ok := dom.Meta.Get(rulesMetaKey); ok {
				if s, ok := v.(string); ok && strings.TrimSpace(s) != "" {
					return s
				}
			}
		}
	}
	return ""
}

// check gives the verdict on an exchange whose URL the database lists, under its own
// URL or, failing that, its canonical URL. A 304 answer to the browser's
// revalidation of its cached copy gets none: it says nothing of the resource but that
// it did not change.
func (d *urlDatabase) check(ex *recorder.Exchange, canonical string) (urldb.Verdict, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.ensure()
	if d.db == nil || ex.Status == 304 {
		return urldb.Verdict{}, false
	}
	dom, rec, ok := d.db.Lookup(ex.URL)
	if (!ok || rec == nil) && canonical != "" && canonical != ex.URL {
		dom, rec, ok = d.db.Lookup(canonical)
	}
	if !ok || rec == nil {
		return urldb.Verdict{}, false
	}
	if ex.Status == 0 {
		return urldb.Verdict{URL: ex.URL, Domain: dom.Name, Path: rec.Path, Code: urldb.CodeNetwork, Problem: ex.Failure}, true
	}
	resp := urldb.Response{Status: ex.Status, Header: ex.RespHeader.HTTPHeader(), Length: ex.BodyLen()}
	if ex.RespTruncated != "" || ex.RespNote != "" {
		resp.Length = -1 // the body we have is not the whole body
	} else if len(rec.ContentSHA256) > 0 {
		// Only a static record needs the digest; a spooled body is read again for it.
		sum, err := ex.BodySHA256()
		if err != nil {
			resp.Length = -1
		}
		resp.SHA256 = sum
	}
	v := urldb.CheckResponse(rec, resp)
	v.URL = ex.URL
	v.Domain, v.Path = dom.Name, rec.Path
	return v, true
}

// Add makes a record from an archived response and keeps the changed domain file.
func (d *urlDatabase) Add(rawURL string, resp urldb.Response, categories []string, static bool) (*urldb.Record, string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.ensure()
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return nil, "", fmt.Errorf("cannot add %q: not an absolute URL", rawURL)
	}
	if d.db == nil {
		d.db = &urldb.Database{}
	}
	dom, p, err := d.db.Normalize(rawURL)
	if err != nil || dom == nil {
		dom = d.db.AddDomain(u.Hostname())
		if _, p, err = d.db.Normalize(rawURL); err != nil {
			return nil, "", fmt.Errorf("cannot add %q: %w", rawURL, err)
		}
	}
	rec, err := urldb.NewRecord(p, resp, static)
	if err != nil {
		return nil, "", fmt.Errorf("cannot add %s: %w", rawURL, err)
	}
	for _, c := range categories {
		if c = strings.TrimSpace(c); c != "" {
			rec.AddCategory(c)
		}
	}
	dom.Insert(rec)
	if err := d.store.Put(urldbPrefix+dom.Name+".yaml", dom.Encode()); err != nil {
		return nil, "", err
	}
	return rec, dom.Name, nil
}

// WriteZip writes the database as a zip of domain files, as wwturldb writes them.
func (d *urlDatabase) WriteZip(w io.Writer) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.ensure()
	zw := zip.NewWriter(w)
	if d.db != nil {
		for _, dom := range d.db.Domains {
			f, err := zw.Create(dom.Name + ".yaml")
			if err != nil {
				return err
			}
			if _, err := f.Write(dom.Encode()); err != nil {
				return err
			}
		}
	}
	return zw.Close()
}

// Entries returns the records to check, as wwturldb's check selects them.
func (d *urlDatabase) Entries() ([]urldb.Entry, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.ensure()
	if d.db == nil {
		return nil, fmt.Errorf("no URL database is loaded: load one on the options page")
	}
	return d.db.Select(urldb.Filter{})
}

// The limits of a URL database upload. The parsed database is held in the core's
// memory, which in the browser never shrinks: tens of MB of YAML load, a zip that
// inflates past them is refused.
const (
	// maxDatabaseUpload bounds the upload itself: a zip, or a folder's files.
	maxDatabaseUpload = 256 << 20
	// maxDatabaseBytes bounds the domain files in total, as a zip inflates them: about
	// 270,000 records shaped like the real database's.
	maxDatabaseBytes = 32 << 20
	// maxDatabaseFiles bounds how many domain files a database has.
	maxDatabaseFiles = 20000
)

// databaseFiles reads the domain files of an upload of size bytes named name: a zip,
// or multipart/form-data with the files of a folder. Past a limit it fails with an
// error that names the limit, the upload and the file it was reached at.
func databaseFiles(ctx context.Context, name, contentType string, upload io.ReaderAt, size int64) ([]urldb.File, error) {
	var files []urldb.File
	var total int64
	// add reads one domain file within what the limits leave.
	add := func(file string, r io.Reader) error {
		if len(files) == maxDatabaseFiles {
			return fmt.Errorf("%s: %s: more than %d domain files, the most a database may have", name, file, maxDatabaseFiles)
		}
		b, err := io.ReadAll(io.LimitReader(&jobReader{r: r, ctx: ctx}, maxDatabaseBytes-total+1))
		if err != nil {
			return fmt.Errorf("%s: %s: %w", name, file, err)
		}
		if total += int64(len(b)); total > maxDatabaseBytes {
			return fmt.Errorf("%s: %s: the domain files come to more than %d MiB, the most a database may hold", name, file, maxDatabaseBytes>>20)
		}
		files = append(files, urldb.File{Name: path.Base(file), Data: b})
		return ctx.Err()
	}
	mt, params, _ := mime.ParseMediaType(contentType)
	if strings.HasPrefix(mt, "multipart/") {
		mr := multipart.NewReader(io.NewSectionReader(upload, 0, size), params["boundary"])
		for {
			part, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("%s: reading the uploaded files: %w", name, err)
			}
			if file := part.FileName(); strings.HasSuffix(file, ".yaml") {
				if err := add(file, part); err != nil {
					return nil, err
				}
			}
		}
		return files, nil
	}
	zr, err := zip.NewReader(upload, size)
	if err != nil {
		return nil, fmt.Errorf("%s: the upload is neither a zip nor a folder of YAML files: %w", name, err)
	}
	// The shallowest directory holding .yaml files is the database.
	depth := -1
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, ".yaml") {
			if n := strings.Count(f.Name, "/"); depth < 0 || n < depth {
				depth = n
			}
		}
	}
	for _, f := range zr.File {
		if !strings.HasSuffix(f.Name, ".yaml") || strings.Count(f.Name, "/") != depth {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", name, f.Name, err)
		}
		err = add(f.Name, rc)
		rc.Close()
		if err != nil {
			return nil, err
		}
	}
	return files, nil
}
