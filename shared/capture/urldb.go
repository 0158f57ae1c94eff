package capture

import (
	"archive/zip"
	"bytes"
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

	"github.com/webkeep/webkeep/shared/urldb"
	"github.com/webkeep/webkeep/shared/urlrules"
)

// urlDatabase is the URL database the user loaded: its domain files are kept in the
// store (under "urldb/"), so verdicts go on after a restart.
type urlDatabase struct {
	store    Store
	mu       sync.Mutex
	db       *urldb.Database
	problems []string
}

const urldbPrefix = "urldb/"

// DatabaseInfo describes the loaded URL database.
type DatabaseInfo struct {
	Loaded   bool         `json:"loaded"`
	Domains  []DomainInfo `json:"domains"`
	Records  int          `json:"records"`
	Problems []string     `json:"problems"`
	// Origins are the match patterns ("https://example.org/*") of the sites Check all
	// fetches: the host access the extension asks the user for before a check, so
	// that it can read sites that do not allow other origins to (CORS).
	Origins []string `json:"origins"`
}

// DomainInfo is one domain of the database.
type DomainInfo struct {
	Name    string `json:"name"`
	Records int    `json:"records"`
}

func loadURLDatabase(store Store) *urlDatabase {
	d := &urlDatabase{store: store}
	keys, err := store.Keys(urldbPrefix)
	if err != nil || len(keys) == 0 {
		return d
	}
	var files []urldb.File
	for _, k := range keys {
		b, err := store.Get(k)
		if err != nil {
			d.problems = append(d.problems, err.Error())
			continue
		}
		files = append(files, urldb.File{Name: strings.TrimPrefix(k, urldbPrefix), Data: b})
	}
	d.set(urldb.LoadFiles(files...))
	return d
}

// set takes a freshly loaded database and its problems.
func (d *urlDatabase) set(db *urldb.Database, err error) {
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
	info := DatabaseInfo{Loaded: d.db != nil && len(d.db.Domains) > 0, Domains: []DomainInfo{}, Problems: d.problems, Origins: []string{}}
	if info.Problems == nil {
		info.Problems = []string{}
	}
	if d.db != nil {
		for _, dom := range d.db.Domains {
			info.Domains = append(info.Domains, DomainInfo{Name: dom.Name, Records: len(dom.Records)})
			info.Records += len(dom.Records)
		}
		if entries, err := d.db.Select(urldb.Filter{}); err == nil {
			info.Origins = originPatterns(urldb.Targets(entries, urldb.TargetOptions{}))
		}
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
	if len(files) == 0 {
		return d.Info(), fmt.Errorf("no .yaml domain files were given: choose the database's folder, or a zip of it")
	}
	db, err := urldb.LoadFiles(files...)
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
	d.db, d.problems = nil, nil
	return d.store.Delete(urldbPrefix)
}

// rulesFor returns the URL rules kept in the metadata of a database domain under the
// registered domain (the first such domain file that has them), or "".
func (d *urlDatabase) rulesFor(registered string) string {
	d.mu.Lock()
	defer d.mu.Unlock()
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
// URL or, failing that, its canonical URL.
func (d *urlDatabase) check(ex *Exchange, canonical string) (urldb.Verdict, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.db == nil {
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
	if d.db == nil {
		return nil, fmt.Errorf("no URL database is loaded: load one on the options page")
	}
	return d.db.Select(urldb.Filter{})
}

// maxDatabaseUpload bounds what an upload of a database may weigh.
const maxDatabaseUpload = 256 << 20

// databaseFiles reads the domain files of an upload: a zip, or multipart/form-data
// with the files of a folder.
func databaseFiles(contentType string, body io.Reader) ([]urldb.File, error) {
	data, err := io.ReadAll(io.LimitReader(body, maxDatabaseUpload+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxDatabaseUpload {
		return nil, fmt.Errorf("the database is larger than %d MB", maxDatabaseUpload>>20)
	}
	mt, params, _ := mime.ParseMediaType(contentType)
	if strings.HasPrefix(mt, "multipart/") {
		mr := multipart.NewReader(bytes.NewReader(data), params["boundary"])
		var files []urldb.File
		for {
			part, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("reading the uploaded files: %w", err)
			}
			name := part.FileName()
			b, err := io.ReadAll(part)
			if err != nil {
				return nil, fmt.Errorf("reading the uploaded file %q: %w", name, err)
			}
			if strings.HasSuffix(name, ".yaml") {
				files = append(files, urldb.File{Name: path.Base(name), Data: b})
			}
		}
		return files, nil
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("the upload is neither a zip nor a folder of YAML files: %w", err)
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
	var files []urldb.File
	for _, f := range zr.File {
		if !strings.HasSuffix(f.Name, ".yaml") || strings.Count(f.Name, "/") != depth {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		b, err := io.ReadAll(io.LimitReader(rc, maxDatabaseUpload))
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		files = append(files, urldb.File{Name: path.Base(f.Name), Data: b})
	}
	return files, nil
}
