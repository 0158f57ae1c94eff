package webrequest

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/webkeep/webkeep/shared/recorder"
	"github.com/webkeep/webkeep/shared/recorder/recordertest"
)

// A tab opened from a recorded tab is loaded again once attached (recorder.CatchUp)
// unless all its requests waited for the attach: then its first load is recorded as
// it goes, and a second load would be one the user never made.
func TestOpenedTabCatchUp(t *testing.T) {
	const tab = 7
	tests := []struct {
		name     string
		steps    func(tr *Translator)
		reloaded string // what CatchUp loads again ("": nothing)
	}{
		{"held from its start: not loaded again", func(tr *Translator) { tr.Attached(tab, true) }, ""},
		{"not held (attached after its hold ran out): loaded again", func(tr *Translator) { tr.Attached(tab, false) }, "http://a.test/opened"},
		{"attached held, then again not held: loaded again", func(tr *Translator) { tr.Attached(tab, true); tr.Attached(tab, false) }, "http://a.test/opened"},
		{"held, then no longer recorded: loaded again", func(tr *Translator) { tr.Attached(tab, true); tr.Forget(tab) }, "http://a.test/opened"},
		{"another tab held: loaded again", func(tr *Translator) { tr.Attached(tab+1, true) }, "http://a.test/opened"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTranslator()
			tt.steps(tr)
			// The core's host: the translator answers first, the background page (here
			// the tab's address) the rest.
			b := &recordertest.Browser{Answer: func(method string, p map[string]any) (any, error) {
				if answer, ok, err := tr.Answer(tab, method); ok {
					if err != nil {
						return nil, err
					}
					var v any
					err := json.Unmarshal(answer, &v)
					return v, err
				}
				if method == "Page.getNavigationHistory" {
					return map[string]any{"currentIndex": 0, "entries": []any{map[string]any{"url": "http://a.test/opened"}}}, nil
				}
				return map[string]any{}, nil
			}}
			r := recorder.NewRecorder(b)
			got, err := r.CatchUp(context.Background(), recorder.Target{TabID: tab})
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.reloaded {
				t.Errorf("CatchUp loaded %q again, want %q", got, tt.reloaded)
			}
		})
	}
}

// The answer for a held tab is given once: a later catch-up of the same tab (after
// the service worker's state was lost, say) asks the background page.
func TestNavigationHistoryOnce(t *testing.T) {
	tr := NewTranslator()
	tr.Attached(3, true)
	if _, ok, _ := tr.Answer(3, "Page.getNavigationHistory"); !ok {
		t.Fatal("no answer for a tab held from its start")
	}
	if answer, ok, _ := tr.Answer(3, "Page.getNavigationHistory"); ok {
		t.Errorf("answered %s a second time", answer)
	}
}
