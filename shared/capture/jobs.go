package capture

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Job is long work the pages follow and may cancel: checking a URL database, an
// import, an upload.
type Job struct {
	ID      string    `json:"id"`
	Kind    string    `json:"kind"`
	State   string    `json:"state"` // running, done, cancelled, failed
	Done    int       `json:"done"`
	Total   int       `json:"total"`
	Error   string    `json:"error,omitempty"`
	Result  any       `json:"result,omitempty"`
	Started time.Time `json:"started"`

	cancel context.CancelFunc
}

// jobs keeps the jobs of this service instance.
type jobs struct {
	mu   sync.Mutex
	next int
	m    map[string]*Job
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
		j.m = map[string]*Job{}
	}
	if old := j.m[id]; old != nil && old.State == "running" {
		j.mu.Unlock()
		return old
	}
	ctx, cancel := context.WithCancel(context.Background())
	j.next++
	if id == "" {
		id = fmt.Sprintf("%s-%d", kind, j.next)
	}
	job := &Job{ID: id, Kind: kind, State: "running", Started: time.Now().UTC(), cancel: cancel}
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
		job.Result = res
		switch {
		case ctx.Err() != nil:
			job.State = "cancelled"
		case err != nil:
			job.State, job.Error = "failed", err.Error()
		default:
			job.State = "done"
		}
	}()
	return job
}

// get returns a copy of the job's state.
func (j *jobs) get(id string) (Job, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	job, ok := j.m[id]
	if !ok {
		return Job{}, false
	}
	return *job, true
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
