package capture

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// Handler returns the HTTP API the extension's pages use. In the extension it answers
// requests for /api/... of the extension's own origin, through the service worker's
// fetch event.
//
//	GET    /api/status                          recording state
//	POST   /api/record/start?tab=N              record tab N (into the open session or a new one)
//	POST   /api/record/toggle?tab=N             start or stop recording tab N (the keyboard shortcut)
//	POST   /api/record/stop                     stop recording every tab
//	GET    /api/sessions                        sessions, newest first
//	GET    /api/sessions/{id}                   one session
//	DELETE /api/sessions/{id}                   delete a session
//	GET    /api/sessions/{id}/records           its CDXJ lines as JSON
//	GET    /api/sessions/{id}/bundle.zip        download: WARC 0.9 + CDXJ + pages + report
//	GET    /api/sessions/{id}/warc.gz           download: the WARC 0.9 file
//	GET    /api/sessions/{id}/index.cdxj        download: the sorted CDXJ index
func (s *Service) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/status", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, s.Status())
	})
	mux.HandleFunc("POST /api/record/start", func(w http.ResponseWriter, r *http.Request) {
		tab, err := strconv.Atoi(r.URL.Query().Get("tab"))
		if err != nil || tab <= 0 {
			writeError(w, http.StatusBadRequest, fmt.Errorf("tab: want a tab id, got %q", r.URL.Query().Get("tab")))
			return
		}
		info, err := s.Start(r.Context(), tab)
		if err != nil {
			writeError(w, http.StatusConflict, err)
			return
		}
		writeJSON(w, http.StatusOK, info)
	})
	mux.HandleFunc("POST /api/record/toggle", func(w http.ResponseWriter, r *http.Request) {
		tab, err := strconv.Atoi(r.URL.Query().Get("tab"))
		if err != nil || tab <= 0 {
			writeError(w, http.StatusBadRequest, fmt.Errorf("tab: want a tab id, got %q", r.URL.Query().Get("tab")))
			return
		}
		if s.recording(tab) {
			info, err := s.StopTab(r.Context(), tab)
			if err != nil {
				writeError(w, http.StatusInternalServerError, err)
				return
			}
			writeJSON(w, http.StatusOK, info)
			return
		}
		info, err := s.Start(r.Context(), tab)
		if err != nil {
			writeError(w, http.StatusConflict, err)
			return
		}
		writeJSON(w, http.StatusOK, info)
	})
	mux.HandleFunc("POST /api/record/stop", func(w http.ResponseWriter, r *http.Request) {
		info, err := s.Stop(r.Context())
		if err != nil {
			writeError(w, http.StatusInternalServerError, err)
			return
		}
		writeJSON(w, http.StatusOK, info)
	})
	mux.HandleFunc("GET /api/sessions", func(w http.ResponseWriter, r *http.Request) {
		list, err := s.Sessions()
		if err != nil {
			writeError(w, http.StatusInternalServerError, err)
			return
		}
		if list == nil {
			list = []SessionInfo{}
		}
		writeJSON(w, http.StatusOK, list)
	})
	mux.HandleFunc("GET /api/sessions/{id}", s.withSession(func(w http.ResponseWriter, r *http.Request, sess *Session) {
		writeJSON(w, http.StatusOK, sess.Info())
	}))
	mux.HandleFunc("DELETE /api/sessions/{id}", func(w http.ResponseWriter, r *http.Request) {
		err := s.DeleteSession(r.PathValue("id"))
		switch {
		case errors.Is(err, errNoSession):
			writeError(w, http.StatusNotFound, err)
		case err != nil:
			writeError(w, http.StatusConflict, err)
		default:
			w.WriteHeader(http.StatusNoContent)
		}
	})
	mux.HandleFunc("GET /api/sessions/{id}/records", s.withSession(func(w http.ResponseWriter, r *http.Request, sess *Session) {
		lines, err := sess.CDXLines()
		if err != nil {
			writeError(w, http.StatusInternalServerError, err)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, "[")
		sc := bufio.NewScanner(lines)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		first := true
		for sc.Scan() {
			line := sc.Text()
			key, rest, ok := strings.Cut(line, " ")
			ts, fields, ok2 := strings.Cut(rest, " ")
			if !ok || !ok2 {
				continue
			}
			if !first {
				io.WriteString(w, ",")
			}
			first = false
			fmt.Fprintf(w, `{"urlkey":%q,"timestamp":%q,"fields":%s}`, key, ts, fields)
		}
		io.WriteString(w, "]")
	}))
	mux.HandleFunc("GET /api/sessions/{id}/bundle.zip", s.withSession(func(w http.ResponseWriter, r *http.Request, sess *Session) {
		attachment(w, sess.BaseName()+".zip", "application/zip")
		if err := sess.WriteBundle(w); err != nil {
			// Headers are gone; cutting the stream makes the download fail visibly.
			panic(http.ErrAbortHandler)
		}
	}))
	mux.HandleFunc("GET /api/sessions/{id}/warc.gz", s.withSession(func(w http.ResponseWriter, r *http.Request, sess *Session) {
		src, err := sess.WARC()
		if err != nil {
			writeError(w, http.StatusInternalServerError, err)
			return
		}
		attachment(w, sess.BaseName()+".warc.gz", "application/warc")
		if _, err := io.Copy(w, src); err != nil {
			panic(http.ErrAbortHandler)
		}
	}))
	mux.HandleFunc("GET /api/sessions/{id}/index.cdxj", s.withSession(func(w http.ResponseWriter, r *http.Request, sess *Session) {
		index, err := sess.SortedCDX()
		if err != nil {
			writeError(w, http.StatusInternalServerError, err)
			return
		}
		attachment(w, sess.BaseName()+".cdxj", "text/plain; charset=utf-8")
		w.Write(index)
	}))
	return mux
}

func (s *Service) withSession(h func(http.ResponseWriter, *http.Request, *Session)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		sess, err := s.Session(r.PathValue("id"))
		if err != nil {
			writeError(w, http.StatusNotFound, err)
			return
		}
		h(w, r, sess)
	}
}

func attachment(w http.ResponseWriter, name, contentType string) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	w.Header().Set("Cache-Control", "no-store")
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, code int, err error) {
	writeJSON(w, code, map[string]string{"error": err.Error()})
}
