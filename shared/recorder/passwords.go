package recorder

// The names of a page's fields of type password, which the archive's writer redacts
// from the forms the page sends when the user asks it to (shared/capture). They are
// learnt three ways, since a form that navigates takes its page away: the page is asked
// when a frame of it has loaded, and again as a request with a body starts, and the
// page itself tells them as it sends a form or a body (uploadScript, op "passwords").

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// passwordAskLimit bounds how long Enable waits for a page to name its password fields.
const passwordAskLimit = time.Second

// onFrameStoppedLoading asks a tab's page for its password fields once a frame of it
// has loaded.
func (r *Recorder) onFrameStoppedLoading(ctx context.Context, t Target, ev *frameStoppedLoading) {
	if t.Session == "" && ev.FrameID != "" {
		r.rememberPasswordFields(ctx, t)
	}
}

// passwordFieldsScript lists the names of the fields of type password in the page and
// in its frames of the same origin.
const passwordFieldsScript = `(() => {
  const names = new Set();
  const walk = (d) => {
    for (const e of d.querySelectorAll("input[type=password]")) if (e.name) names.add(e.name);
    for (const f of d.querySelectorAll("iframe, frame")) { try { if (f.contentDocument) walk(f.contentDocument); } catch (e) {} }
  };
  walk(document);
  return [...names];
})()`

// askPasswordFields asks the page that sends a request with a body which of its
// fields are of type password, as the request starts, adding them to those its page
// had when it last loaded a frame: a form that navigates may be gone by the time the
// browser answers. A question put to the page when it loaded and not yet answered
// (asked, nil if none) is waited for first, up to passwordAskLimit: the form is sent
// by the page that question went to, which a script (or a password manager) may fill
// and submit before the answer is back. The names are those redactPasswords looks
// for, besides the names a password goes by.
func (r *Recorder) askPasswordFields(ctx context.Context, t Target, p *pendingExchange, asked chan struct{}) {
	p.reqWG.Add(1)
	r.work.Add(1)
	go func() {
		defer r.work.Done()
		defer p.reqWG.Done()
		if asked != nil {
			wait := time.NewTimer(passwordAskLimit)
			select {
			case <-asked:
				r.mu.Lock()
				if ts := r.tabs[t.TabID]; ts != nil {
					p.ex.PasswordDOM = withNames(p.ex.PasswordDOM, ts.passwordNames)
				}
				r.mu.Unlock()
			case <-wait.C:
			case <-ctx.Done():
			}
			wait.Stop()
		}
		if names, err := r.passwordFieldNames(ctx, t); err == nil {
			r.mu.Lock()
			p.ex.PasswordDOM = withNames(p.ex.PasswordDOM, names)
			r.mu.Unlock()
		}
	}()
}

// rememberPasswordFields asks, on a goroutine of its own, for the names of the fields
// of type password of the page of t, and keeps them for the requests it sends.
func (r *Recorder) rememberPasswordFields(ctx context.Context, t Target) {
	done := make(chan struct{})
	r.mu.Lock()
	r.tab(t.TabID).passwordAsk = done
	r.mu.Unlock()
	r.work.Add(1)
	go func() {
		defer r.work.Done()
		defer close(done)
		if names, err := r.passwordFieldNames(ctx, t); err == nil {
			r.mu.Lock()
			if ts := r.tabs[t.TabID]; ts != nil { // not detached meanwhile
				ts.passwordNames = names
			}
			r.mu.Unlock()
		}
	}()
}

// passwordFieldNames asks the page of t for the names of its fields of type password.
func (r *Recorder) passwordFieldNames(ctx context.Context, t Target) ([]string, error) {
	res, err := r.browser.Send(ctx, t, "Runtime.evaluate", map[string]any{
		"expression": passwordFieldsScript, "returnByValue": true, "silent": true,
	})
	if err != nil {
		return nil, err
	}
	var out struct {
		Result struct {
			Value []string `json:"value"`
		} `json:"result"`
	}
	if err := json.Unmarshal(res, &out); err != nil {
		return nil, fmt.Errorf("Runtime.evaluate: %w", err)
	}
	return out.Result.Value, nil
}

// maxPasswordNames bounds the names a page's report is taken with.
const maxPasswordNames = 100

// onPasswordsSent takes the names of the fields of type password that the page of tab
// told as it sent a form or a body: they join the names known for the tab and those of
// each of its requests with a body not yet archived (the report and the request may
// come in either order).
func (r *Recorder) onPasswordsSent(tab int, names []string) {
	names = slices.DeleteFunc(slices.Clone(names[:min(len(names), maxPasswordNames)]), func(n string) bool { return n == "" })
	if len(names) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	ts := r.tab(tab)
	ts.passwordNames = withNames(slices.Clone(ts.passwordNames), names)
	for _, p := range ts.pending {
		if p.ex.Method != "GET" {
			p.ex.PasswordDOM = withNames(p.ex.PasswordDOM, names)
		}
	}
}

// withNames returns names with each of more it lacks appended.
func withNames(names, more []string) []string {
	for _, n := range more {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}
