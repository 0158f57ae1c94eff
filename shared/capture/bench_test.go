package capture

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/webkeep/webkeep/shared/recorder"
)

// galleryEvent is one DevTools event as the service worker got it.
type galleryEvent struct {
	Session string          `json:"session"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// galleryEvents reads testdata/gallery-events.jsonl: the DevTools events Chromium sent
// the extension for one load of the demo site's /gallery page (HTML, CSS, a script,
// three images, a worker that POSTs), recorded by the real extension.
func galleryEvents(tb testing.TB) []galleryEvent {
	f, err := os.Open("testdata/gallery-events.jsonl")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var evs []galleryEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev galleryEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			tb.Fatal(err)
		}
		evs = append(evs, ev)
	}
	return evs
}

// BenchmarkGalleryEvents: the core's work for one recorded page load, event by event,
// as the service worker hands it the events it acts on (records written included).
// Run it as wasm too (GOOS=js GOARCH=wasm, go_js_wasm_exec on PATH): that is what the
// page waits behind.
func BenchmarkGalleryEvents(b *testing.B) {
	evs := galleryEvents(b)
	fields := recorder.EventFields()
	evs = slices.DeleteFunc(evs, func(ev galleryEvent) bool { return fields[ev.Method] == nil })
	for i := range evs {
		evs[i].Params = projectJSON(b, evs[i].Params, fields[evs[i].Method])
	}
	svc, err := NewService(NewMemStore(), newFakeHost())
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if _, err := svc.Start(ctx, 1); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for _, ev := range evs {
			svc.Event(ctx, recorder.Target{TabID: 1, Session: ev.Session}, ev.Method, ev.Params, nil)
		}
		svc.do(func() { svc.recorder.Wait() })
		svc.flushWrites()
	}
	b.StopTimer()
	svc.do(func() {})
	b.ReportMetric(float64(len(evs)), "events/op")
}

// projectJSON keeps of params the fields in tree (see EventFields), as the service
// worker's shim does.
func projectJSON(tb testing.TB, params json.RawMessage, tree any) json.RawMessage {
	var v any
	if err := json.Unmarshal(params, &v); err != nil {
		tb.Fatal(err)
	}
	out, err := json.Marshal(project(v, tree))
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

func project(v, tree any) any {
	fields, ok := tree.(map[string]any)
	obj, isObj := v.(map[string]any)
	if !ok || !isObj {
		return v
	}
	out := map[string]any{}
	for k, sub := range fields {
		if x, ok := obj[k]; ok {
			out[k] = project(x, sub)
		}
	}
	return out
}
