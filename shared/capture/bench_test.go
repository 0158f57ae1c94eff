package capture

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"slices"
	"testing"
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
	handled := map[string]bool{}
	for _, m := range HandledEvents {
		handled[m] = true
	}
	evs = slices.DeleteFunc(evs, func(ev galleryEvent) bool { return !handled[ev.Method] })
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
			svc.Event(ctx, Target{TabID: 1, Session: ev.Session}, ev.Method, ev.Params, nil)
		}
		svc.do(func() { svc.recorder.Wait() })
		svc.flushWrites()
	}
	b.StopTimer()
	svc.do(func() {})
	b.ReportMetric(float64(len(evs)), "events/op")
}
