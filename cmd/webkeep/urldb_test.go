package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webkeep/webkeep/shared/urldb"
	"github.com/webkeep/webkeep/shared/warc"
)

// The real database (wwt_url_database, BSD), copied into shared/urldb/testdata.
const realURLDB = "../../shared/urldb/testdata/wwt-url-database"

// copyDB copies the .yaml files of a database into a fresh directory.
func copyDB(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	files, err := filepath.Glob(filepath.Join(src, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no database in %s: %v", src, err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func urldbRun(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = runURLDB(args, &out, &errb)
	return code, out.String(), errb.String()
}

// redirector answers every request with a 301 to /elsewhere, as binder does.
func redirector() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/elsewhere", http.StatusMovedPermanently)
	})
}

func hostOf(srv *httptest.Server) string {
	return strings.TrimPrefix(strings.TrimPrefix(srv.URL, "http://"), "https://")
}

// All 9 records of the real binder.wwt-forum.org are X-301-Redirect: checked
// against a server that redirects, the output is wwturldb's, line for line.
func TestURLDBCheckRealDomain(t *testing.T) {
	srv := httptest.NewServer(redirector())
	defer srv.Close()
	host := hostOf(srv)
	code, out, errOut := urldbRun("--db", realURLDB, "check", "-d", "binder.wwt-forum.org", "--map", "binder.wwt-forum.org="+host)
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var want strings.Builder
	db, err := urldb.LoadDir(realURLDB)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range db.Domain("binder.wwt-forum.org").Records {
		fmt.Fprintf(&want, "http://%s%s ... ok\n", host, r.Path)
	}
	want.WriteString("\nsuccess: 9 URLs validated\n")
	if out != want.String() {
		t.Errorf("stdout:\n%s\nwant:\n%s", out, want.String())
	}
}

// data1.wwtassets.org has https: true and one static record: it is checked over
// https (a TLS server, --insecure), and the served content is not the recorded one.
func TestURLDBCheckHTTPSStatic(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write([]byte("not the hubble tour"))
	}))
	defer srv.Close()
	host := hostOf(srv)
	code, out, errOut := urldbRun("--db", realURLDB, "check", "--insecure", "-d", "data1.wwtassets.org", "--map", "data1.wwtassets.org="+host)
	want := "https://" + host + "/packages/2020/07_hubble30/hubble30highlights.wtml ... " +
		"\x1b[1;31merror: content length changed from 83760 to 19\x1b[0m\n\n"
	if code != 1 || out != want || errOut != "error: found 1 broken URLs out of 1\n" {
		t.Errorf("exit %d\nstdout %q\nwant   %q\nstderr %q", code, out, want, errOut)
	}
}

// testSite serves one path per verdict; testDB is the database that describes it.
func testSite() http.Handler {
	body := []byte("static body\n")
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<p>home</p>")
	})
	mux.HandleFunc("/static.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write(body)
	})
	mux.HandleFunc("/changed.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("static BODY\n"))
	})
	mux.HandleFunc("/app.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-javascript")
		io.WriteString(w, "var x;")
	})
	mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/", http.StatusFound)
	})
	mux.HandleFunc("/gone", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "gone", http.StatusGone)
	})
	mux.HandleFunc("/raw", func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = nil
		io.WriteString(w, "raw")
	})
	return mux
}

func testDB(t *testing.T) string {
	sum := sha256.Sum256([]byte("static body\n"))
	digest := hex.EncodeToString(sum[:])
	dir := t.TempDir()
	text := "---\ncnames:\n- www.example.com\n---\n" +
		"_path: /\ncontent-type: text/html\n---\n" +
		"_path: /app.js\ncontent-type: application/javascript\n---\n" +
		"_path: /changed.txt\ncontent-length: 12\ncontent-sha256: " + digest + "\ncontent-type: text/plain\n---\n" +
		"_path: /dead\ncategories:\n- deprecated\ncontent-type: text/html\n---\n" +
		"_path: /gone\ncontent-type: text/html\n---\n" +
		"_path: /old\ncategories:\n- frontend\ncontent-type: X-301-Redirect\n---\n" +
		"_path: /raw\ncontent-type: text/plain\n---\n" +
		"_path: /static.txt\ncategories:\n- frontend\ncontent-length: 12\ncontent-sha256: " + digest + "\ncontent-type: text/plain\n"
	if err := os.WriteFile(filepath.Join(dir, "example.com.yaml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Every verdict, through the CLI, in wwturldb's words.
func TestURLDBCheckVerdicts(t *testing.T) {
	srv := httptest.NewServer(testSite())
	defer srv.Close()
	host := hostOf(srv)
	dir := testDB(t)
	code, out, errOut := urldbRun("--db", dir, "check", "--map", "example.com="+host)
	u := "http://" + host
	red := func(s string) string { return "\x1b[1;31merror: " + s + "\x1b[0m" }
	want := u + "/ ... ok\n" +
		u + "/app.js ... (ignoring JS content-type nit) ok\n" +
		u + "/changed.txt ... " + red("content SHA256 changed") + "\n" +
		u + "/gone ... " + red("HTTP 410") + "\n" +
		u + "/old ... " + red("expected X-301-Redirect; got X-302-Redirect") + "\n" +
		u + "/raw ... " + red("expected content-type text/plain; got no Content-Type header") + "\n" +
		u + "/static.txt ... ok\n\n"
	if code != 1 || out != want || errOut != "error: found 4 broken URLs out of 7\n" {
		t.Errorf("exit %d\nstdout:\n%s\nwant:\n%s\nstderr %q", code, out, want, errOut)
	}

	// Filters: category and path prefix; only passing URLs: exit 0.
	code, out, _ = urldbRun("--db", dir, "check", "--map", "example.com="+host, "-c", "frontend", "--path-prefix", "/s")
	if code != 0 || out != u+"/static.txt ... ok\n\nsuccess: 1 URLs validated\n" {
		t.Errorf("filtered: exit %d, %q", code, out)
	}

	// --json: one verdict per line, summary on stderr.
	code, out, errOut = urldbRun("--db", dir, "check", "--json", "--map", "example.com="+host, "--concurrency", "2", "--per-host", "1")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 1 || len(lines) != 7 || errOut != "error: found 4 broken URLs out of 7\n" {
		t.Fatalf("--json: exit %d, %d lines, stderr %q", code, len(lines), errOut)
	}
	var v urldb.Verdict
	if err := json.Unmarshal([]byte(lines[2]), &v); err != nil || v.OK || v.Code != urldb.CodeSHA256 || v.Domain != "example.com" || v.Path != "/changed.txt" {
		t.Errorf("--json line %q: %+v %v", lines[2], v, err)
	}
}

// A closed port is a verdict, not a crash; --cnames and --both-schemes add URLs.
func TestURLDBCheckNetworkAndAliases(t *testing.T) {
	srv := httptest.NewServer(testSite())
	host := hostOf(srv)
	srv.Close()
	dir := testDB(t)
	code, out, errOut := urldbRun("--db", dir, "check", "--json", "-c", "frontend", "--path-prefix", "/static",
		"--cnames", "--both-schemes", "--map", "example.com="+host, "--map", "www.example.com="+host, "--timeout", "2s")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 1 || len(lines) != 4 || errOut != "error: found 4 broken URLs out of 4\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	for i, want := range []string{"http://", "https://", "http://", "https://"} {
		var v urldb.Verdict
		if err := json.Unmarshal([]byte(lines[i]), &v); err != nil || !strings.HasPrefix(v.URL, want+host+"/static.txt") ||
			v.Code != urldb.CodeNetwork || !strings.HasPrefix(v.Problem, "fetch failed: ") {
			t.Errorf("line %d: %+v %v", i, v, err)
		}
	}
}

func TestURLDBCheckWARC(t *testing.T) {
	srv := httptest.NewServer(testSite())
	defer srv.Close()
	dir := testDB(t)
	name := filepath.Join(t.TempDir(), "check.warc.gz")
	code, _, _ := urldbRun("--db", dir, "check", "--warc", name, "--map", "example.com="+hostOf(srv))
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := warc.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	uris := map[string]bool{}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.Version != warc.V09 || rec.Type != warc.TypeResponse {
			t.Errorf("record %v %s", rec.Version, rec.Type)
		}
		block, _ := io.ReadAll(rec.Block)
		if rec.TargetURI == srv.URL+"/static.txt" && !bytes.HasSuffix(block, []byte("\r\n\r\nstatic body\n")) {
			t.Errorf("static.txt block %q", block)
		}
		uris[rec.TargetURI] = true
	}
	if len(uris) != 7 || !uris[srv.URL+"/gone"] {
		t.Errorf("archived %v", uris)
	}
}

func TestURLDBMapErrors(t *testing.T) {
	tests := []struct{ spec, want string }{
		{"example.com", `error: invalid "--map" specification 'example.com': should contain one equals sign` + "\n"},
		{"example.org=x", `error: invalid "--map" specification 'example.org=x': original domain name example.org not recognized` + "\n"},
	}
	dir := testDB(t)
	for _, tt := range tests {
		code, _, errOut := urldbRun("--db", dir, "check", "--map", tt.spec)
		if code != 1 || errOut != tt.want {
			t.Errorf("--map %s: exit %d, %q", tt.spec, code, errOut)
		}
	}
	if code, _, errOut := urldbRun("--db", dir, "check", "-d", "nope.org"); code != 1 || errOut != "error: illegal domain name 'nope.org'\n" {
		t.Errorf("-d nope.org: %d %q", code, errOut)
	}
}

func TestURLDBAdd(t *testing.T) {
	srv := httptest.NewServer(testSite())
	defer srv.Close()
	host := hostOf(srv)
	dir := copyDB(t, realURLDB)
	file := filepath.Join(dir, "worldwidetelescope.org.yaml")
	before, _ := os.ReadFile(file)

	// A new static page, through a cname and with a path to normalise.
	code, out, errOut := urldbRun("--db", dir, "add", "--static", "http://www.worldwidetelescope.org/x/../static.txt",
		"-c", "zeta", "--map", "worldwidetelescope.org="+host, "-c", "alpha")
	if code != 0 || out != "" || errOut != "" {
		t.Fatalf("add: exit %d, %q, %q", code, out, errOut)
	}
	after, _ := os.ReadFile(file)
	sum := sha256.Sum256([]byte("static body\n"))
	doc := "---\n_path: /static.txt\ncategories:\n- alpha\n- zeta\ncontent-length: 12\ncontent-sha256: " +
		hex.EncodeToString(sum[:]) + "\ncontent-type: text/plain\n"
	// It lands at its place in path order, the rest of the file unchanged.
	at := bytes.Index(before, []byte("---\n_path: /support\n"))
	if at < 0 {
		t.Fatal("fixture changed")
	}
	want := string(before[:at]) + doc + string(before[at:])
	if string(after) != want {
		t.Errorf("file after add differs")
	}

	// Again: already registered (wwturldb's warning, exit 0).
	code, _, errOut = urldbRun("--db", dir, "add", "http://worldwidetelescope.org/static.txt")
	if code != 0 || errOut != "warning: URL http://worldwidetelescope.org/static.txt already registered; doing nothing\n" {
		t.Errorf("again: %d %q", code, errOut)
	}
	// A redirect is stored as X-<code>-Redirect, --static ignored; no scheme: a warning.
	code, _, errOut = urldbRun("--db", dir, "add", "--static", "--map", "worldwidetelescope.org="+host, "worldwidetelescope.org/old")
	if code != 0 || errOut != "warning: prepending \"http://\" since I don't see a scheme and the URL parser is picky\n" {
		t.Errorf("redirect: %d %q", code, errOut)
	}
	db, _ := urldb.LoadDir(dir)
	if r := db.Domain("worldwidetelescope.org").Record("/old"); r == nil || r.ContentType != "X-302-Redirect" || r.Static() {
		t.Errorf("redirect record %+v", r)
	}
	// Failures.
	code, _, errOut = urldbRun("--db", dir, "add", "--map", "worldwidetelescope.org="+host, "http://worldwidetelescope.org/gone")
	if code != 1 || errOut != "error: failed to fetch http://"+host+"/gone: HTTP status 410\n" {
		t.Errorf("gone: %d %q", code, errOut)
	}
	code, _, errOut = urldbRun("--db", dir, "add", "http://example.org/")
	if code != 1 || errOut != "error: illegal domain name 'example.org' for URL 'http://example.org/'\n" {
		t.Errorf("unknown domain: %d %q", code, errOut)
	}
	if code, _, _ = urldbRun("--db", dir, "add"); code != 2 {
		t.Errorf("no URL: exit %d", code)
	}
}

func TestURLDBDumpURLs(t *testing.T) {
	code, out, _ := urldbRun("--db", realURLDB, "dump-urls")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	// 537 records, 23 of them deprecated (which wwturldb never lists).
	if code != 0 || len(lines) != 514 || lines[0] != "http://binder.wwt-forum.org/" {
		t.Errorf("exit %d, %d lines, first %q", code, len(lines), lines[0])
	}
	code, out, _ = urldbRun("dump-urls", "--db", realURLDB, "-d", "data1.wwtassets.org")
	if code != 0 || out != "https://data1.wwtassets.org/packages/2020/07_hubble30/hubble30highlights.wtml\n" {
		t.Errorf("https domain: %d %q", code, out)
	}
	if code, out, _ = urldbRun("--db", realURLDB, "dump-urls", "-c", "deprecated"); code != 0 || out != "" {
		t.Errorf("deprecated: %d %q", code, out)
	}
}

func TestURLDBFmt(t *testing.T) {
	dir := copyDB(t, realURLDB)
	if code, out, errOut := urldbRun("--db", dir, "fmt"); code != 0 || out != "" || errOut != "" {
		t.Errorf("real database: exit %d, %q, %q", code, out, errOut)
	}
	messy := "---\ncnames: [b.example.net, a.example.net]\n---\ncontent-type: text/html\n_path: /z\n---\n_path: /a\ncategories: [y, x, x]\ncontent-type: 'text/html'\n"
	name := filepath.Join(dir, "example.net.yaml")
	os.WriteFile(name, []byte(messy), 0o644)
	if code, out, _ := urldbRun("--db", dir, "fmt", "--check"); code != 1 || out != "example.net.yaml\n" {
		t.Errorf("--check: exit %d, %q", code, out)
	}
	if code, out, _ := urldbRun("--db", dir, "fmt"); code != 0 || out != "reformatted example.net.yaml\n" {
		t.Errorf("fmt: exit %d, %q", code, out)
	}
	got, _ := os.ReadFile(name)
	want := "---\ncnames:\n- a.example.net\n- b.example.net\n---\n_path: /a\ncategories:\n- x\n- y\ncontent-type: text/html\n---\n_path: /z\ncontent-type: text/html\n"
	if string(got) != want {
		t.Errorf("fmt wrote %q, want %q", got, want)
	}
	os.WriteFile(name, []byte("---\n---\n_path: /a\n"), 0o644)
	if code, _, errOut := urldbRun("--db", dir, "fmt"); code != 1 || !strings.Contains(errOut, "warning: example.net.yaml has errors; not rewriting it") {
		t.Errorf("broken file: exit %d, %q", code, errOut)
	}
}

func TestURLDBUsage(t *testing.T) {
	if code, out, _ := urldbRun(); code != 0 || !strings.HasPrefix(out, "Run me with --help for help.") {
		t.Errorf("no command: %d %q", code, out)
	}
	if code, _, _ := urldbRun("check", "--bogus"); code != 2 {
		t.Errorf("unknown flag: %d", code)
	}
	if code, _, _ := urldbRun("frobnicate"); code != 2 {
		t.Errorf("unknown command: %d", code)
	}
	if code, _, errOut := urldbRun("check", "-h"); code != 0 || !strings.Contains(errOut, "usage: webkeep urldb check") {
		t.Errorf("-h: %d %q", code, errOut)
	}
	for _, cmd := range []string{"check", "dump-urls", "fmt"} {
		if code, _, errOut := urldbRun(cmd, "stray"); code != 2 || !strings.Contains(errOut, "webkeep urldb "+cmd+": unrecognized arguments: stray") {
			t.Errorf("%s with an argument: %d %q", cmd, code, errOut)
		}
	}
}
