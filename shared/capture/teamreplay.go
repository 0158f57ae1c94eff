package capture

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/webkeep/webkeep/shared/cdx"
	"github.com/webkeep/webkeep/shared/httpmsg"
	"github.com/webkeep/webkeep/shared/replay"
	"github.com/webkeep/webkeep/shared/warc"
)

// Replay from the team archive: the replay page (replay.html?team=1&url=...&ts=...)
// asks the core, for each request of the replayed tab, as it does for a session; the
// core looks the request up in the team archive's CDX index (the Worker's /api/cdx,
// under the pywb 2.6.7 key a session's replay computes) and reads the capture's
// record from the bundle that holds it by Range (/api/bundles/{source}/{file} with
// the line's offset and length), nothing downloaded but that record. A revisit takes
// its HTTP header from its own record and its payload from its original, found by
// a second query for the payload digest, in whatever bundle holds it, as pywb does.
// Bodies stream from the Worker to the answer.

// Bounds of the team archive's CDX queries a replay makes.
const (
	teamExactLimit    = 25             // lines of a request's exact key, nearest in time first
	teamFuzzyLimit    = 100            // lines under the request's path, for a fuzzy match
	teamOriginalLimit = 5              // responses with a revisit's payload digest
	maxTeamCDXAnswer  = 32 << 20       // bytes of one CDX answer read
	maxTeamRevisit    = 1 << 20        // a revisit record is read whole (its WARC and HTTP headers)
	teamCapturesLimit = 200            // captures GET /api/team/captures lists without limit=
	maxTeamCaptures   = 1000           // and at most
	teamFileSize      = int64(1) << 62 // a bundle's WARC read by Range: its size is not needed
)

// Statuses of a Range answer (httpmsg names those the core answers with).
const (
	statusPartialContent      = 206
	statusRangeNotSatisfiable = 416
)

// teamReplay is what replays from the team archive share: their log, and the
// batches they made last, as a session's replays keep theirs (replays.batches).
type teamReplay struct {
	log     replay.Log
	mu      sync.Mutex
	bundle  *teamBundleIndex // the index of the bundle of the last page batched
	batches byteCache[teamBatchKey]
	// The team archive (its endpoint) that answered 404 to a batch asked of its
	// Worker: one that predates the route, not asked again.
	noWorkerBatch string
	asked         map[teamBatchAsked]teamBatchGot // the capture of each batch the Worker made
	// The capture found for each URL asked for by range in this replay: the later
	// ranges (a player's, a chunk at a time) are answered from it, without asking
	// the archive's CDX server again, and from the same capture should a newer one
	// be uploaded meanwhile.
	ranged map[teamBatchAsked]teamFound
}

// teamFound is a capture found in the team archive, and its line.
type teamFound struct {
	m    replay.Match
	line teamLine
}

// maxRangedURLs bounds the URLs whose capture a replay remembers for their
// ranges (teamReplay.ranged); past it, all are forgotten.
const maxRangedURLs = 256

// routeReplay adds the team archive's captures of a URL and the replay from the
// team archive: the replay API of a session (replays.routes) under /api/team/replay.
func (tm *team) routeReplay(mux *routeTable) {
	mux.HandleFunc("GET /api/team/captures", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		q := r.URL.Query()
		limit := teamCapturesLimit
		if l := q.Get("limit"); l != "" {
			n, err := strconv.Atoi(l)
			if err != nil || n < 1 {
				writeError(w, badRequest(fmt.Errorf("limit=%q: want a number from 1 to %d", l, maxTeamCaptures)))
				return
			}
			limit = min(n, maxTeamCaptures)
		}
		if err := checkTeamURL(q.Get("url")); err != nil {
			writeError(w, badRequest(err))
			return
		}
		list, err := tm.captures(r.Context(), q.Get("url"), limit)
		if err != nil {
			writeError(w, &teamAskError{err})
			return
		}
		writeJSON(w, httpmsg.StatusOK, list)
	})
	mux.HandleFunc("POST /api/team/replay/start", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		q := r.URL.Query()
		page, ts := q.Get("url"), q.Get("ts")
		if !replay.ValidTimestamp(ts) {
			writeError(w, badRequest(fmt.Errorf("ts=%q: want a time of up to 14 digits (YYYYMMDDhhmmss, UTC)", ts)))
			return
		}
		if page == "" {
			writeError(w, badRequest(errors.New("a replay from the team archive needs the page to replay: replay.html?team=1&url=URL")))
			return
		}
		if err := checkTeamURL(page); err != nil {
			writeError(w, badRequest(err))
			return
		}
		// Nothing is asked of the team archive here: the page's batch is asked for
		// at once beside the start (GET /api/team/replay/batch), and a second request
		// to the archive's Worker before the replay's tab is navigated only delayed
		// both. The bar counts the page's captures once the page has loaded
		// (GET /api/team/captures).
		set := tm.settings.get()
		if !set.HasTeam() {
			writeError(w, &teamAskError{errNoTeam})
			return
		}
		tm.replay.log.Reset()
		tm.replay.mu.Lock()
		tm.replay.ranged = nil
		tm.replay.mu.Unlock()
		writeJSON(w, httpmsg.StatusOK, map[string]any{
			"session":  map[string]string{"id": "team", "name": "Team archive at " + set.TeamEndpoint},
			"problems": []string{}, "pages": []replayPage{},
		})
	})
	mux.HandleFunc("POST /api/team/replay/answer", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		req, ok := readPaused(w, r)
		if !ok {
			return
		}
		at := r.URL.Query().Get("ts")
		if !replay.ValidTimestamp(at) {
			at = "" // as a session's replay reads it: the latest
		}
		a, err := tm.serve(r.Context(), w, req, at)
		logged := func(a replay.Answer) {
			if !askedAhead(r) {
				tm.replay.log.Add(a)
			}
		}
		var asked *teamAskError
		switch {
		case errors.As(err, &asked):
			// Nothing was written: the replay page says why, and fails the request.
			logged(replay.Answer{URL: req.URL})
			writeError(w, asked)
			return
		case err != nil:
			logged(a)
			panic(httpmsg.ErrAbortHandler) // the body is not whole (ErrCut): the answer fails
		}
		logged(a)
	})
	mux.HandleFunc("GET /api/team/replay/batch", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		at := r.URL.Query().Get("ts")
		if !replay.ValidTimestamp(at) {
			at = ""
		}
		b, took := tm.batch(r.Context(), r.URL.Query().Get("url"), at)
		w.Header().Set("Server-Timing", took.String())
		replay.WriteBatch(w, b)
	})
	mux.HandleFunc("POST /api/team/replay/served", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		if readServed(w, r, &tm.replay.log) {
			writeJSON(w, httpmsg.StatusOK, tm.replay.view())
		}
	})
	mux.HandleFunc("GET /api/team/replay/file", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		url, at := r.URL.Query().Get("url"), r.URL.Query().Get("ts")
		if !replay.ValidTimestamp(at) {
			at = ""
		}
		m, line, ok, err := tm.lookup(r.Context(), &replay.Request{Method: "GET", URL: url}, at)
		if err != nil {
			writeError(w, err)
			return
		}
		if !ok || m.Approximate {
			writeError(w, noCapture("the team archive", url))
			return
		}
		resp, err := tm.open(r.Context(), m.Capture, line)
		if err != nil {
			writeError(w, err)
			return
		}
		defer resp.Close()
		sendCapture(w, url, resp)
	})
	mux.HandleFunc("GET /api/team/replay/log", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		writeJSON(w, httpmsg.StatusOK, tm.replay.view())
	})
}

// view returns the team replay's log for the API: a session's without its
// captures, which the replay page watches to drop its batches when a session grows;
// the team archive's captures of a page are counted apart (GET /api/team/captures).
func (t *teamReplay) view() replay.LogView {
	return t.log.View()
}

// serve answers r from the team archive, the capture nearest to at, as a
// session's replay answers it (replay.Index.Serve): status 200, the Answer in
// replay.AnswerHeader, the body streamed; the "not archived" page for a request the
// archive has no capture of, or whose capture cannot be read (saying why); the "not
// replayed" page for a body over replay.DefaultMaxBody. An error wrapping
// replay.ErrCut means the body was cut after the answer began; a *teamAskError,
// that the archive's index could not be asked and nothing was written.
func (tm *team) serve(ctx context.Context, w httpmsg.ResponseWriter, r *replay.Request, at string) (replay.Answer, error) {
	m, line, ok, err := tm.lookupRanged(ctx, r, at)
	if err != nil {
		return replay.Answer{URL: r.URL}, &teamAskError{err}
	}
	if !ok {
		return replay.RespondNotArchived(w, r, "", "the team archive"), nil
	}
	open := func() (*replay.Response, error) { return tm.open(ctx, m.Capture, line) }
	resp, ok := replay.Resume(tm.record(m.Capture, line), r, open)
	if !ok {
		if resp, err = open(); err != nil {
			return replay.RespondNotArchived(w, r, err.Error(), "the team archive"), nil
		}
	}
	defer resp.Close()
	return replay.Respond(w, r, m, resp, replay.DefaultMaxBody, "the team archive")
}

// lookupRanged is lookup, but for a GET with a Range whose URL this replay has
// found a capture of before (at the same time): that capture, the archive not asked
// again (teamReplay.ranged).
func (tm *team) lookupRanged(ctx context.Context, r *replay.Request, at string) (m replay.Match, line teamLine, ok bool, err error) {
	if r.Method != httpmsg.MethodGet || r.Header.Get("Range") == "" {
		return tm.lookup(ctx, r, at)
	}
	key := teamBatchAsked{tm.settings.get().TeamEndpoint, r.URL, at}
	t := &tm.replay
	t.mu.Lock()
	found, had := t.ranged[key]
	t.mu.Unlock()
	if had {
		return found.m, found.line, true, nil
	}
	if m, line, ok, err = tm.lookup(ctx, r, at); !ok || err != nil {
		return m, line, ok, err
	}
	t.mu.Lock()
	if t.ranged == nil || len(t.ranged) >= maxRangedURLs {
		t.ranged = map[teamBatchAsked]teamFound{}
	}
	t.ranged[key] = teamFound{m, line}
	t.mu.Unlock()
	return m, line, true, nil
}

// open reads the answer of capture c (of line) from the team archive: its
// record by Range from its bundle; a revisit's header from its own record and its
// payload from its original's. The Body's Close ends the requests it reads by.
// The response names its record (replay.Response.Record), so its Body may be kept
// open after a range answer for the next range to read on from: the requests of the
// file it reads outlive the API request asking (files, not cancelled with ctx), and a
// team video played through reads its record once, not from its start for each range.
func (tm *team) open(ctx context.Context, c cdx.Entry, line teamLine) (*replay.Response, error) {
	files := context.WithoutCancel(ctx)
	if c.Mime != "warc/revisit" {
		f := &teamFile{tm: tm, ctx: files, path: line.path(), length: c.Length}
		resp, err := replay.OpenRecord(f, c)
		if err != nil {
			f.Close()
			return nil, teamRecordError(line, err)
		}
		resp.SeekWith(tm.seekIn(files, line.path()))
		return tm.closingWith(resp, f, c, line), nil
	}
	// The revisit, whole: its WARC header names the original's URL and date.
	if c.Length <= 0 || c.Length > maxTeamRevisit {
		return nil, fmt.Errorf("the revisit record in %s is %d bytes: not a revisit webkeep can read", line.Source, c.Length)
	}
	f := &teamFile{tm: tm, ctx: ctx, path: line.path(), length: c.Length}
	b, err := io.ReadAll(io.LimitReader(f.Reader(c.Offset), c.Length))
	f.Close()
	if err != nil {
		return nil, teamRecordError(line, err)
	}
	var refersTo, refersDate string
	if rd, err := warc.NewReader(bytes.NewReader(b)); err == nil {
		if rec, err := rd.Next(); err == nil {
			refersTo = rec.Header.Get(warc.FieldRefersToTargetURI)
			refersDate = rec.Header.Get(warc.FieldRefersToDate)
		}
	}
	rev, err := replay.ReadResponseAt(replay.NewFile(bytes.NewReader(b), int64(len(b))), 0) // its own header

	if err != nil {
		return nil, teamRecordError(line, err)
	}
	oc, oline, ok, err := tm.original(ctx, c, line, refersTo, refersDate)
	if err != nil {
		rev.Body.Close()
		return nil, fmt.Errorf("revisit of %s: looking up its original: %w", c.URL, err)
	}
	if !ok {
		rev.Body.Close()
		return nil, fmt.Errorf("revisit of %s in %s: the team archive has no response with its payload (digest %s)", c.URL, line.Source, c.Digest)
	}
	of := &teamFile{tm: tm, ctx: files, path: oline.path(), length: oc.Length}
	orig, err := replay.OpenRecord(of, oc)
	if err != nil {
		of.Close()
		rev.Body.Close()
		return nil, fmt.Errorf("revisit of %s: its original: %w", c.URL, teamRecordError(oline, err))
	}
	orig.SeekWith(tm.seekIn(files, oline.path()))
	if rev.Status == 0 {
		rev.Status, rev.Reason, rev.Header = orig.Status, orig.Reason, orig.Header
	}
	rev.UseBody(orig)
	rev.Capture = c
	return tm.closingWith(rev, of, c, line), nil
}

// seekIn returns how a range far into a capture's body, in the bundle file at path,
// is read from where it lies (replay.Response.SeekWith): each read of the file by a
// request of its own, which its reader's Close ends. A file the team archive does
// not answer by range (stored deflated in its bundle) is not sought in.
func (tm *team) seekIn(ctx context.Context, path string) func(off, n int64) io.ReadCloser {
	return func(off, n int64) io.ReadCloser {
		f := &teamFile{tm: tm, ctx: ctx, path: path, length: max(n, 0), rangesOnly: true}
		return teamBody{io.NopCloser(f.Reader(off)), f}
	}
}

// closingWith makes resp's Body close f too, and lets a range answer keep it open,
// with resp's head for the next range of the capture (replay.Resume).
func (tm *team) closingWith(resp *replay.Response, f *teamFile, c cdx.Entry, line teamLine) *replay.Response {
	resp.Body = teamBody{resp.Body, f}
	resp.Record = tm.record(c, line)
	return resp
}

// record names the record of capture c, of line, among all those replayed
// (replay.Response.Record): the team archive's, its bundle's file's and its offset.
func (tm *team) record(c cdx.Entry, line teamLine) string {
	return fmt.Sprintf("team archive %s, %s, offset %d", tm.settings.get().TeamEndpoint, line.path(), c.Offset)
}

// teamBody is a capture's body read from a teamFile, which its Close closes too.
type teamBody struct {
	io.ReadCloser
	f *teamFile
}

func (b teamBody) Close() error {
	err := b.ReadCloser.Close()
	b.f.Close()
	return err
}

// teamRecordError says which bundle's record could not be read.
func teamRecordError(line teamLine, err error) error {
	return fmt.Errorf("%s (in the team archive's %s, %s at offset %s): %w", line.URL, line.Source, line.Filename, line.Offset, err)
}

// original finds the response whose payload a revisit (c, of line) refers to:
// the capture of the same request with its payload digest nearest in time (in any
// bundle), else one of the URL its record names (WARC-Refers-To-Target-URI), as
// pywb resolves revisits.
func (tm *team) original(ctx context.Context, c cdx.Entry, line teamLine, refersTo, refersDate string) (cdx.Entry, teamLine, bool, error) {
	at := c.Timestamp
	if t, err := time.Parse(time.RFC3339, refersDate); err == nil {
		at = t.UTC().Format("20060102150405")
	}
	same := url.Values{"url": {string(line.URL)}}
	if m := strings.ToUpper(string(line.Method)); m != "" && m != httpmsg.MethodGet {
		same.Set("method", m)
		same.Set("requestBody", string(line.RequestBody))
	}
	tries := []url.Values{same}
	if refersTo != "" && refersTo != string(line.URL) {
		tries = append(tries, url.Values{"url": {refersTo}})
	}
	for _, v := range tries {
		v.Set("matchType", "exact")
		v.Set("limit", strconv.Itoa(teamOriginalLimit))
		// The digest contained rather than equal: the dialects write it with or
		// without "sha1:".
		v["filter"] = []string{"digest:" + c.Digest, "!mime:warc/revisit"}
		lines, err := tm.cdx(ctx, nearestParams(v, at))
		if err != nil {
			return cdx.Entry{}, teamLine{}, false, err
		}
		for i := range lines {
			if e, ok := lines[i].entry(); ok && e.Digest == c.Digest && capturing(e) && e.Mime != "warc/revisit" {
				return e, lines[i], true, nil
			}
		}
	}
	return cdx.Entry{}, teamLine{}, false, nil
}
