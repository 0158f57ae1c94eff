package capture

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/shared/httpmsg"
)

// Job is long work the pages follow and may cancel: checking a URL database, an
// import, an upload.
type Job = api.Job

// runningJob is a job and what cancels it.
type runningJob struct {
	Job
	cancel context.CancelFunc
}

// jobs keeps the jobs of this service instance.
type jobs struct {
	mu   sync.Mutex
	next int
	m    map[string]*runningJob
}

// start runs f as a job; f reports progress through the callback and returns the
// job's result.
func (j *jobs) start(kind string, f func(ctx context.Context, progress func(done, total int)) (any, error)) *Job {
	return j.startAs("", kind, f)
}

// startAs is start with the job's id given ("" for a new one): work that outlives a
// service instance (an upload resumed after a restart) keeps its id, so a page
// following it goes on. A job of that id still running is returned instead.
func (j *jobs) startAs(id, kind string, f func(ctx context.Context, progress func(done, total int)) (any, error)) *Job {
	j.mu.Lock()
	if j.m == nil {
		j.m = map[string]*runningJob{}
	}
	if old := j.m[id]; old != nil && old.State == api.JobRunning {
		j.mu.Unlock()
		return &old.Job
	}
	ctx, cancel := context.WithCancel(context.Background())
	j.next++
	if id == "" {
		id = fmt.Sprintf("%s-%d", kind, j.next)
	}
	job := &runningJob{Job: Job{ID: id, Kind: kind, State: api.JobRunning, Started: time.Now().UTC()}, cancel: cancel}
	j.m[job.ID] = job
	j.mu.Unlock()
	go func() {
		defer cancel()
		res, err := f(ctx, func(done, total int) {
			j.mu.Lock()
			job.Done, job.Total = done, total
			j.mu.Unlock()
		})
		j.mu.Lock()
		defer j.mu.Unlock()
		if res != nil {
			var jsonErr error
			if job.Result, jsonErr = json.Marshal(res); jsonErr != nil && err == nil {
				err = fmt.Errorf("%s: its result: %w", kind, jsonErr)
			}
		}
		switch {
		case ctx.Err() != nil:
			job.State = api.JobCancelled
		case err != nil:
			job.State, job.Error = api.JobFailed, err.Error()
		default:
			job.State = api.JobDone
		}
	}()
	return &job.Job
}

// get returns a copy of the job's state.
func (j *jobs) get(id string) (Job, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	job, ok := j.m[id]
	if !ok {
		return Job{}, false
	}
	return job.Job, true
}

// stop cancels a job.
func (j *jobs) stop(id string) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	job, ok := j.m[id]
	if ok {
		job.cancel()
	}
	return ok
}

// routes adds the jobs: follow one, and cancel it.
func (j *jobs) routes(mux *routeTable) {
	mux.HandleFunc("GET /api/jobs/{id}", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		job, ok := j.get(r.PathValue("id"))
		if !ok {
			writeError(w, notFound(fmt.Errorf("no job %q", r.PathValue("id"))))
			return
		}
		writeJSON(w, httpmsg.StatusOK, job)
	})
	mux.HandleFunc("DELETE /api/jobs/{id}", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		if !j.stop(r.PathValue("id")) {
			writeError(w, notFound(fmt.Errorf("no job %q", r.PathValue("id"))))
			return
		}
		w.WriteHeader(httpmsg.StatusNoContent)
	})
}
