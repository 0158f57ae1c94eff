package capture

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/jpeg"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/shared/recorder"
)

// testPicture is a 320x200 JPEG: white, with a dark band from top to bottom.
func testPicture(t *testing.T, top, bottom int) []byte {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, 1280, 800)) // as the browser takes it
	for y := 0; y < 800; y++ {
		for x := 0; x < 1280; x++ {
			img.SetGray(x, y, color.Gray{255})
			if y >= 4*top && y < 4*bottom {
				img.SetGray(x, y, color.Gray{40})
			}
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// scaled is a picture as the core keeps it: scaled down (thumbnail).
func scaled(t *testing.T, picture []byte) []byte {
	t.Helper()
	b, err := thumbnail(picture)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A page's replay, checked against what it showed live: the verdict, kept with the
// session, listed with its page, in the report, and in the WARC as a note.
func TestCaptureCheckOfAPage(t *testing.T) {
	live := testPicture(t, 20, 60)
	svc, h, info := recordPageWith(t, func(method string, p map[string]any) (any, error) {
		switch method {
		case "Network.getResponseBody":
			return map[string]any{"body": "<title>Home</title><p>The lake and the boats</p>"}, nil
		case "Runtime.evaluate":
			return map[string]any{"result": map[string]any{"value": []string{"http://example.org/", "complete", "The lake and the boats"}}}, nil
		case "Page.captureScreenshot":
			return map[string]any{"data": base64.StdEncoding.EncodeToString(live)}, nil
		}
		return map[string]any{}, nil
	})
	do(t, h, "POST", "/api/record/stop", &info) // pictures the page as recording stops
	var pages []api.Page
	do(t, h, "GET", "/api/sessions/"+info.ID+"/pages", &pages)
	if len(pages) != 1 || !pages[0].Thumbnail {
		t.Fatalf("pages: %+v", pages)
	}
	post := func(in api.CheckedReplay) (api.CaptureCheck, int) {
		body, _ := json.Marshal(in)
		var out api.CaptureCheck
		rec := send(t, h, "POST", "/api/sessions/"+info.ID+"/checks", "application/json", body, &out)
		return out, rec.Code
	}
	same, code := post(api.CheckedReplay{Page: pages[0].ID, Loaded: true, Text: "The lake and the boats", Picture: testPicture(t, 20, 60)})
	if code != http.StatusOK || same.Verdict != "replays" || len(same.Why) != 0 || !same.Live || same.URL != "http://example.org/" || same.PictureDifference > 0.01 || same.TextSimilarity != 1 {
		t.Errorf("a replay as live: %d %+v", code, same)
	}
	other, _ := post(api.CheckedReplay{Page: pages[0].ID, Loaded: true, Text: "The lake", Picture: testPicture(t, 120, 160)})
	if other.Verdict != "differs" || len(other.Why) != 2 || !strings.Contains(other.Why[0], "text") || !strings.Contains(other.Why[1], "look") {
		t.Errorf("a replay unlike live: %+v", other)
	}
	if _, code := post(api.CheckedReplay{Page: "p9", Loaded: true}); code != http.StatusNotFound {
		t.Errorf("a check of no page: %d", code)
	}
	if rec := send(t, h, "POST", "/api/sessions/"+info.ID+"/checks", "application/json", []byte(`{"page": 3}`), nil); rec.Code != http.StatusBadRequest {
		t.Errorf("a check with a bad body: %d", rec.Code)
	}

	// The latest check is kept, with its page and in the report; the replay's picture too.
	var list []api.CaptureCheck
	do(t, h, "GET", "/api/sessions/"+info.ID+"/checks", &list)
	if len(list) != 1 || list[0].Verdict != "differs" {
		t.Errorf("checks: %+v", list)
	}
	do(t, h, "GET", "/api/sessions/"+info.ID+"/pages", &pages)
	if pages[0].Check == nil || pages[0].Check.Verdict != "differs" {
		t.Errorf("the page's check: %+v", pages[0].Check)
	}
	var rep api.Report
	do(t, h, "GET", "/api/sessions/"+info.ID+"/report", &rep)
	if len(rep.Checks) != 1 || rep.Checks[0].Page != pages[0].ID {
		t.Errorf("the report's checks: %+v", rep.Checks)
	}
	if rec := do(t, h, "GET", "/api/sessions/"+info.ID+"/pages/"+pages[0].ID+"/replayed", nil); rec.Code != http.StatusOK || !bytes.Equal(rec.Body.Bytes(), scaled(t, testPicture(t, 120, 160))) {
		t.Errorf("the replay's picture: %d", rec.Code)
	}
	// Each check is a note in the WARC, on the page.
	sess, err := svc.sessions.get(info.ID)
	if err != nil {
		t.Fatal(err)
	}
	recs, blocks := sessionRecords(t, sess)
	notes := 0
	for i, r := range recs {
		if r.Type == "metadata" && r.TargetURI == "http://example.org/" && strings.Contains(string(blocks[i]), "capture check at ") {
			notes++
			if strings.Contains(string(blocks[i]), "differs") && !strings.Contains(string(blocks[i]), "- it does not look the same") {
				t.Errorf("note: %s", blocks[i])
			}
		}
	}
	if notes != 2 {
		t.Errorf("%d capture check notes in the WARC, want 2", notes)
	}
}

// A page changed after it loaded (autopilot, clicks) is pictured again, the latest
// picture shown on its card; its check compares the replay with the page as it
// loaded, its first picture, which later pictures do not replace.
func TestCaptureCheckComparesWithThePageAsLoaded(t *testing.T) {
	loaded, changed := testPicture(t, 20, 60), testPicture(t, 120, 160)
	var shown struct {
		text    string
		picture []byte
	}
	shown.text, shown.picture = "Feed item 1 item 2", loaded
	svc, h, info := recordPageWith(t, func(method string, p map[string]any) (any, error) {
		switch method {
		case "Network.getResponseBody":
			return map[string]any{"body": "<title>Feed</title><p>Feed</p>"}, nil
		case "Runtime.evaluate":
			return map[string]any{"result": map[string]any{"value": []string{"http://example.org/", "complete", shown.text}}}, nil
		case "Page.captureScreenshot":
			return map[string]any{"data": base64.StdEncoding.EncodeToString(shown.picture)}, nil
		}
		return map[string]any{}, nil
	})
	svc.do(func() {})                                      // the page is known
	svc.thumbs.asLoaded(context.Background(), svc.host, 5) // as autopilot begins
	shown.text, shown.picture = "Feed item 1 item 2 item 3 item 4 item 5 item 6 item 7 item 8 item 9 item 10 item 11", changed
	do(t, h, "POST", "/api/record/stop", &info) // pictured again as recording stops
	var pages []api.Page
	do(t, h, "GET", "/api/sessions/"+info.ID+"/pages", &pages)
	if len(pages) != 1 {
		t.Fatalf("pages: %+v", pages)
	}
	page := "/api/sessions/" + info.ID + "/pages/" + pages[0].ID
	if rec := do(t, h, "GET", page+"/thumbnail", nil); !bytes.Equal(rec.Body.Bytes(), scaled(t, changed)) {
		t.Errorf("the card's picture is not the latest: %d", rec.Code)
	}
	if rec := do(t, h, "GET", page+"/loaded", nil); !bytes.Equal(rec.Body.Bytes(), scaled(t, loaded)) {
		t.Errorf("the picture as loaded is not the first: %d", rec.Code)
	}
	for _, c := range []struct {
		name    string
		text    string
		picture []byte
		verdict string
	}{
		{"the replay of the load", "Feed item 1 item 2", loaded, "replays"},
		{"a replay unlike the load", "Feed", changed, "differs"},
	} {
		body, _ := json.Marshal(api.CheckedReplay{Page: pages[0].ID, Loaded: true, Text: c.text, Picture: c.picture})
		var out api.CaptureCheck
		send(t, h, "POST", "/api/sessions/"+info.ID+"/checks", "application/json", body, &out)
		if out.Verdict != c.verdict || !out.Live {
			t.Errorf("%s: %+v, want %s", c.name, out, c.verdict)
		}
	}
}

// Autopilot started on a page the core has not yet heard of (the tab shows it, its
// navigation is still on its way) pictures that page as loaded once the core knows
// it, not the page before nor none.
func TestAutopilotPicturesAPageTheCoreLearnsOfLate(t *testing.T) {
	feed := testPicture(t, 20, 60)
	svc, h, info := recordPageWith(t, func(method string, p map[string]any) (any, error) {
		switch method {
		case "Network.getResponseBody":
			return map[string]any{"body": "<title>Home</title><p>Home</p>"}, nil
		case "Runtime.evaluate":
			return map[string]any{"result": map[string]any{"value": []string{"http://example.org/feed", "complete", "Feed item 1"}}}, nil
		case "Page.captureScreenshot":
			return map[string]any{"data": base64.StdEncoding.EncodeToString(feed)}, nil
		}
		return map[string]any{}, nil
	})
	svc.do(func() {}) // the first page is known; the tab already shows /feed
	done := make(chan struct{})
	go func() {
		defer close(done)
		svc.thumbs.asLoaded(context.Background(), svc.host, 5)
	}()
	time.Sleep(200 * time.Millisecond)
	svc.Event(context.Background(), recorder.Target{TabID: 5}, "Page.frameNavigated", json.RawMessage(`{"frame":{"id":"F","url":"http://example.org/feed"}}`), nil)
	<-done
	var pages []api.Page
	do(t, h, "GET", "/api/sessions/"+info.ID+"/pages", &pages)
	if len(pages) != 2 || pages[1].URL != "http://example.org/feed" {
		t.Fatalf("pages: %+v", pages)
	}
	if rec := do(t, h, "GET", "/api/sessions/"+info.ID+"/pages/"+pages[1].ID+"/loaded", nil); !bytes.Equal(rec.Body.Bytes(), scaled(t, feed)) {
		t.Errorf("the feed as loaded: %d", rec.Code)
	}
	if rec := do(t, h, "GET", "/api/sessions/"+info.ID+"/pages/"+pages[0].ID+"/loaded", nil); rec.Code != http.StatusNotFound {
		t.Errorf("the page before was pictured as the feed: %d", rec.Code)
	}
}
