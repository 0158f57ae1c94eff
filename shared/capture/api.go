package capture

import (
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
	"github.com/webkeep/webkeep/shared/httpmsg"
)

// Handler returns the HTTP API the extension's pages use, as docs/api.md documents it
// (a test holds the two to the same routes; shared/api has the JSON). In the extension
// it answers requests for /api/... of the extension's own origin, through the service
// worker's fetch event.
func (s *Service) Handler() httpmsg.Handler {
	return s.api().Mux
}

// A feature is a part of the service that answers routes of the API.
type feature interface {
	routes(mux *routeTable)
}

// api registers the routes of every feature: a new feature adds its line here.
func (s *Service) api() *routeTable {
	mux := &routeTable{Mux: httpmsg.NewMux()}
	for _, f := range []feature{
		s, // recording
		s.archive,
		s.signing,
		s.db,
		s.replays,
		s.team,
		s.jobs,
		s.settings,
		s.search,
		s.thumbs,
		s.pilots,
		s.checks,
	} {
		f.routes(mux)
	}
	return mux
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

// StopPaths are the paths of the API's POSTs that may stop a recording (stop, and the
// shortcut's toggle). The browser's events lag behind the page, and stopping must see
// those about what the page did before: while the core answers one of these, a host
// that paces events hands each to it at once (extension/pacing.js `during`).
var StopPaths = []string{"/api/record/stop", "/api/record/toggle"}

// routes adds the recording's routes: its state, start, stop, and the shortcut's
// toggle.
func (s *Service) routes(mux *routeTable) {
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

// sendReader answers a download of what open gives, or the error that kept it from
// being opened.
func sendReader(w httpmsg.ResponseWriter, name, contentType string, open func() (io.Reader, error)) {
	src, err := open()
	if err != nil {
		writeError(w, err)
		return
	}
	sendFile(w, name, contentType, func(w io.Writer) error {
		_, err := io.Copy(w, src)
		return err
	})
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
