package recorder

// The commands the recorder sends the browser to set a tab up (Enable, and the workers
// and frames attached to it), to load a page again (CatchUp), or with no answer waited
// for (command), and the log every command goes through (commandLog), which knows
// those waiting for an answer and fails those to a target that went away. A command
// whose answer is used is sent where that concern is handled: a body's in bodies.go,
// a password question's in passwords.go.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// Enable prepares a newly attached tab: the Network and Page domains, with bodies kept
// by the browser until they are read (durable messages), and automatic attachment to
// the tab's workers and out-of-process frames, which get the same treatment.
func (r *Recorder) Enable(ctx context.Context, t Target) error {
	if err := r.enable(ctx, t, "page"); err != nil {
		return err
	}
	r.forgetResumption(t.TabID)
	// A session the browser kept while the service worker restarted may still have
	// the Fetch domain on, its window's end lost with the worker: its requests would
	// wait to be let go for ever (see leftPages). Firefox has no such domain. Both
	// are sent aside: a tab opened from a recorded one must be enabled before its
	// first load goes.
	r.work.Add(1)
	aside := context.WithoutCancel(ctx)
	go func() {
		defer r.work.Done()
		r.browser.Send(aside, t, "Fetch.disable", nil)
		r.mainFrame(aside, t)
	}()
	// The page may have loaded before: its password fields are asked for now, and are
	// known before recording is said to have begun, so that a login sent at once is
	// found (a question asked as the login is sent may be answered by the next page).
	// A page that does not answer soon is asked again on a goroutine.
	ask, cancel := context.WithTimeout(ctx, passwordAskLimit)
	defer cancel()
	names, err := r.passwordFieldNames(ask, t)
	if err != nil {
		r.rememberPasswordFields(ctx, t)
		return nil
	}
	r.mu.Lock()
	if ts := r.tabs[t.TabID]; ts != nil {
		ts.passwordNames = names
	}
	r.mu.Unlock()
	return nil
}

type step struct {
	method string
	params any
}

func (r *Recorder) enable(ctx context.Context, t Target, kind string) error {
	steps := []step{
		{"Network.enable", map[string]any{
			// Larger bodies are streamed, not buffered.
			"maxTotalBufferSize":    256 << 20,
			"maxResourceBufferSize": 64 << 20,
			"maxPostDataSize":       64 << 20,
		}},
		// The browser's cache stays on: a response it serves from its cache is archived
		// as the page used it, and says so (see noteCache).
		{"Target.setAutoAttach", map[string]any{"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true}},
	}
	if kind == "page" || kind == "iframe" {
		// Workers have no Page domain and no durable messages: their bodies are read
		// from the buffers of the Network domain when they finish.
		steps = append([]step{{"Page.enable", nil}}, steps...)
		steps = append(steps,
			step{"Network.configureDurableMessages", map[string]any{"maxTotalBufferSize": 256 << 20, "maxResourceBufferSize": 64 << 20}})
	}
	for _, s := range steps {
		if _, err := r.browser.Send(ctx, t, s.method, s.params); err != nil {
			return fmt.Errorf("recorder: %s on tab %d (%s): %w", s.method, t.TabID, kind, err)
		}
	}
	if kind == "page" || kind == "iframe" {
		// The copies of the files its documents send (see uploadScript). A browser
		// that cannot run it (Firefox's shim) leaves those bodies marked as hidden.
		copying := true
		for _, s := range []step{
			{"Runtime.enable", nil},
			{"Runtime.addBinding", map[string]any{"name": uploadBinding}},
			{"Page.addScriptToEvaluateOnNewDocument", map[string]any{"source": uploadScript}},
		} {
			if _, err := r.browser.Send(ctx, t, s.method, s.params); err != nil {
				copying = false
				break
			}
		}
		if t.Session == "" {
			r.mu.Lock()
			r.tab(t.TabID).copying = copying
			r.mu.Unlock()
		}
		if copying && kind == "page" && t.Session == "" {
			// The document the tab shows already, loaded before recording began, runs
			// it too. A page that is going away as it is asked needs it no more.
			r.browser.Send(ctx, t, "Runtime.evaluate", map[string]any{"expression": uploadScript, "silent": true})
		}
	}
	if kind == "page" || kind == "iframe" {
		// A tab's state is made as it is enabled; a frame's enabling, which goes on
		// aside, notes nothing of a tab detached meanwhile.
		r.mu.Lock()
		if ts := r.tabs[t.TabID]; ts != nil || t.Session == "" {
			r.tab(t.TabID).durable[t.Session] = true
		}
		r.mu.Unlock()
	}
	return nil
}

// attachChild enables a worker or frame that the browser attached on its own, at url,
// then lets it run: it waits for the debugger until told to go on.
//
// A frame of an extension's page is not the web, nor what it holds: it is let run and
// not enabled, so nothing of it or of its frames is recorded. Chromium's PDF viewer is
// one (a frame of its own extension in the tab showing a PDF): its inner frame,
// attached, showed the PDF's URL with an answer of the viewer's making (status 200, no
// header, no connection, no body), which was archived as a second capture of the PDF,
// cut, and replayed in place of the whole one (3 of 16 runs of the end-to-end test on a
// loaded machine, where the tab was attached again before the viewer made its frames).
func (r *Recorder) attachChild(ctx context.Context, t Target, kind, url string) {
	defer r.browser.Send(ctx, t, "Runtime.runIfWaitingForDebugger", nil)
	if strings.HasPrefix(url, extensionScheme) {
		return
	}
	switch kind {
	case "iframe", "worker", "shared_worker", "service_worker":
		// A short-lived worker may be gone before it is enabled: nothing was missed.
		if err := r.enable(ctx, t, kind); err != nil && !errors.Is(err, errTargetGone) && !strings.Contains(err.Error(), "Session with given id not found") {
			r.report(err)
		}
	}
}

// CatchUp reloads a tab that already shows a web page when the recorder attaches, so
// the page is recorded whole. It returns the reloaded URL, or "" if there was nothing
// to catch up with.
func (r *Recorder) CatchUp(ctx context.Context, t Target) (string, error) {
	res, err := r.browser.Send(ctx, t, "Page.getNavigationHistory", nil)
	if err != nil {
		return "", err
	}
	var h struct {
		CurrentIndex int `json:"currentIndex"`
		Entries      []struct {
			URL string `json:"url"`
		} `json:"entries"`
	}
	if err := json.Unmarshal(res, &h); err != nil {
		return "", fmt.Errorf("Page.getNavigationHistory: %w", err)
	}
	if h.CurrentIndex < 0 || h.CurrentIndex >= len(h.Entries) || !archivable(h.Entries[h.CurrentIndex].URL) {
		return "", nil
	}
	if _, err := r.browser.Send(ctx, t, "Page.reload", map[string]any{"ignoreCache": true}); err != nil {
		return "", err
	}
	return h.Entries[h.CurrentIndex].URL, nil
}

// command sends a command whose answer nothing waits for; an error is the user's to
// see unless the target is gone.
func (r *Recorder) command(ctx context.Context, t Target, method string, params map[string]any) {
	r.work.Add(1)
	go func() {
		defer r.work.Done()
		if _, err := r.browser.Send(ctx, t, method, params); err != nil && ctx.Err() == nil && !r.gone(t) {
			r.report(fmt.Errorf("%s: %w", method, err))
		}
	}()
}

// gone reports whether t's tab is no longer recorded (its main frame forgotten).
func (r *Recorder) gone(t Target) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	ts := r.tabs[t.TabID]
	return ts == nil || ts.left.main == ""
}

// commandLog is a Browser that keeps the commands waiting for an answer, so that a
// wait that gives up can say which.
type commandLog struct {
	Browser
	mu       sync.Mutex
	next     int
	sent     map[int]sentCommand
	gone     map[Target]error // workers and frames that ended, and why
	answered time.Time        // when the last answer came
}

// touch counts as an answer: work that talks to the browser by other means than
// Send (a BodyRouter reading a stream) goes on.
func (b *commandLog) touch() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.answered = time.Now()
}

// lastAnswered returns when the browser last answered a command.
func (b *commandLog) lastAnswered() time.Time {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.answered
}

type sentCommand struct {
	method string
	target Target
	since  time.Time
	cancel context.CancelCauseFunc
}

// errTargetGone is why a command to a target that went away fails: the browser
// does not always answer it (a worker that ended while being set up).
var errTargetGone = errors.New("target gone")

// Send sends the command through the Browser, logged until it is answered; a command
// to a target that went away fails at once, and one cancelled with it fails with why.
func (b *commandLog) Send(ctx context.Context, t Target, method string, params any) (json.RawMessage, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	b.mu.Lock()
	if why := b.gone[t]; why != nil {
		b.mu.Unlock()
		cancel(nil)
		return nil, fmt.Errorf("%s: %w", method, why)
	}
	b.next++
	id := b.next
	b.sent[id] = sentCommand{method, t, time.Now(), cancel}
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		delete(b.sent, id)
		b.answered = time.Now()
		b.mu.Unlock()
		cancel(nil)
	}()
	res, err := b.Browser.Send(ctx, t, method, params)
	if err != nil && ctx.Err() != nil {
		err = fmt.Errorf("%s: %w", method, context.Cause(ctx))
	} else if err != nil {
		err = plainError(err)
	}
	return res, err
}

// plainError turns the error of a DevTools command, which the browser gives as the
// protocol's JSON error object ({"code":-32000,"message":"No resource with given
// identifier found"}), into its message, the words a user can read. Other errors are
// returned as they are.
func plainError(err error) error {
	msg := err.Error()
	i := strings.Index(msg, `{"code"`)
	if i < 0 {
		return err
	}
	var obj struct {
		Message string `json:"message"`
		Data    string `json:"data"`
	}
	if json.Unmarshal([]byte(msg[i:]), &obj) != nil || obj.Message == "" {
		return err
	}
	plain := obj.Message
	if obj.Data != "" {
		plain += " (" + obj.Data + ")"
	}
	return &browserError{plain: msg[:i] + plain, err: err}
}

// browserError is a DevTools command's error in plain words; it unwraps to the error
// the browser gave.
type browserError struct {
	plain string
	err   error
}

// Error returns the error in plain words.
func (e *browserError) Error() string { return e.plain }

// Unwrap returns the error the browser gave.
func (e *browserError) Unwrap() error { return e.err }

// abandon cancels the commands sent to t, or to any target t covers, with why. A
// worker or frame (t with a Session) is gone for good: later commands to it fail at
// once. A tab may be attached again, and forgets its workers and frames.
func (b *commandLog) abandon(t Target, why error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, c := range b.sent {
		if t.covers(c.target) {
			c.cancel(why)
		}
	}
	if t.Session != "" {
		if b.gone == nil {
			b.gone = map[Target]error{}
		}
		b.gone[t] = why
		return
	}
	for g := range b.gone {
		if t.covers(g) {
			delete(b.gone, g)
		}
	}
}

// waiting lists the commands sent and not answered, oldest first.
func (b *commandLog) waiting() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	ids := make([]int, 0, len(b.sent))
	for id := range b.sent {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		c := b.sent[id]
		out = append(out, fmt.Sprintf("%s (%.0f s)", c.method, time.Since(c.since).Seconds()))
	}
	return out
}
