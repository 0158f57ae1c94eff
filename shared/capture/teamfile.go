package capture

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/webkeep/webkeep/shared/httpmsg"
)

// teamFile is a bundle's WARC file in the team archive as a replay.File, read by
// Range from the record a capture names on: a first request for the record's bytes
// (offset and length of its line), then, should the reader want more (the
// segments of a record in parts follow it), the rest of the file as it is read.
type teamFile struct {
	tm     *team
	ctx    context.Context
	path   string
	length int64 // of the record its Reader starts at; 0 if not known
	open   []*rangeReader
	// rangesOnly makes an answer with the whole file (a bundle that stores the WARC
	// deflated) an error rather than read up to the range: a seek reads on instead.
	rangesOnly bool
}

func (f *teamFile) Size() int64 { return teamFileSize }

func (f *teamFile) Reader(off int64) io.Reader {
	r := &rangeReader{f: f, pos: off}
	if f.length > 0 {
		r.end = off + f.length
	}
	f.open = append(f.open, r)
	return r
}

// Close ends the requests its readers have under way. What is left of a record's
// range when its reader is done (the end of its gzip member, the blank lines after
// its block) is read first, so that the archive's answer ends as it should rather
// than cut; a longer rest (a body not read to its end) is cut.
func (f *teamFile) Close() {
	for _, r := range f.open {
		if r.body != nil {
			if r.end > 0 && r.end-r.pos <= maxDrained {
				io.Copy(io.Discard, io.LimitReader(r.body, maxDrained+1))
			}
			r.body.Close()
			r.body = nil
		}
	}
}

// maxDrained is the most of a record's range that Close reads rather than cuts.
const maxDrained = 64 << 10

// rangeReader reads a teamFile from pos on.
type rangeReader struct {
	f    *teamFile
	pos  int64
	end  int64 // where the request under way (or the first) ends; 0: the file's end
	body io.ReadCloser
	err  error
}

func (r *rangeReader) Read(p []byte) (int, error) {
	for {
		if r.err != nil {
			return 0, r.err
		}
		if r.body == nil {
			if r.err = r.request(); r.err != nil {
				return 0, r.err
			}
		}
		n, err := r.body.Read(p)
		r.pos += int64(n)
		switch {
		case err == io.EOF && r.end > 0 && r.pos < r.end:
			r.err = fmt.Errorf("the team archive's answer ended at byte %d of the record's %d", r.pos, r.end)
		case err == io.EOF && r.end > 0:
			r.body.Close()
			r.body, r.end = nil, 0 // what follows is asked for if it is read
		case err == io.EOF:
			r.err = io.EOF
		case err != nil:
			r.err = err
		}
		if n > 0 {
			return n, nil
		}
	}
}

// request asks for the file from pos on: to end, or to the file's end.
func (r *rangeReader) request() error {
	rng := fmt.Sprintf("bytes=%d-", r.pos)
	if r.end > 0 {
		rng += strconv.FormatInt(r.end-1, 10)
	}
	resp, err := r.f.tm.get(r.f.ctx, r.f.path, rng)
	var te *teamError
	if errors.As(err, &te) && te.status == statusRangeNotSatisfiable && r.end == 0 {
		return io.EOF // the file ends where the record did
	}
	if err != nil {
		return err
	}
	switch resp.StatusCode {
	case statusPartialContent:
		if start, ok := rangeStart(resp.Header.Get("Content-Range")); !ok || start != r.pos {
			resp.Body.Close()
			return fmt.Errorf("the team archive answered the range %s with %q", rng, resp.Header.Get("Content-Range"))
		}
	default:
		// The whole file (a member stored deflated in its bundle takes no Range):
		// what comes before pos is skipped, and the rest read to its end.
		if r.f.rangesOnly {
			resp.Body.Close()
			return fmt.Errorf("the team archive answers %s whole, not by range", r.f.path)
		}
		if _, err := io.CopyN(io.Discard, resp.Body, r.pos); err != nil {
			resp.Body.Close()
			return fmt.Errorf("the team archive's %s ends before byte %d: %w", r.f.path, r.pos, err)
		}
		r.end = 0
	}
	r.body = resp.Body
	return nil
}

// rangeStart reads the first byte of a Content-Range "bytes a-b/n".
func rangeStart(cr string) (int64, bool) {
	rest, ok := strings.CutPrefix(cr, "bytes ")
	if !ok {
		return 0, false
	}
	a, _, ok := strings.Cut(rest, "-")
	n, err := strconv.ParseInt(a, 10, 64)
	return n, ok && err == nil
}

// get is a GET of the team archive with a Range.
func (tm *team) get(ctx context.Context, path, rng string) (*httpmsg.Response, error) {
	return tm.requestWith(ctx, httpmsg.MethodGet, path, nil, -1, map[string]string{"Range": rng})
}
