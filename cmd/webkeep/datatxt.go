package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/webkeep/webkeep/shared/datatxt"
	"github.com/webkeep/webkeep/shared/httpmsg/nethttp"
)

func datatxtUsage(w io.Writer) {
	fmt.Fprintln(w, `usage: webkeep datatxt <command> [arguments]

commands:
  allowed  say whether an agent may fetch paths, by /data.txt (and /robots.txt)
  list     list the datasets a /data.txt declares

Run 'webkeep datatxt <command> -h' for a command's arguments.`)
}

// runDatatxt dispatches the datatxt subcommands.
func runDatatxt(args []string, stdout, stderr io.Writer) int {
	return dispatch("datatxt", datatxtUsage, subcommands{"allowed": runDatatxtAllowed, "list": runDatatxtList}, args, stdout, stderr)
}

// siteSource is the --file / --url choice both subcommands share.
type siteSource struct {
	file    string
	url     string
	timeout time.Duration
}

func (s *siteSource) register(fs *flag.FlagSet) {
	fs.StringVar(&s.file, "file", "", "read the data.txt or robots.txt file `F`")
	fs.StringVar(&s.url, "url", "", "fetch SITE/data.txt (and for allowed, SITE/robots.txt) from `SITE`")
	fs.DurationVar(&s.timeout, "timeout", 30*time.Second, "time limit of each HTTP request")
}

func (s *siteSource) valid() bool { return (s.file == "") != (s.url == "") }

// load returns the files that apply: the one --file names, or the site's
// data.txt and robots.txt for --url (names lists the robots.txt only when
// withRobots). A file the server does not have is left out: it restricts
// nothing and declares nothing.
func (s *siteSource) load(withRobots bool) (files []*datatxt.File, names []string, err error) {
	if s.file != "" {
		fh, err := os.Open(s.file)
		if err != nil {
			return nil, nil, err
		}
		defer fh.Close()
		f, err := datatxt.Parse(fh)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", s.file, err)
		}
		return []*datatxt.File{f}, []string{s.file}, nil
	}
	wanted := []string{"data.txt"}
	if withRobots {
		wanted = append(wanted, "robots.txt")
	}
	client := nethttp.Client{Client: &http.Client{Timeout: s.timeout}}
	for _, name := range wanted {
		u, err := datatxt.URL(s.url, name)
		if err != nil {
			return nil, nil, err
		}
		f, err := datatxt.Get(context.Background(), client, u)
		if errors.Is(err, datatxt.ErrNotFound) || errors.Is(err, datatxt.ErrNotText) {
			// No such file (a 404, or the site's own page in its place): no rules.
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		files, names = append(files, f), append(names, u)
	}
	return files, names, nil
}

func runDatatxtAllowed(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("webkeep datatxt allowed", flag.ContinueOnError)
	fs.SetOutput(stderr)
	agent := fs.String("agent", "", "the robot's name token or User-Agent `NAME` (required)")
	var src siteSource
	src.register(fs)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: webkeep datatxt allowed --agent NAME (--file F | --url SITE) PATH...")
		fmt.Fprintln(fs.Output(), "\nPrints \"allowed PATH\" or \"disallowed PATH\" for each PATH (a path or a URL), by the 1996")
		fmt.Fprintln(fs.Output(), "robots draft. With --url, a path must be allowed by both /data.txt and /robots.txt.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *agent == "" || !src.valid() || fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	files, _, err := src.load(true)
	if err != nil {
		fmt.Fprintf(stderr, "webkeep datatxt allowed: %v\n", err)
		return 1
	}
	for _, p := range fs.Args() {
		verdict := "allowed"
		for _, f := range files {
			if !f.Allowed(*agent, p) {
				verdict = "disallowed"
			}
		}
		fmt.Fprintf(stdout, "%s %s\n", verdict, p)
	}
	return 0
}

func runDatatxtList(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("webkeep datatxt list", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var src siteSource
	src.register(fs)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: webkeep datatxt list (--file F | --url SITE)")
		fmt.Fprintln(fs.Output(), "\nPrints one JSON line per dataset: path (a list), name, title, description,")
		fmt.Fprintln(fs.Output(), "license, type and every other key of the entry.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if !src.valid() || fs.NArg() != 0 {
		fs.Usage()
		return 2
	}
	files, names, err := src.load(false)
	if err != nil {
		fmt.Fprintf(stderr, "webkeep datatxt list: %v\n", err)
		return 1
	}
	if len(files) == 0 {
		fmt.Fprintf(stderr, "webkeep datatxt list: %s has no /data.txt\n", src.url)
		return 0
	}
	f := files[0]
	if f.Format == datatxt.Robots {
		fmt.Fprintf(stderr, "webkeep datatxt list: %s is in robots form: it sets access rules (%d records) and declares no datasets\n",
			names[0], len(f.Records))
		return 0
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	status := 0
	for _, d := range f.Datasets() {
		line := make(map[string]any, len(d.Extra)+6)
		for k, v := range d.Extra {
			line[k] = v
		}
		line["path"] = d.Paths
		if d.Paths == nil {
			line["path"] = []string{}
		}
		for k, v := range map[string]string{"name": d.Name, "title": d.Title, "description": d.Description,
			"license": d.License, "type": d.Type} {
			if v != "" {
				line[k] = v
			}
		}
		if err := enc.Encode(line); err != nil {
			fmt.Fprintf(stderr, "webkeep datatxt list: %s: entry at line %d: %v\n", names[0], d.Line, err)
			status = 1
		}
	}
	return status
}
