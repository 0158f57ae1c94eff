package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/webkeep/webkeep/internal/pyfmt"
	"github.com/webkeep/webkeep/shared/urldb"
	"github.com/webkeep/webkeep/shared/warc"
)

// runURLDB is `webkeep urldb`: a drop-in for wwturldb's add, check and
// dump-urls (same arguments, messages and exit codes), with --db, fmt, and a
// concurrent check.
func runURLDB(args []string, stdout, stderr io.Writer) int {
	u := &urldbCmd{stdout: stdout, stderr: stderr}
	fs := flag.NewFlagSet("urldb", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&u.db, "db", "", "database directory (default: ./db, ./wwt_url_database/db or .)")
	fs.Usage = func() { u.usage(fs) }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() == 0 {
		// As wwturldb run without a subcommand.
		fmt.Fprint(stdout, "Run me with --help for help. Allowed subcommands are:\n\n")
		for _, c := range []string{"add", "check", "dump-urls", "fmt"} {
			fmt.Fprintln(stdout, "   ", c)
		}
		return 0
	}
	sub, rest := fs.Arg(0), fs.Args()[1:]
	var code int
	switch sub {
	case "add":
		code = u.add(rest)
	case "check":
		code = u.check(rest)
	case "dump-urls":
		code = u.dumpURLs(rest)
	case "fmt":
		code = u.fmt(rest)
	default:
		fmt.Fprintf(stderr, "webkeep urldb: invalid choice: %q (choose from 'add', 'check', 'dump-urls', 'fmt')\n", sub)
		return 2
	}
	if code == 0 && u.damaged {
		// The command did its work on the rest; a file it could not read is bad input.
		return 1
	}
	return code
}

type urldbCmd struct {
	stdout, stderr io.Writer
	db             string
	// damaged is set when a database file had errors: the command goes on
	// with the rest, warns, and exits 1.
	damaged bool
}

func (u *urldbCmd) usage(fs *flag.FlagSet) {
	fmt.Fprint(u.stderr, `usage: webkeep urldb [--db DIR] <command> [arguments]

Keep and check a URL database in the format of wwturldb.

commands:
  add [--static] [-c CATEGORY]... URL     record a URL
  check [--map ORIG=ALIAS]... [-c CATEGORY] [-d DOMAIN] [--path-prefix P]
        [--concurrency N] [--per-host N] [--timeout D] [--json]
        [--cnames] [--both-schemes] [--warc FILE] [--insecure]
                                          check every URL of the database
  dump-urls [-c CATEGORY] [-d DOMAIN] [--path-prefix P]
                                          print the URLs
  fmt [--check]                           rewrite the files canonically

Run 'webkeep urldb <command> -h' for a command's arguments.

flags:
`)
	fs.PrintDefaults()
}

func (u *urldbCmd) warn(format string, args ...any) {
	fmt.Fprintf(u.stderr, "warning: "+format+"\n", args...)
}

// die prints an error as wwturldb does and returns its exit code.
func (u *urldbCmd) die(format string, args ...any) int {
	fmt.Fprintf(u.stderr, "error: "+format+"\n", args...)
	return 1
}

// dir returns the database directory: --db, else the first of ./db and
// ./wwt_url_database/db that exists, else the current directory.
func (u *urldbCmd) dir() string {
	if u.db != "" {
		return u.db
	}
	for _, d := range []string{"db", filepath.Join("wwt_url_database", "db")} {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return d
		}
	}
	return "."
}

// load loads the database; problems in files are warnings, the rest loads.
func (u *urldbCmd) load() (*urldb.Database, bool) {
	dir := u.dir()
	db, err := urldb.LoadDir(dir)
	var list urldb.ErrorList
	switch {
	case errors.As(err, &list):
		u.damaged = true
		for _, e := range list {
			u.warn("%v", e)
		}
	case err != nil:
		u.die("%s: %v", dir, err)
		return nil, false
	}
	return db, true
}

// urldbStrings is a repeatable string flag.
type urldbStrings []string

func (s *urldbStrings) String() string     { return strings.Join(*s, ",") }
func (s *urldbStrings) Set(v string) error { *s = append(*s, v); return nil }

// urldbParseArgs parses flags anywhere among the arguments, as Python's argparse
// does, and returns the positional ones.
func urldbParseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
}

func urldbFlagSet(u *urldbCmd, name, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet("urldb "+name, flag.ContinueOnError)
	fs.SetOutput(u.stderr)
	fs.StringVar(&u.db, "db", u.db, "database directory")
	fs.Usage = func() {
		fmt.Fprintf(u.stderr, "usage: webkeep urldb %s %s\n\nflags:\n", name, usage)
		fs.PrintDefaults()
	}
	return fs
}

// urldbParseFlagsOnly parses the flags of a subcommand that takes no other argument.
// When it reports false, the subcommand exits with code: 0 after -h, 2 after a usage
// error, which has been told.
func urldbParseFlagsOnly(u *urldbCmd, fs *flag.FlagSet, args []string) (code int, ok bool) {
	pos, err := urldbParseArgs(fs, args)
	if err != nil {
		return urldbParseExit(err), false
	}
	if len(pos) > 0 {
		fmt.Fprintf(u.stderr, "webkeep %s: unrecognized arguments: %s\n", fs.Name(), strings.Join(pos, " "))
		return 2, false
	}
	return 0, true
}

func urldbParseExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	return 2
}

// urldbFilterFlags adds wwturldb's record filters.
func urldbFilterFlags(fs *flag.FlagSet, f *urldb.Filter) {
	for _, name := range []string{"category", "c"} {
		fs.StringVar(&f.Category, name, "", "only consider records tagged with the specified `category`")
	}
	for _, name := range []string{"domain", "d"} {
		fs.StringVar(&f.Domain, name, "", "only consider the specified `domain`")
	}
	fs.StringVar(&f.PathPrefix, "path-prefix", "", "only consider paths starting with the specified `prefix`")
}

// maps parses --map ORIGINAL=ALIAS as wwturldb does; the original may also be
// a cname (wwturldb takes primary names only).
func (u *urldbCmd) maps(db *urldb.Database, specs []string) (map[string]string, int) {
	m := map[string]string{}
	for _, spec := range specs {
		orig, alias, ok := strings.Cut(spec, "=")
		if !ok {
			return nil, u.die(`invalid "--map" specification %s: should contain one equals sign`, pyfmt.Repr(spec))
		}
		if db.Domain(orig) == nil {
			return nil, u.die(`invalid "--map" specification %s: original domain name %s not recognized`, pyfmt.Repr(spec), orig)
		}
		m[orig] = alias
	}
	return m, 0
}

func (u *urldbCmd) dumpURLs(args []string) int {
	var f urldb.Filter
	fs := urldbFlagSet(u, "dump-urls", "[-c CATEGORY] [-d DOMAIN] [--path-prefix PREFIX]")
	urldbFilterFlags(fs, &f)
	if code, ok := urldbParseFlagsOnly(u, fs, args); !ok {
		return code
	}
	db, ok := u.load()
	if !ok {
		return 1
	}
	entries, err := db.Select(f)
	if err != nil {
		return u.die("%v", err)
	}
	var b bytes.Buffer
	for _, e := range entries {
		b.WriteString(e.Domain.URL(e.Record))
		b.WriteByte('\n')
	}
	u.stdout.Write(b.Bytes())
	return 0
}

func (u *urldbCmd) add(args []string) int {
	var static, insecure bool
	var cats, mapSpecs urldbStrings
	timeout := urldb.DefaultTimeout
	fs := urldbFlagSet(u, "add", "[--static] [-c CATEGORY]... URL")
	fs.BoolVar(&static, "static", false, "indicate that this URL should return static, unchanging content")
	fs.Var(&cats, "category", "mark the URL as belonging to the specified `category` (repeatable)")
	fs.Var(&cats, "c", "short for --category")
	fs.Var(&mapSpecs, "map", "fetch from `ORIGINAL=ALIAS` instead of the domain ORIGINAL (repeatable)")
	fs.DurationVar(&timeout, "timeout", timeout, "give up on the URL after this `duration`")
	fs.BoolVar(&insecure, "insecure", false, "do not verify TLS certificates")
	pos, err := urldbParseArgs(fs, args)
	if err != nil {
		return urldbParseExit(err)
	}
	if len(pos) != 1 {
		fs.Usage()
		fmt.Fprintln(u.stderr, "webkeep urldb add: exactly one URL is required")
		return 2
	}
	raw := pos[0]
	rawURL := raw
	if !strings.HasPrefix(rawURL, "http") {
		u.warn(`prepending "http://" since I don't see a scheme and the URL parser is picky`)
		rawURL = "http://" + rawURL
	}
	db, ok := u.load()
	if !ok {
		return 1
	}
	maps, code := u.maps(db, mapSpecs)
	if code != 0 {
		return code
	}
	d, path, err := db.Normalize(rawURL)
	if err != nil {
		return u.die("%v", err)
	}
	if d.Record(path) != nil {
		u.warn("URL %s already registered; doing nothing", raw)
		return 0
	}
	if d.Incomplete {
		return u.die("%s.yaml has errors (see the warnings); not rewriting it", d.Name)
	}
	targets := urldb.Targets([]urldb.Entry{{Domain: d, Record: &urldb.Record{Path: path}}}, urldb.TargetOptions{Map: maps})
	fetchURL := targets[0].URL
	c := &urldb.Checker{Insecure: insecure}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	resp, err := urldb.Fetch(ctx, c.HTTPClient(), fetchURL, "", static, nil)
	if err != nil {
		return u.die("failed to fetch %s: %v", fetchURL, err)
	}
	rec, err := urldb.NewRecord(path, resp, static)
	if err != nil {
		return u.die("failed to fetch %s: %s", fetchURL, strings.TrimPrefix(err.Error(), urldb.ErrAdd.Error()+": "))
	}
	for _, cat := range cats {
		rec.AddCategory(cat)
	}
	d.Insert(rec)
	if err := urldb.WriteFile(u.dir(), d); err != nil {
		return u.die("%v", err)
	}
	return 0
}

func (u *urldbCmd) check(args []string) int {
	var f urldb.Filter
	var mapSpecs urldbStrings
	var jsonOut, cnames, bothSchemes, insecure, noProgress bool
	var warcFile string
	c := &urldb.Checker{}
	fs := urldbFlagSet(u, "check", "[--map ORIGINAL=ALIAS]... [-c CATEGORY] [-d DOMAIN] [--path-prefix PREFIX] [flags]")
	fs.Var(&mapSpecs, "map", "rewrite requests for the domain `ORIGINAL=ALIAS` to point to ALIAS instead (repeatable)")
	urldbFilterFlags(fs, &f)
	fs.IntVar(&c.Concurrency, "concurrency", urldb.DefaultConcurrency, "`requests` in flight at once")
	fs.IntVar(&c.PerHost, "per-host", urldb.DefaultPerHost, "`requests` in flight at once to one host")
	fs.DurationVar(&c.Timeout, "timeout", urldb.DefaultTimeout, "give up on a URL after this `duration`")
	fs.BoolVar(&jsonOut, "json", false, "print one JSON verdict per line instead of wwturldb's lines")
	fs.BoolVar(&cnames, "cnames", false, "also check every cname of each domain")
	fs.BoolVar(&bothSchemes, "both-schemes", false, "check over both http and https")
	fs.StringVar(&warcFile, "warc", "", "archive every response fetched to this WARC 0.9 `file` (gzip if it ends in .gz)")
	fs.BoolVar(&insecure, "insecure", false, "do not verify TLS certificates")
	fs.BoolVar(&noProgress, "no-progress", false, "no progress line, even on a terminal")
	if code, ok := urldbParseFlagsOnly(u, fs, args); !ok {
		return code
	}
	if c.Concurrency < 1 || c.PerHost < 1 || c.Timeout <= 0 {
		fmt.Fprintln(u.stderr, "webkeep urldb check: --concurrency, --per-host and --timeout must be positive")
		return 2
	}
	c.Insecure = insecure
	db, ok := u.load()
	if !ok {
		return 1
	}
	maps, code := u.maps(db, mapSpecs)
	if code != 0 {
		return code
	}
	entries, err := db.Select(f)
	if err != nil {
		return u.die("%v", err)
	}
	targets := urldb.Targets(entries, urldb.TargetOptions{CNAMEs: cnames, BothSchemes: bothSchemes, Map: maps})

	if warcFile != "" {
		out, err := os.Create(warcFile)
		if err != nil {
			return u.die("%v", err)
		}
		defer out.Close()
		ww := warc.NewWriter(out, warc.WriterOptions{Version: warc.V09, Gzip: strings.HasSuffix(warcFile, ".gz")})
		defer ww.Close()
		c.Archive = func(ex *urldb.Exchange) error { return urldbArchive(ww, ex) }
	}
	if term, ok := u.stderr.(*os.File); ok && !noProgress && urldbIsTerminal(term) {
		last := time.Time{}
		c.Progress = func(done, total int) {
			if now := time.Now(); done == total || now.Sub(last) > 100*time.Millisecond {
				last = now
				fmt.Fprintf(term, "\r\x1b[Kchecked %d of %d URLs", done, total)
				if done == total {
					fmt.Fprint(term, "\r\x1b[K")
				}
			}
		}
	}

	color := os.Getenv("NO_COLOR") == ""
	enc := json.NewEncoder(u.stdout)
	var out bytes.Buffer
	total, broken := 0, 0
	err = c.Check(context.Background(), targets, func(v urldb.Verdict) {
		total++
		if !v.OK {
			broken++
		}
		if jsonOut {
			enc.Encode(v)
			return
		}
		out.Reset()
		out.WriteString(v.URL + " ... ")
		if v.Note != "" {
			out.WriteString(v.Note + " ")
		}
		switch {
		case v.OK:
			out.WriteString("ok")
		case color:
			out.WriteString("\x1b[1;31merror: " + v.Problem + "\x1b[0m")
		default:
			out.WriteString("error: " + v.Problem)
		}
		out.WriteByte('\n')
		u.stdout.Write(out.Bytes())
	})
	if err != nil {
		return u.die("%v", err)
	}
	summary := u.stdout
	if jsonOut {
		summary = u.stderr
	} else {
		fmt.Fprintln(u.stdout)
	}
	if broken > 0 {
		return u.die("found %d broken URLs out of %d", broken, total)
	}
	fmt.Fprintf(summary, "success: %d URLs validated\n", total)
	return 0
}

func urldbIsTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// urldbArchive writes a fetched response as a WARC response record whose
// block is the HTTP response. The body is the decoded one, so a
// Content-Encoding the client undid is dropped from the recorded header.
func urldbArchive(w *warc.Writer, ex *urldb.Exchange) error {
	resp := ex.Response
	h := http.Header(resp.Header.Clone())
	if resp.Uncompressed {
		h.Del("Content-Encoding")
		h.Set("Content-Length", strconv.Itoa(len(ex.Body)))
	}
	var block bytes.Buffer
	fmt.Fprintf(&block, "HTTP/%d.%d %s\r\n", resp.ProtoMajor, resp.ProtoMinor, resp.Status)
	h.Write(&block)
	block.WriteString("\r\n")
	block.Write(ex.Body)
	_, err := w.WriteRecord(&warc.Record{
		Type:        warc.TypeResponse,
		TargetURI:   ex.Request.URL.String(),
		Date:        ex.Date,
		ContentType: "message/http",
		Block:       bytes.NewReader(block.Bytes()),
		BlockLength: int64(block.Len()),
	})
	return err
}

func (u *urldbCmd) fmt(args []string) int {
	var check bool
	fs := urldbFlagSet(u, "fmt", "[--check]")
	fs.BoolVar(&check, "check", false, "only list the files that would change; exit 1 if any")
	if code, ok := urldbParseFlagsOnly(u, fs, args); !ok {
		return code
	}
	db, ok := u.load()
	if !ok {
		return 1
	}
	dir, status := u.dir(), 0
	for _, d := range db.Domains {
		name := d.Name + ".yaml"
		if d.Incomplete {
			u.warn("%s has errors; not rewriting it", name)
			status = 1
			continue
		}
		// The spec wants cnames sorted; wwturldb never touched them.
		if cn := d.CNAMEs(); len(cn) > 1 && !slices.IsSorted(cn) {
			if v, _ := d.Meta.Get("cnames"); len(v.([]any)) == len(cn) {
				slices.Sort(cn)
				list := make([]any, len(cn))
				for i, c := range cn {
					list[i] = c
				}
				d.Meta.Set("cnames", list)
			}
		}
		old, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return u.die("%v", err)
		}
		if bytes.Equal(old, d.Encode()) {
			continue
		}
		if check {
			fmt.Fprintln(u.stdout, name)
			status = 1
			continue
		}
		if err := urldb.WriteFile(dir, d); err != nil {
			return u.die("%v", err)
		}
		fmt.Fprintf(u.stdout, "reformatted %s\n", name)
	}
	return status
}
