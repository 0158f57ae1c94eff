package capture

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/shared/httpmsg"
	"github.com/webkeep/webkeep/shared/recorder"
)

// database is the URL database as the pages use it: loaded from an upload (a job),
// looked at, exported, added to from a recorded response, and checked whole (Check
// all, checkall.go). Recording checks each page against it (urlDatabase.check).
type database struct {
	*urlDatabase
	store    Store
	settings *userSettings
	http     *clients
	jobs     *jobs
	sessions *sessions
	now      func() time.Time
}

// routes adds the URL database: load, look, export, add records, check all.
func (d *database) routes(mux *routeTable) {
	mux.HandleFunc("GET /api/urldb", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		writeJSON(w, httpmsg.StatusOK, d.Info())
	})
	mux.HandleFunc("POST /api/urldb", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		job, err := d.load(r.Context(), r.URL.Query().Get("name"), r.Header.Get("Content-Type"), r.Body)
		answerJob(w, job, badRequest(err))
	})
	mux.HandleFunc("DELETE /api/urldb", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		if err := d.Clear(); err != nil {
			writeError(w, err)
			return
		}
		w.WriteHeader(httpmsg.StatusNoContent)
	})
	mux.HandleFunc("GET /api/urldb/export.zip", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		sendFile(w, "url-database.zip", "application/zip", d.WriteZip)
	})
	mux.HandleFunc("POST /api/urldb/records", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		var body api.AddRecord
		if err := readJSON(r.Body, 1<<20, &body); err != nil {
			writeError(w, badRequest(fmt.Errorf("add: want {\"session\", \"offset\", \"categories\", \"static\"}: %w", err)))
			return
		}
		sess, err := d.sessions.find(body.Session)
		if err != nil {
			writeError(w, err) // an unknown session
			return
		}
		rawURL, resp, err := sess.Response(body.Offset)
		if err != nil {
			writeError(w, badRequest(err))
			return
		}
		rec, domain, err := d.Add(rawURL, resp, body.Categories, body.Static)
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
		job, err := d.checkAll(body.Session, body.Record)
		answerJob(w, job, conflict(err))
	})
}

// load keeps an upload of a URL database in the store (see databaseFiles) and starts
// a job that loads it in place of the current one. The job's Done and Total count the
// YAML documents parsed; its Result is the new DatabaseInfo. If the upload fails to
// load, or the job is cancelled, the current database stays.
func (d *database) load(ctx context.Context, name, contentType string, body io.Reader) (*Job, error) {
	if name == "" {
		name = "the upload"
	}
	f, err := storeFile(ctx, d.store, recorder.NewSpoolPrefix(), body, maxDatabaseUpload, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return d.jobs.start("urldb", func(ctx context.Context, progress func(done, total int)) (any, error) {
		defer f.remove()
		in := &jobInput{r: f, ctx: ctx, size: f.Size()}
		files, err := databaseFiles(ctx, name, contentType, in, f.Size())
		if err != nil {
			return nil, err
		}
		return d.replace(ctx, files, progress)
	}), nil
}
