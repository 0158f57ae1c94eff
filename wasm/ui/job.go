//go:build js && wasm

package main

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"syscall/js"
	"time"

	"honnef.co/go/js/dom/v2"

	"github.com/webkeep/webkeep/shared/api"
)

// progressBox shows one piece of long work in the page's #jobs list: what it is, a
// progress bar, how far it is, and a Cancel button.
type progressBox struct {
	root, bar, count, cancelButton dom.Element
	once                           sync.Once
	cancel                         chan struct{} // closed when the user cancels
}

func newProgress(label string) *progressBox {
	p := &progressBox{
		root:   el("li", "", "class", "job", "data-state", api.JobRunning),
		bar:    el("progress", ""),
		count:  el("span", "", "class", "count"),
		cancel: make(chan struct{}),
	}
	p.cancelButton = button("Cancel", "", func() {
		p.once.Do(func() { close(p.cancel) })
		setDisabled(p.cancelButton, true)
	}, "data-action", "cancel")
	add(p.root, el("span", label, "class", "label"), p.bar, p.count, p.cancelButton)
	byID("jobs").AppendChild(p.root)
	return p
}

// set shows how far the work is; total 0 is unknown.
func (p *progressBox) set(done, total int64, text string) {
	if total > 0 {
		p.bar.SetAttribute("max", strconv.FormatInt(total, 10))
		p.bar.SetAttribute("value", strconv.FormatInt(done, 10))
	}
	p.count.SetTextContent(text)
}

// finish shows how the work ended and lets the user dismiss the box.
func (p *progressBox) finish(state, text string) {
	p.root.SetAttribute("data-state", state)
	if state == api.JobDone {
		// Work done is a full bar, whatever the last progress report said.
		p.bar.SetAttribute("max", "1")
		p.bar.SetAttribute("value", "1")
	}
	p.count.SetTextContent(text)
	p.cancelButton.Remove()
	p.root.AppendChild(button("×", "dismiss", func() { p.root.Remove() }, "title", "Dismiss", "aria-label", "Dismiss"))
}

// pollEvery is how often a running job is asked how far it is.
const pollEvery = 400 * time.Millisecond

// trackJob shows a job's progress until it ends, cancelling it if the user asks, and
// returns its final state: an error if it failed or was cancelled.
func trackJob(label, id string) (api.Job, error) {
	// One box a job: a job run again under its id (a session's upload) replaces the
	// box of its last run.
	for _, old := range byID("jobs").QuerySelectorAll(`[data-job="` + id + `"]`) {
		old.Remove()
	}
	p := newProgress(label)
	p.root.SetAttribute("data-job", id)
	path := "/api/jobs/" + id
	cancel := p.cancel
	for {
		var j api.Job
		if err := call("GET", path, nil, &j); err != nil {
			p.finish(api.JobFailed, "failed")
			return j, err
		}
		p.set(int64(j.Done), int64(j.Total), jobProgress(j))
		if j.Finished() {
			switch j.State {
			case api.JobDone:
				p.finish(j.State, "done: "+jobProgress(j))
				return j, nil
			case api.JobCancelled:
				p.finish(j.State, "cancelled at "+jobProgress(j))
				return j, errCancelled
			default:
				p.finish(j.State, "failed")
				if j.Error == "" {
					j.Error = "the job failed without saying why"
				}
				return j, fmt.Errorf("%s: %s", label, j.Error)
			}
		}
		select {
		case <-cancel:
			cancel = nil // asked once; now wait for the job to stop
			p.count.SetTextContent("cancelling…")
			if err := call("DELETE", path, nil, nil); err != nil {
				showError(fmt.Errorf("cancelling %s: %w", label, err))
			}
		case <-time.After(pollEvery):
		}
	}
}

// uploadWithProgress sends body (a File, Blob or FormData) showing its progress in a
// box whose Cancel button aborts the upload.
func uploadWithProgress(label, method, path string, body js.Value, out any) error {
	p := newProgress(label)
	err := send(method, path, body, func(done, total int64) {
		text := transferProgress(done, total)
		if done == total {
			text += ", processing…"
		}
		p.set(done, total, text)
	}, p.cancel, out)
	switch {
	case errors.Is(err, errCancelled):
		p.finish(api.JobCancelled, "cancelled")
	case err != nil:
		p.finish(api.JobFailed, "failed")
	default:
		p.finish(api.JobDone, "done")
	}
	return err
}
