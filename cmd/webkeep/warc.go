package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/webkeep/webkeep/shared/warc"
)

const warcUsage = `usage: webkeep warc <subcommand> [arguments]

subcommands:
  ls FILE...                          one JSON line per record
  cat FILE --offset N                 the record that starts at offset N
  verify FILE...                      check lengths, digests, sl fields, gzip members, segments
  convert --to 0.9|1.1 IN OUT         convert between WARC 0.9 and WARC/1.1 (OUT.gz: gzip)
`

// runWARC dispatches the warc subcommands.
func runWARC(args []string, stdout, stderr io.Writer) int {
	usage := func(w io.Writer) { fmt.Fprint(w, warcUsage) }
	return dispatch("warc", usage, subcommands{
		"ls": warcLs, "cat": warcCat, "verify": warcVerify, "convert": warcConvert,
	}, args, stdout, stderr)
}

// parseArgs parses flags wherever they appear among the arguments and returns the
// others. It returns the exit code when parsing ends the command (-h, bad flags).
func parseArgs(fs *flag.FlagSet, args []string) ([]string, int, bool) {
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, 0, false
			}
			return nil, 2, false
		}
		args = fs.Args()
		if len(args) == 0 {
			return rest, 0, true
		}
		rest = append(rest, args[0])
		args = args[1:]
	}
}

func newFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("webkeep warc "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: webkeep warc %s\n", usage)
		fs.PrintDefaults()
	}
	return fs
}

// lsLine is one line of "webkeep warc ls".
type lsLine struct {
	File        string `json:"file"`
	Offset      int64  `json:"offset"`
	Length      int64  `json:"length"` // bytes in the file: the gzip member for gzip files
	Version     string `json:"version"`
	Type        string `json:"type"`
	URI         string `json:"uri"`
	Date        string `json:"date"`
	ID          string `json:"id"`
	ContentType string `json:"content_type"`
	DataLength  int64  `json:"data_length"` // 0.9: data-length; 1.x: Content-Length
	BlockLength int64  `json:"block_length"`
}

func warcLs(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("ls", "ls FILE...", stderr)
	files, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	if len(files) == 0 {
		fs.Usage()
		return 2
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	status := 0
	for _, name := range files {
		if err := lsFile(name, enc, stderr); err != nil {
			fmt.Fprintf(stderr, "webkeep warc ls: %s: %v\n", name, err)
			status = 1
		}
	}
	return status
}

func lsFile(name string, enc *json.Encoder, stderr io.Writer) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	r, err := warc.NewReader(f)
	if err != nil {
		return err
	}
	// A record's length is known when the next one starts.
	var pending *lsLine
	flush := func(end int64) error {
		if pending == nil {
			return nil
		}
		pending.Length = end - pending.Offset
		err := enc.Encode(pending)
		pending = nil
		return err
	}
	damaged := false
	for {
		rec, err := r.Next()
		if err == io.EOF {
			if err := flush(st.Size()); err != nil {
				return err
			}
			if damaged {
				return errors.New("damaged records were skipped")
			}
			return nil
		}
		var de *warc.DamageError
		if errors.As(err, &de) {
			flush(de.Offset)
			fmt.Fprintf(stderr, "webkeep warc ls: %s: %v\n", name, err)
			damaged = true
			continue
		}
		if err != nil {
			flush(st.Size())
			return err
		}
		if err := flush(rec.Offset); err != nil {
			return err
		}
		date := ""
		if !rec.Date.IsZero() {
			date = rec.Date.UTC().Format(time.RFC3339Nano)
		}
		pending = &lsLine{File: name, Offset: rec.Offset, Version: rec.Version.String(), Type: rec.Type,
			URI: rec.TargetURI, Date: date, ID: rec.ID, ContentType: rec.ContentType,
			DataLength: r.DataLength(), BlockLength: rec.BlockLength}
	}
}

func warcCat(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("cat", "cat FILE --offset N", stderr)
	offset := fs.Int64("offset", 0, "file `offset` of the record (for gzip files, of its member)")
	files, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	if len(files) != 1 {
		fs.Usage()
		return 2
	}
	f, err := os.Open(files[0])
	if err != nil {
		fmt.Fprintf(stderr, "webkeep warc cat: %v\n", err)
		return 1
	}
	defer f.Close()
	r, err := warc.NewReader(f)
	if err == nil {
		err = r.SeekRecord(*offset)
	}
	var rec *warc.Record
	if err == nil {
		rec, err = r.Next()
	}
	if err == nil && rec.Offset != *offset {
		err = fmt.Errorf("no record starts at offset %d", *offset)
	}
	if err == nil {
		if _, err = stdout.Write(r.RawHeader()); err == nil {
			if _, err = io.Copy(stdout, rec.Block); err == nil {
				_, err = io.WriteString(stdout, "\r\n\r\n")
			}
		}
	}
	if err == nil {
		// The record must also end well: a gzip member cut after the block (its
		// CRC and length missing) is damage at this record's offset.
		var de *warc.DamageError
		if _, nerr := r.Next(); errors.As(nerr, &de) && de.Offset == *offset {
			err = nerr
		}
	}
	if err != nil {
		if err == io.EOF {
			err = fmt.Errorf("no record at offset %d", *offset)
		}
		fmt.Fprintf(stderr, "webkeep warc cat: %s: %v\n", files[0], err)
		return 1
	}
	return 0
}

func warcVerify(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("verify", "verify FILE...", stderr)
	files, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	if len(files) == 0 {
		fs.Usage()
		return 2
	}
	// The report goes to standard output; standard error says which files
	// failed and where their first problem is, as the other commands do.
	type fileProblems struct {
		n     int
		first warc.Problem
	}
	var order []string
	perFile := map[string]*fileProblems{}
	v := warc.NewVerifier(func(p warc.Problem) {
		fmt.Fprintln(stdout, p.Error())
		fp := perFile[p.File]
		if fp == nil {
			fp = &fileProblems{first: p}
			perFile[p.File] = fp
			order = append(order, p.File)
		}
		fp.n++
	})
	status := 0
	for _, name := range files {
		f, err := os.Open(name)
		if err == nil {
			err = v.Verify(name, f)
			f.Close()
		}
		if err != nil {
			fmt.Fprintf(stderr, "webkeep warc verify: %s: %v\n", name, err)
			status = 1
		}
	}
	v.Finish()
	for _, name := range order {
		fp := perFile[name]
		noun := "problems"
		if fp.n == 1 {
			noun = "problem"
		}
		fmt.Fprintf(stderr, "webkeep warc verify: %s: %d %s, the first at offset %d: %v\n", name, fp.n, noun, fp.first.Offset, fp.first.Err)
	}
	fmt.Fprintf(stdout, "%d records, %d problems\n", v.Records(), v.Problems())
	if v.Problems() > 0 {
		status = 1
	}
	return status
}

func warcConvert(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("convert", "convert --to 0.9|1.1 IN OUT", stderr)
	to := fs.String("to", "", "`version` to write: 0.9 or 1.1")
	keep := fs.Bool("keep-segments", false, "with --to 1.1, keep segmented records as segments (by default each is written whole, as replay tools need)")
	files, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	var version warc.Version
	switch *to {
	case "0.9":
		version = warc.V09
	case "1.1":
		version = warc.V11
	default:
		fmt.Fprintf(stderr, "webkeep warc convert: --to must be 0.9 or 1.1\n")
		fs.Usage()
		return 2
	}
	if len(files) != 2 {
		fs.Usage()
		return 2
	}
	if err := convertFile(files[0], files[1], version, version != warc.V09 && !*keep); err != nil {
		fmt.Fprintf(stderr, "webkeep warc convert: %v\n", err)
		return 1
	}
	return 0
}

// convertFile converts in to out through a temporary file beside out, so that a
// failed conversion leaves no partial output; join writes segmented records whole.
func convertFile(in, out string, version warc.Version, join bool) error {
	src, err := os.Open(in)
	if err != nil {
		return err
	}
	defer src.Close()
	r, err := warc.NewReader(src)
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), ".convert-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	tmp.Chmod(0o644)
	w := warc.NewWriter(tmp, warc.WriterOptions{Version: version, Gzip: strings.HasSuffix(out, ".gz")})
	if _, err := (&warc.Converter{JoinSegments: join}).Convert(w, r); err != nil {
		tmp.Close()
		return fmt.Errorf("%s: %w", in, err)
	}
	if err := w.Close(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), out)
}
