package recorder_test

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/webkeep/webkeep/shared/recorder"
	"github.com/webkeep/webkeep/shared/recorder/recordertest"
)

// A PDF navigated to in a recorded tab: Chromium gives its body to its PDF viewer and
// takes the debugger off the tab, which stays open (events and errors as Chromium 156
// gives them, scripts/probe/pdfrecord.mjs). Attached again, the recorder fetches the
// body again through the tab, and the record says so; a tab closed instead leaves the
// record with the body the browser did not give, at once. A document cut by the detach
// as its body came is fetched again too, and a frame's, as its frame; a POST's is not.
// What an earlier detach of the tab came to (recording stopped, then started again) is
// not taken for this one's.
func TestTakenOffDocumentFetchedAgain(t *testing.T) {
	const pdf = "%PDF-1.4 whole"
	for _, c := range []struct {
		name          string
		stoppedBefore bool // recording of the tab stopped and started again first
		resumed       bool
	}{{"attached again", false, true}, {"closed", false, false}, {"stopped before, then attached again", true, true}} {
		t.Run(c.name, func(t *testing.T) {
			var mu sync.Mutex
			attached := true
			fetched := map[string]string{} // URL -> frame it was fetched again as
			b := &recordertest.Browser{Answer: func(method string, p map[string]any) (any, error) {
				mu.Lock()
				defer mu.Unlock()
				switch method {
				case "Network.streamResourceContent":
					return nil, errors.New("Detached while handling command.")
				case "Network.getResponseBody":
					return nil, errors.New("Debugger is not attached to the tab with id: 3.")
				case "Network.loadNetworkResource":
					if !attached {
						return nil, errors.New("Debugger is not attached to the tab with id: 3.")
					}
					fetched[p["url"].(string)] = p["frameId"].(string)
					return map[string]any{"resource": map[string]any{"success": true, "httpStatusCode": 200, "stream": "s", "headers": map[string]any{"Content-Type": "application/pdf"}}}, nil
				case "IO.read":
					return map[string]any{"data": b64(pdf), "base64Encoded": true, "eof": true}, nil
				}
				return map[string]any{}, nil
			}}
			r := recorder.NewRecorder(b)
			got := map[string]*recorder.Exchange{}
			r.OnExchange = func(ex *recorder.Exchange) { mu.Lock(); got[ex.URL] = ex; mu.Unlock() }
			ctx := context.Background()
			tab := recorder.Target{TabID: 3}
			if err := r.Enable(ctx, tab); err != nil {
				t.Fatal(err)
			}
			if c.stoppedBefore {
				r.Detached(ctx, tab, "recording stopped")
				if err := r.Enable(ctx, tab); err != nil {
					t.Fatal(err)
				}
			}
			url := func(id string) string { return "http://example.org/" + id }
			req := func(id, frame, method string) recordertest.Event {
				return recordertest.Event{Method: "Network.requestWillBeSent", Params: fmt.Sprintf(`{"requestId":%q,"type":"Document","frameId":%q,"loaderId":%q,"request":{"url":%q,"method":%q,"headers":{}}}`, id, frame, id, url(id), method)}
			}
			resp := func(id string) recordertest.Event {
				return recordertest.Event{Method: "Network.responseReceived", Params: fmt.Sprintf(`{"requestId":%q,"type":"Document","response":{"url":%q,"status":200,"mimeType":"application/pdf","headers":{"Content-Type":"application/pdf","Content-Length":"%d"}}}`, id, url(id), len(pdf))}
			}
			fin := func(id string) recordertest.Event {
				return recordertest.Event{Method: "Network.loadingFinished", Params: fmt.Sprintf(`{"requestId":%q}`, id)}
			}
			for _, ev := range []recordertest.Event{
				req("frame.pdf", "F", "GET"), resp("frame.pdf"), fin("frame.pdf"),
				req("form.pdf", "M", "POST"), resp("form.pdf"), fin("form.pdf"),
				req("doc.pdf", "M", "GET"), resp("doc.pdf"), fin("doc.pdf"),
				req("big.pdf", "M", "GET"), resp("big.pdf"),
			} {
				if err := r.HandleEvent(ctx, tab, ev.Method, json.RawMessage(ev.Params), nil); err != nil {
					t.Fatal(err)
				}
			}
			if c.resumed {
				r.Detached(ctx, tab, recorder.ReasonTakenOff)
				if err := r.Enable(ctx, tab); err != nil {
					t.Fatal(err)
				}
				r.Resumed(tab.TabID, true)
			} else {
				mu.Lock()
				attached = false
				mu.Unlock()
				r.Detached(ctx, tab, "target_closed")
			}
			r.Wait()
			body := func(ex *recorder.Exchange) string {
				rd, err := ex.Body()
				if err != nil {
					t.Fatal(err)
				}
				all, _ := io.ReadAll(rd)
				return string(all)
			}
			for _, id := range []string{"doc.pdf", "big.pdf", "frame.pdf", "form.pdf"} {
				ex := got[url(id)]
				if ex == nil {
					t.Fatalf("%s: not recorded", id)
				}
				again := c.resumed && id != "form.pdf"
				if again {
					if b := body(ex); b != pdf || ex.RespTruncated != "" || !strings.Contains(ex.RespNote, "took the debugger off the tab before the body could be read") || !strings.Contains(ex.RespNote, "fetched again") {
						t.Errorf("%s: body %q, truncated %q, note %q; want it fetched again", id, b, ex.RespTruncated, ex.RespNote)
					}
					if frame := map[string]string{"frame.pdf": "F"}[id]; fetched[url(id)] != cmp.Or(frame, "M") {
						t.Errorf("%s: fetched again as frame %q, want %q", id, fetched[url(id)], cmp.Or(frame, "M"))
					}
					continue
				}
				if b := body(ex); b != "" || ex.RespTruncated == "" || ex.RespNote == "" || strings.Contains(ex.RespNote, "fetched again") {
					t.Errorf("%s: body %q, truncated %q, note %q; want it marked as not had", id, b, ex.RespTruncated, ex.RespNote)
				}
				if _, ok := fetched[url(id)]; ok {
					t.Errorf("%s: fetched again", id)
				}
			}
		})
	}
}
