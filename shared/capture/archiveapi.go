package capture

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/webkeep/webkeep/shared/api"
	"io"
	"strconv"
	"time"

	"github.com/webkeep/webkeep/shared/cdx"
	"github.com/webkeep/webkeep/shared/httpmsg"
)

// archive is the archive page's API: the sessions listed, renamed and deleted, their
// records, details and reports, every download (the bundle, WARC 0.9 and 1.1, CDXJ,
// the signed WACZ) and import (archive.go).
type archive struct {
	store    Store
	sessions *sessions
	jobs     *jobs
	signing  *signing
	replays  *replays    // which know the titles of a session's pages
	search   *textSearch // told of a session imported or deleted
	now      func() time.Time
	note     func(string) // says in the session being recorded what went wrong
	// recording is the id of the session being recorded, "" when none is: it cannot
	// be deleted.
	recording func() string
}

// routes adds the archive page's routes.
func (a *archive) routes(mux *routeTable) {
	mux.HandleFunc("GET /api/sessions", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		list, err := a.sessions.list()
		writeList(w, list, err)
	})
	mux.HandleFunc("GET /api/sessions/{id}", a.sessions.with(func(w httpmsg.ResponseWriter, r *httpmsg.Request, sess *Session) {
		writeJSON(w, httpmsg.StatusOK, sess.Info())
	}))
	mux.HandleFunc("DELETE /api/sessions/{id}", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		if err := a.delete(r.PathValue("id")); err != nil {
			writeError(w, conflict(err))
			return
		}
		w.WriteHeader(httpmsg.StatusNoContent)
	})
	mux.HandleFunc("GET /api/sessions/{id}/records", a.sessions.with(func(w httpmsg.ResponseWriter, r *httpmsg.Request, sess *Session) {
		lines, err := sess.CDXLines()
		if err != nil {
			writeError(w, err)
			return
		}
		revisits, _ := sess.RevisitStatus() // without it, a revisit's status is "-"
		verdicts := map[string]json.RawMessage{}
		if vs, err := sess.Verdicts(); err == nil {
			for _, v := range vs {
				b, _ := json.Marshal(v)
				verdicts[v.URL] = b
			}
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, "[")
		lr := cdx.NewLineReader(lines)
		first := true
		for {
			key, ts, fields, err := lr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				continue // a line the session's own index cannot have
			}
			var f struct {
				URL    string `json:"url"`
				Mime   string `json:"mime"`
				Status string `json:"status"`
				Offset string `json:"offset"`
			}
			json.Unmarshal(fields, &f)
			if continuationLine(f.Mime, f.Status) {
				continue
			}
			if !first {
				io.WriteString(w, ",")
			}
			first = false
			verdict := json.RawMessage("null")
			if v, ok := verdicts[f.URL]; ok {
				verdict = v
			}
			k, _ := json.Marshal(string(key))
			answered := ""
			if off, err := strconv.ParseInt(f.Offset, 10, 64); err == nil && f.Mime == "warc/revisit" && revisits[off] != 0 {
				answered = fmt.Sprintf(`,"revisitStatus":%d`, revisits[off])
			}
			fmt.Fprintf(w, `{"urlkey":%s,"timestamp":%q,"fields":%s,"verdict":%s%s}`, k, ts, fields, verdict, answered)
		}
		io.WriteString(w, "]")
	}))
	mux.HandleFunc("GET /api/sessions/{id}/bundle.zip", a.sessions.with(func(w httpmsg.ResponseWriter, r *httpmsg.Request, sess *Session) {
		sendFile(w, sess.BaseName()+".zip", "application/zip", sess.WriteBundle)
	}))
	mux.HandleFunc("GET /api/sessions/{id}/warc.gz", a.sessions.with(func(w httpmsg.ResponseWriter, r *httpmsg.Request, sess *Session) {
		sendReader(w, sess.BaseName()+".warc.gz", "application/warc", sess.WARC)
	}))
	mux.HandleFunc("GET /api/sessions/{id}/index.cdxj", a.sessions.with(func(w httpmsg.ResponseWriter, r *httpmsg.Request, sess *Session) {
		sendReader(w, sess.BaseName()+".cdxj", "text/plain; charset=utf-8", func() (io.Reader, error) {
			index, err := sess.SortedCDX()
			return bytes.NewReader(index), err
		})
	}))
	mux.HandleFunc("PATCH /api/sessions/{id}", a.sessions.with(func(w httpmsg.ResponseWriter, r *httpmsg.Request, sess *Session) {
		var body struct {
			Name string `json:"name"`
		}
		if err := readJSON(r.Body, 64<<10, &body); err != nil {
			writeError(w, badRequest(fmt.Errorf("rename: want {\"name\": \"...\"}: %w", err)))
			return
		}
		if err := sess.Rename(body.Name); err != nil {
			writeError(w, badRequest(err))
			return
		}
		writeJSON(w, httpmsg.StatusOK, sess.Info())
	}))
	mux.HandleFunc("GET /api/sessions/{id}/record", a.sessions.with(func(w httpmsg.ResponseWriter, r *httpmsg.Request, sess *Session) {
		off, err := strconv.ParseInt(r.URL.Query().Get("offset"), 10, 64)
		if err != nil || off < 0 {
			writeError(w, badRequest(fmt.Errorf("offset: want a record's offset, got %q", r.URL.Query().Get("offset"))))
			return
		}
		d, err := sess.Record(off)
		if errors.Is(err, ErrNotFound) {
			err = notFound(err) // the offset names no record
		}
		answer(w, httpmsg.StatusOK, d, err)
	}))
	mux.HandleFunc("GET /api/sessions/{id}/report", a.sessions.with(func(w httpmsg.ResponseWriter, r *httpmsg.Request, sess *Session) {
		rep, err := sess.Report()
		answer(w, httpmsg.StatusOK, rep, err)
	}))
	mux.HandleFunc("GET /api/sessions/{id}/pages", a.sessions.with(func(w httpmsg.ResponseWriter, r *httpmsg.Request, sess *Session) {
		pages, err := sess.Pages()
		var pictured map[string]bool
		if err == nil {
			pages = a.replays.withTitles(sess, pages)
			pictured, err = sess.thumbnailed()
		}
		var checks []api.CaptureCheck
		if err == nil {
			checks, err = sess.checks()
		}
		byPage := map[string]*api.CaptureCheck{}
		for i := range checks {
			byPage[checks[i].Page] = &checks[i]
		}
		for i := range pages {
			pages[i].Thumbnail = pictured[pages[i].ID]
			pages[i].Check = byPage[pages[i].ID]
		}
		writeList(w, pages, err)
	}))
	mux.HandleFunc("GET /api/sessions/{id}/warc11.gz", a.sessions.with(func(w httpmsg.ResponseWriter, r *httpmsg.Request, sess *Session) {
		sendFile(w, sess.BaseName()+"-1.1.warc.gz", "application/warc", sess.WriteWARC11)
	}))
	wacz := a.sessions.with(func(w httpmsg.ResponseWriter, r *httpmsg.Request, sess *Session) {
		if f := r.PathValue("file"); f != "" && f != sess.BaseName()+".wacz" {
			writeError(w, notFound(fmt.Errorf("no file %q in session %s", f, sess.info.ID)))
			return
		}
		// Signed with the browser's key when the host has one, or the team's when
		// the settings say so; without its key a download fails rather than go out
		// unsigned.
		authority, err := a.signing.authority()
		if err != nil {
			writeError(w, err)
			return
		}
		sendFile(w, sess.BaseName()+".wacz", "application/wacz", func(w io.Writer) error {
			return sess.WriteSignedWACZ(r.Context(), w, authority)
		})
	})
	mux.HandleFunc("GET /api/sessions/{id}/wacz", wacz)
	// The same, under the file's own name, so a link's last segment names the download.
	mux.HandleFunc("GET /api/sessions/{id}/{file}", wacz)
	mux.HandleFunc("POST /api/import", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		name := r.URL.Query().Get("name")
		if name != "" {
			var err error
			if name, err = checkSessionName(name); err != nil {
				writeError(w, badRequest(fmt.Errorf("import: %w", err)))
				return
			}
		}
		body := bufio.NewReader(r.Body)
		if _, err := body.Peek(1); err != nil {
			writeError(w, badRequest(errors.New("import: the file is empty: want a WARC (0.9, 1.0, 1.1; gzip or plain) or a webkeep bundle .zip")))
			return
		}
		job, err := a.startImport(r.Context(), name, body)
		answerJob(w, job, badRequest(err))
	})
}

// delete removes a session and everything recorded in it. The session being recorded
// cannot be deleted.
func (a *archive) delete(id string) error {
	if id == a.recording() {
		return fmt.Errorf("session %s is being recorded: stop recording first", id)
	}
	if _, err := a.sessions.find(id); err != nil {
		return err
	}
	if err := a.sessions.remove(id); err != nil {
		return err
	}
	// The index is told in the background: it holds no lock of the archive's.
	go func() {
		if err := a.search.forget(id); err != nil {
			a.note("the search index: removing session " + id + ": " + err.Error())
		}
	}()
	return nil
}
