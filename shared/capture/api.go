package capture

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/shared/cdx"
	"github.com/webkeep/webkeep/shared/httpmsg"
)

// Handler returns the HTTP API the extension's pages use, as docs/api.md documents it
// (a test holds the two to the same routes; shared/api has the JSON). In the extension
// it answers requests for /api/... of the extension's own origin, through the service
// worker's fetch event.
func (s *Service) Handler() httpmsg.Handler {
	return s.routes().Mux
}

// routeTable is the API's mux and the patterns registered on it, in order.
type routeTable struct {
	*httpmsg.Mux
	patterns []string
}

// HandleFunc registers handler for pattern, as httpmsg.Mux.HandleFunc, and lists
// the pattern.
func (t *routeTable) HandleFunc(pattern string, handler func(httpmsg.ResponseWriter, *httpmsg.Request)) {
	t.Mux.HandleFunc(pattern, handler)
	t.patterns = append(t.patterns, pattern)
}

// routes registers every route of the API.
func (s *Service) routes() *routeTable {
	mux := &routeTable{Mux: httpmsg.NewMux()}
	mux.HandleFunc("GET /api/status", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		writeJSON(w, httpmsg.StatusOK, s.Status())
	})
	mux.HandleFunc("POST /api/record/start", s.withTab(func(ctx context.Context, tab int) (SessionInfo, error) {
		return s.Start(ctx, tab)
	}))
	mux.HandleFunc("POST /api/record/toggle", s.withTab(func(ctx context.Context, tab int) (SessionInfo, error) {
		if s.recording(tab) {
			return s.StopTab(ctx, tab)
		}
		return s.Start(ctx, tab)
	}))
	mux.HandleFunc("POST /api/record/stop", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		info, err := s.Stop(r.Context())
		answer(w, httpmsg.StatusOK, info, err)
	})
	mux.HandleFunc("GET /api/sessions", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		list, err := s.Sessions()
		writeList(w, list, err)
	})
	mux.HandleFunc("GET /api/sessions/{id}", s.withSession(func(w httpmsg.ResponseWriter, r *httpmsg.Request, sess *Session) {
		writeJSON(w, httpmsg.StatusOK, sess.Info())
	}))
	mux.HandleFunc("DELETE /api/sessions/{id}", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		if err := s.DeleteSession(r.PathValue("id")); err != nil {
			writeError(w, conflict(err))
			return
		}
		w.WriteHeader(httpmsg.StatusNoContent)
	})
	mux.HandleFunc("GET /api/sessions/{id}/records", s.withSession(func(w httpmsg.ResponseWriter, r *httpmsg.Request, sess *Session) {
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
	mux.HandleFunc("GET /api/sessions/{id}/bundle.zip", s.withSession(func(w httpmsg.ResponseWriter, r *httpmsg.Request, sess *Session) {
		sendFile(w, sess.BaseName()+".zip", "application/zip", sess.WriteBundle)
	}))
	mux.HandleFunc("GET /api/sessions/{id}/warc.gz", s.withSession(func(w httpmsg.ResponseWriter, r *httpmsg.Request, sess *Session) {
		src, err := sess.WARC()
		if err != nil {
			writeError(w, err)
			return
		}
		sendFile(w, sess.BaseName()+".warc.gz", "application/warc", func(w io.Writer) error {
			_, err := io.Copy(w, src)
			return err
		})
	}))
	mux.HandleFunc("GET /api/sessions/{id}/index.cdxj", s.withSession(func(w httpmsg.ResponseWriter, r *httpmsg.Request, sess *Session) {
		index, err := sess.SortedCDX()
		if err != nil {
			writeError(w, err)
			return
		}
		sendFile(w, sess.BaseName()+".cdxj", "text/plain; charset=utf-8", func(w io.Writer) error {
			_, err := w.Write(index)
			return err
		})
	}))
	s.routeArchive(mux)
	s.routeSigning(mux)
	s.routeDatabase(mux)
	s.routeReplay(mux)
	s.routeAutopilot(mux)
	return mux
}

// routeArchive adds what the archive page needs beyond listing: rename, records and
// their details, reports, downloads in every format, import.
func (s *Service) routeArchive(mux *routeTable) {
	mux.HandleFunc("PATCH /api/sessions/{id}", s.withSession(func(w httpmsg.ResponseWriter, r *httpmsg.Request, sess *Session) {
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
	mux.HandleFunc("GET /api/sessions/{id}/record", s.withSession(func(w httpmsg.ResponseWriter, r *httpmsg.Request, sess *Session) {
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
	mux.HandleFunc("GET /api/sessions/{id}/report", s.withSession(func(w httpmsg.ResponseWriter, r *httpmsg.Request, sess *Session) {
		rep, err := sess.Report()
		answer(w, httpmsg.StatusOK, rep, err)
	}))
	mux.HandleFunc("GET /api/sessions/{id}/pages", s.withSession(func(w httpmsg.ResponseWriter, r *httpmsg.Request, sess *Session) {
		pages, err := sess.Pages()
		writeList(w, pages, err)
	}))
	mux.HandleFunc("GET /api/sessions/{id}/warc11.gz", s.withSession(func(w httpmsg.ResponseWriter, r *httpmsg.Request, sess *Session) {
		sendFile(w, sess.BaseName()+"-1.1.warc.gz", "application/warc", sess.WriteWARC11)
	}))
	wacz := s.withSession(func(w httpmsg.ResponseWriter, r *httpmsg.Request, sess *Session) {
		if f := r.PathValue("file"); f != "" && f != sess.BaseName()+".wacz" {
			writeError(w, notFound(fmt.Errorf("no file %q in session %s", f, sess.info.ID)))
			return
		}
		// Signed with the browser's key when the host has one, or the team's when
		// the settings say so; without its key a download fails rather than go out
		// unsigned.
		authority, err := s.waczAuthority()
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
		job, err := s.StartImport(r.Context(), name, body)
		answerJob(w, job, badRequest(err))
	})
	mux.HandleFunc("POST /api/sessions/{id}/upload", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		job, err := s.Upload(r.PathValue("id"), r.URL.Query().Get("overwrite") == "1")
		answerJob(w, job, conflict(err))
	})
	mux.HandleFunc("POST /api/urldb/team", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		info, err := s.LoadTeamDatabase(r.Context())
		answer(w, httpmsg.StatusOK, info, badGateway(err))
	})
	mux.HandleFunc("GET /api/jobs/{id}", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		job, ok := s.jobs.get(r.PathValue("id"))
		if !ok {
			writeError(w, notFound(fmt.Errorf("no job %q", r.PathValue("id"))))
			return
		}
		writeJSON(w, httpmsg.StatusOK, job)
	})
	mux.HandleFunc("DELETE /api/jobs/{id}", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		if !s.jobs.stop(r.PathValue("id")) {
			writeError(w, notFound(fmt.Errorf("no job %q", r.PathValue("id"))))
			return
		}
		w.WriteHeader(httpmsg.StatusNoContent)
	})
	mux.HandleFunc("GET /api/settings", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		writeJSON(w, httpmsg.StatusOK, publicSettings(s.Settings()))
	})
	mux.HandleFunc("PUT /api/settings", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		next := DefaultSettings()
		if err := readJSON(r.Body, 4<<20, &next); err != nil {
			writeError(w, badRequest(fmt.Errorf("settings: %w", err)))
			return
		}
		saved, err := s.UpdateSettings(next)
		answer(w, httpmsg.StatusOK, saved, badRequest(err))
	})
}

// routeDatabase adds the URL database: load, look, export, add records, check all.
func (s *Service) routeDatabase(mux *routeTable) {
	mux.HandleFunc("GET /api/urldb", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		writeJSON(w, httpmsg.StatusOK, s.db.Info())
	})
	mux.HandleFunc("POST /api/urldb", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		job, err := s.LoadDatabase(r.Context(), r.URL.Query().Get("name"), r.Header.Get("Content-Type"), r.Body)
		answerJob(w, job, badRequest(err))
	})
	mux.HandleFunc("DELETE /api/urldb", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		if err := s.db.Clear(); err != nil {
			writeError(w, err)
			return
		}
		w.WriteHeader(httpmsg.StatusNoContent)
	})
	mux.HandleFunc("GET /api/urldb/export.zip", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		sendFile(w, "url-database.zip", "application/zip", s.db.WriteZip)
	})
	mux.HandleFunc("POST /api/urldb/records", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		var body api.AddRecord
		if err := readJSON(r.Body, 1<<20, &body); err != nil {
			writeError(w, badRequest(fmt.Errorf("add: want {\"session\", \"offset\", \"categories\", \"static\"}: %w", err)))
			return
		}
		sess, err := s.Session(body.Session)
		if err != nil {
			writeError(w, err) // an unknown session
			return
		}
		rawURL, resp, err := sess.Response(body.Offset)
		if err != nil {
			writeError(w, badRequest(err))
			return
		}
		rec, domain, err := s.db.Add(rawURL, resp, body.Categories, body.Static)
		if err != nil {
			writeError(w, badRequest(err))
			return
		}
		record, err := json.Marshal(rec)
		if err != nil {
			writeError(w, err)
			return
		}
		writeJSON(w, httpmsg.StatusOK, api.AddedRecord{Domain: domain, Path: rec.Path, Record: record})
	})
	mux.HandleFunc("POST /api/urldb/check", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		var body api.CheckRequest
		if r.ContentLength != 0 {
			if err := readJSON(r.Body, 1<<20, &body); err != nil {
				writeError(w, badRequest(fmt.Errorf("check: want {\"session\", \"record\"}: %w", err)))
				return
			}
		}
		job, err := s.CheckAll(body.Session, body.Record)
		answerJob(w, job, conflict(err))
	})
}

// withTab answers a request about the tab in its "tab" parameter with f's session; an
// error of f means the tab cannot be recorded (409).
func (s *Service) withTab(f func(ctx context.Context, tab int) (SessionInfo, error)) httpmsg.HandlerFunc {
	return func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		tab, err := strconv.Atoi(r.URL.Query().Get("tab"))
		if err != nil || tab <= 0 {
			writeError(w, badRequest(fmt.Errorf("tab: want a tab id, got %q", r.URL.Query().Get("tab"))))
			return
		}
		info, err := f(r.Context(), tab)
		answer(w, httpmsg.StatusOK, info, conflict(err))
	}
}

func (s *Service) withSession(h func(httpmsg.ResponseWriter, *httpmsg.Request, *Session)) httpmsg.HandlerFunc {
	return func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		sess, err := s.Session(r.PathValue("id"))
		if err != nil {
			writeError(w, err) // an unknown session
			return
		}
		h(w, r, sess)
	}
}

// sendFile answers a download: the file streamed by write, saved under name. Once the
// headers are out an error cannot be reported, so it cuts the stream: the download
// then fails visibly instead of ending short.
func sendFile(w httpmsg.ResponseWriter, name, contentType string, write func(io.Writer) error) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	w.Header().Set("Cache-Control", "no-store")
	if err := write(w); err != nil {
		panic(httpmsg.ErrAbortHandler)
	}
}

// readJSON decodes a request body that must be one JSON object of at most limit bytes
// into v. Its errors say what is wrong: the body is too large, not JSON, not an
// object, followed by more data, or which field has a value of the wrong type.
func readJSON(body io.Reader, limit int64, v any) error {
	data, err := io.ReadAll(io.LimitReader(body, limit+1))
	if err != nil {
		return fmt.Errorf("reading the body: %w", err)
	}
	if int64(len(data)) > limit {
		return fmt.Errorf("the body is larger than %d bytes", limit)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	first, err := dec.Token()
	if err != nil {
		return fmt.Errorf("not valid JSON: %w", eofIsUnexpected(err))
	}
	if first != json.Delim('{') {
		return fmt.Errorf("not valid JSON: want an object, got %v", first)
	}
	dec = json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			return fmt.Errorf("%s: want %s, got %s", typeErr.Field, jsonKind(typeErr.Type), typeErr.Value)
		}
		return fmt.Errorf("not valid JSON: %w", eofIsUnexpected(err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("not valid JSON: more data after the object, at byte %d", dec.InputOffset())
	}
	return nil
}

// jsonKind names the kind of JSON value that decodes into t.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "a whole number"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number, not negative"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "a list"
	default:
		return "an object"
	}
}

// eofIsUnexpected says that a body that ended where a JSON value should go ended too
// early.
func eofIsUnexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// writeJSON answers v as JSON with the status code.
func writeJSON(w httpmsg.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

// answer answers v with the status code, or err when there is one.
func answer[T any](w httpmsg.ResponseWriter, code int, v T, err error) {
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, code, v)
}

// answerJob answers a job started (202, its id), or err when there is one.
func answerJob(w httpmsg.ResponseWriter, job *Job, err error) {
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, httpmsg.StatusAccepted, api.JobRef{Job: job.ID})
}

// writeList answers a JSON array (never null), or the error that kept it from being read.
func writeList[T any](w httpmsg.ResponseWriter, list []T, err error) {
	if list == nil {
		list = []T{}
	}
	answer(w, httpmsg.StatusOK, list, err)
}

// writeError answers err as {"error": "..."} with its status (httpStatus).
func writeError(w httpmsg.ResponseWriter, err error) {
	writeJSON(w, httpStatus(err), map[string]string{"error": err.Error()})
}

// httpStatus is the status the API answers err with:
//   - 404 for an unknown session, whatever the route was doing;
//   - else the status the route gave the failure (badRequest, notFound, conflict,
//     badGateway);
//   - 404 for a core that signs nothing (errNoSigning);
//   - for a failure to ask the team archive (*teamAskError), 409 when no team
//     archive is set (errNoTeam), else 502;
//   - else 500.
func httpStatus(err error) int {
	var marked *statusError
	var asked *teamAskError
	switch {
	case errors.Is(err, errNoSession):
		return httpmsg.StatusNotFound
	case errors.As(err, &marked):
		return marked.status
	case errors.Is(err, errNoSigning):
		return httpmsg.StatusNotFound
	case errors.As(err, &asked):
		if errors.Is(asked.err, errNoTeam) {
			return httpmsg.StatusConflict
		}
		return httpmsg.StatusBadGateway
	default:
		return httpmsg.StatusInternalServerError
	}
}

// A statusError is a failure with the status its route answers it with, which the
// route knows from what it was doing: the request was wrong, named nothing, came at
// the wrong time, or the team archive failed. Its text is the error's own.
type statusError struct {
	status int
	err    error
}

func (e *statusError) Error() string { return e.err.Error() }
func (e *statusError) Unwrap() error { return e.err }

// withStatus marks err (nil stays nil) with the status its route answers it with.
func withStatus(status int, err error) error {
	if err == nil {
		return nil
	}
	return &statusError{status, err}
}

// badRequest marks a request the user must correct (400).
func badRequest(err error) error { return withStatus(httpmsg.StatusBadRequest, err) }

// notFound marks a request that names nothing there is (404).
func notFound(err error) error { return withStatus(httpmsg.StatusNotFound, err) }

// conflict marks what cannot be done in the current state (409).
func conflict(err error) error { return withStatus(httpmsg.StatusConflict, err) }

// badGateway marks a failure of the team archive (502).
func badGateway(err error) error { return withStatus(httpmsg.StatusBadGateway, err) }

// continuationLine says whether a CDXJ line indexes a continuation record: a segment
// of a large record, which the index lists but which is no record of its own to the
// user. Its type is the WARC record's (an HTTP message) and it has no status; a
// response's line has the HTTP status and its payload's type.
func continuationLine(mime, status string) bool {
	return status == "" && (strings.HasPrefix(mime, "message/http") || strings.HasPrefix(mime, "application/http"))
}
