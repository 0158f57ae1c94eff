package main

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/webkeep/webkeep/shared/cdx"
	"github.com/webkeep/webkeep/shared/httpmsg"
)

func cdxUsage(w io.Writer) {
	fmt.Fprintln(w, `usage: webkeep cdx <command> [arguments]

commands:
  encode   read JSON request lines on stdin, write their pywb keys
  index    write the sorted CDXJ index of WARC files

Run 'webkeep cdx <command> -h' for a command's arguments.`)
}

// runCDX dispatches the cdx subcommands.
func runCDX(args []string, stdout, stderr io.Writer) int {
	return dispatch("cdx", cdxUsage, subcommands{
		"encode": func(args []string, stdout, stderr io.Writer) int { return runCDXEncode(args, os.Stdin, stdout, stderr) },
		"index":  runCDXIndex,
	}, args, stdout, stderr)
}

// dialectFlag parses --dialect.
type dialectFlag struct{ d cdx.Dialect }

func (f *dialectFlag) String() string { return f.d.String() }

func (f *dialectFlag) Set(s string) error {
	switch s {
	case "pywb-2.6.7", "pywb267", "2.6.7":
		f.d = cdx.Pywb267
	case "pywb-2.8", "pywb28", "2.8":
		f.d = cdx.Pywb28
	case "warcio.js", "warciojs", "replaywebpage", "wabac":
		f.d = cdx.WarcioJS
	default:
		return fmt.Errorf("unknown dialect %q (pywb-2.6.7, pywb-2.8 or warcio.js)", s)
	}
	return nil
}

// encodeInput is one line of `webkeep cdx encode`'s input.
type encodeInput struct {
	Method     string        `json:"method"`
	URL        string        `json:"url"`
	Headers    encodeHeaders `json:"headers"`
	BodyBase64 string        `json:"body_base64"`
	// Mime is the response's content type, for replayUrl.
	Mime string `json:"mime"`
}

// encodeHeaders are the headers of an encode input line: an object of names and
// values, or a list of [name, value] pairs, which may repeat a name.
type encodeHeaders http.Header

func (h *encodeHeaders) UnmarshalJSON(b []byte) error {
	*h = encodeHeaders{}
	var pairs [][2]string
	if err := json.Unmarshal(b, &pairs); err == nil {
		for _, p := range pairs {
			(*h)[p[0]] = append((*h)[p[0]], p[1])
		}
		return nil
	}
	var m map[string]string
	if err := json.Unmarshal(b, &m); err != nil {
		return errors.New("headers: neither an object of strings nor a list of [name, value] pairs")
	}
	for k, v := range m {
		(*h)[k] = append((*h)[k], v)
	}
	return nil
}

// encodeOutput is one line of its output.
type encodeOutput struct {
	URL         string `json:"url"`
	URLKey      string `json:"urlkey"`
	RequestBody string `json:"requestBody"`
	// ReplayURL, in the warcio.js dialect, is the URL ReplayWeb.page stores the
	// capture under when its answer has the input's mime.
	ReplayURL string `json:"replayUrl,omitempty"`
}

func runCDXEncode(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("webkeep cdx encode", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var dialect dialectFlag
	fs.Var(&dialect, "dialect", "key dialect: pywb-2.6.7, pywb-2.8 or warcio.js (the key ReplayWeb.page looks a POST or PUT up under)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, `usage: webkeep cdx encode [--dialect pywb-2.6.7|pywb-2.8|warcio.js] < requests.jsonl

Reads one JSON object per line, {"method":..., "url":..., "headers":{...},
"body_base64":..., "mime":...}, with the headers as sent (an object, or a
list of [name, value] pairs) and, optionally, the response's content type,
and writes per line, in order, {"url": <url with the appended query>,
"urlkey": <SURT>, "requestBody": <the appended body query, "" if none>}; in
the warcio.js dialect also "replayUrl": the URL ReplayWeb.page stores such a
capture under (its index loader rewrites some keys).`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	sc := bufio.NewScanner(stdin)
	sc.Buffer(make([]byte, 64<<10), 256<<20)
	bw := bufio.NewWriter(stdout)
	defer bw.Flush()
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	status := 0
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var in encodeInput
		if err := json.Unmarshal(sc.Bytes(), &in); err != nil {
			fmt.Fprintf(stderr, "webkeep cdx encode: stdin:%d: %v\n", line, err)
			status = 1
			continue
		}
		body, err := base64.StdEncoding.DecodeString(in.BodyBase64)
		if err != nil {
			fmt.Fprintf(stderr, "webkeep cdx encode: stdin:%d: body_base64: %v\n", line, err)
			status = 1
			continue
		}
		h := httpmsg.Header(in.Headers)
		url, reqBody := dialect.d.EncodeRequest(&cdx.Request{Method: in.Method, URL: in.URL, Header: h, Body: body})
		key, err := cdx.SURT(url)
		if err != nil {
			fmt.Fprintf(stderr, "webkeep cdx encode: stdin:%d: url: %v\n", line, err)
			status = 1
			continue
		}
		out := encodeOutput{URL: url, URLKey: key, RequestBody: reqBody}
		if dialect.d == cdx.WarcioJS {
			method, _ := dialect.d.BodyQuery(&cdx.Request{Method: in.Method})
			out.ReplayURL = cdx.ReplayWebPageURL(in.URL, method, reqBody, in.Mime)
		}
		if err := enc.Encode(out); err != nil {
			fmt.Fprintf(stderr, "webkeep cdx encode: %v\n", err)
			return 1
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintf(stderr, "webkeep cdx encode: stdin: %v\n", err)
		return 1
	}
	return status
}

func runCDXIndex(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("webkeep cdx index", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var dialect dialectFlag
	fs.Var(&dialect, "dialect", "key and line dialect: pywb-2.6.7 or pywb-2.8")
	workers := fs.Int("workers", 0, "sections of a gzip file indexed at the same time (0: one per CPU)")
	unsurt := fs.Bool("unsurt", false, "keys as canonical URLs (example.com/a), not SURTs, as pywb's cdx-indexer --unsurt")
	fs.Usage = func() {
		fmt.Fprintln(stderr, `usage: webkeep cdx index [--dialect pywb-2.6.7|pywb-2.8] [--workers N] [--unsurt] FILE...

Writes the sorted CDXJ index of the WARC files (0.9, 1.0, 1.1, gzip or plain)
to standard output: the lines pywb 2.6.7's "cdx-indexer --sort --cdxj
--postappend" writes, POST and PUT bodies appended to the keys (docs/cdx.md).
Damaged records are reported on standard error with the file and offset and
skipped; the exit code is then 1.`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	// Indexing allocates much that dies young and keeps little: collect less often.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	w := cdx.NewWriter(stdout, dialect.d)
	if *workers < 0 {
		fmt.Fprintln(stderr, "webkeep cdx index: --workers must not be negative")
		return 2
	}
	status := 0
	ix := &cdx.Indexer{Dialect: dialect.d, Workers: *workers, NonSURT: *unsurt, Problems: func(err error) {
		// Damage is reported with the file and its byte range; the records
		// around it are still indexed, and the exit code says the input was bad.
		fmt.Fprintf(stderr, "webkeep cdx index: %v\n", err)
		status = 1
	}}
	for _, name := range fs.Args() {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintf(stderr, "webkeep cdx index: %v\n", err)
			status = 1
			continue
		}
		err = ix.Index(f, filepath.Base(name), w.Write)
		f.Close()
		if err != nil {
			fmt.Fprintf(stderr, "webkeep cdx index: %v\n", err)
			status = 1
		}
	}
	if err := w.Close(); err != nil {
		fmt.Fprintf(stderr, "webkeep cdx index: %v\n", err)
		return 1
	}
	return status
}
