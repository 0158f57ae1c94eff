package capture

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"image"
	"image/jpeg"
	pngenc "image/png"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/shared/recorder"
)

// A page recorded is pictured a moment after its load event, as the browser draws
// it, and the picture is served with the session's pages; a page left before then
// has none.
func TestPagesArePicturedOnceLoaded(t *testing.T) {
	shot := testPicture(t, 20, 60)
	var mu sync.Mutex
	var asked []map[string]any
	showing := []string{"http://example.org/", "complete", "Home page text"} // what the tab's document says of itself: its URL, its state, its text
	svc, h, info := recordPageWith(t, func(method string, p map[string]any) (any, error) {
		switch method {
		case "Runtime.evaluate":
			mu.Lock()
			defer mu.Unlock()
			return map[string]any{"result": map[string]any{"value": showing}}, nil
		case "Network.getResponseBody":
			return map[string]any{"body": "<title>Home</title>"}, nil
		case "Page.captureScreenshot":
			mu.Lock()
			asked = append(asked, p)
			mu.Unlock()
			return map[string]any{"data": base64.StdEncoding.EncodeToString(shot)}, nil
		}
		return map[string]any{}, nil
	})
	svc.Event(context.Background(), recorder.Target{TabID: 5}, "Page.loadEventFired", json.RawMessage(`{"timestamp":1}`), nil)
	var pages []api.Page
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		do(t, h, "GET", "/api/sessions/"+info.ID+"/pages", &pages)
		if len(pages) == 1 && pages[0].Thumbnail {
			break
		}
	}
	if len(pages) != 1 || !pages[0].Thumbnail || pages[0].Title != "Home" {
		t.Fatalf("pages: %+v", pages)
	}
	rec := do(t, h, "GET", "/api/sessions/"+info.ID+"/pages/"+pages[0].ID+"/thumbnail", nil)
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "image/jpeg" || !bytes.Equal(rec.Body.Bytes(), scaled(t, shot)) {
		t.Errorf("thumbnail: %d %s %q", rec.Code, rec.Header().Get("Content-Type"), rec.Body.Bytes())
	}
	// A later picture replaces it (at stop, below): the browser must ask again.
	if cc := rec.Header().Get("Cache-Control"); cc != "private, no-cache" {
		t.Errorf("thumbnail's Cache-Control %q: a replaced picture would be shown stale", cc)
	}
	// Taken whole, and scaled by the core: a clip would have the browser emulate its
	// scale in the tab, and defer the lazy images of the tab's next pages.
	mu.Lock()
	if _, clipped := asked[0]["clip"]; clipped || asked[0]["format"] != "jpeg" {
		t.Errorf("Page.captureScreenshot %v", asked[0])
	}
	mu.Unlock()
	if img, err := jpeg.DecodeConfig(rec.Body); err != nil || img.Width != thumbnailWidth || img.Height != 200 {
		t.Errorf("thumbnail: %+v, %v; want %dx200", img, err, thumbnailWidth)
	}

	// Another page, left before its picture is taken, and the one after it, not yet
	// loaded: none.
	mu.Lock()
	showing = []string{"http://example.org/third", "loading", ""}
	mu.Unlock()
	for _, ev := range []struct{ method, params string }{
		{"Page.frameNavigated", `{"frame":{"id":"F","url":"http://example.org/next"}}`},
		{"Page.loadEventFired", `{"timestamp":2}`},
		{"Page.frameNavigated", `{"frame":{"id":"F","url":"http://example.org/third"}}`},
	} {
		svc.Event(context.Background(), recorder.Target{TabID: 5}, ev.method, json.RawMessage(ev.params), nil)
	}
	time.Sleep(thumbnailDelay + 500*time.Millisecond)
	do(t, h, "GET", "/api/sessions/"+info.ID+"/pages", &pages)
	if len(pages) != 3 || pages[1].Thumbnail || pages[2].Thumbnail {
		t.Errorf("pages after leaving one: %+v", pages)
	}
	if rec := do(t, h, "GET", "/api/sessions/"+info.ID+"/pages/"+pages[1].ID+"/thumbnail", nil); rec.Code != http.StatusNotFound {
		t.Errorf("the picture of a page left: %d", rec.Code)
	}

	// Stopping pictures the page the tab shows, now whole: the end of its recording.
	mu.Lock()
	showing = []string{"http://example.org/third", "complete", "Third"}
	mu.Unlock()
	do(t, h, "POST", "/api/record/stop", &info)
	do(t, h, "GET", "/api/sessions/"+info.ID+"/pages", &pages)
	if len(pages) != 3 || pages[1].Thumbnail || !pages[2].Thumbnail {
		t.Errorf("pages after stop: %+v", pages)
	}
}

// A picture is scaled down to thumbnailWidth, a narrower one kept at its size, and
// what is not a picture is an error that says so.
func TestThumbnail(t *testing.T) {
	narrow := image.NewGray(image.Rect(0, 0, 100, 50))
	var png bytes.Buffer
	if err := pngenc.Encode(&png, narrow); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name          string
		in            []byte
		width, height int
		err           string
	}{
		{"the browser's JPEG", testPicture(t, 20, 60), thumbnailWidth, 200, ""},
		{"a narrow PNG", png.Bytes(), 100, 50, ""},
		{"not a picture", []byte("<html>"), 0, 0, "the page's picture: image: unknown format"},
		{"a cut JPEG", testPicture(t, 20, 60)[:100], 0, 0, "the page's picture: unexpected EOF"},
		{"a PNG claiming more pixels than a screen", hugePNG(t), 0, 0, "the page's picture is 100000x10 pixels: more than a screen's 16384 a side"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := thumbnail(tt.in)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			img, err := jpeg.DecodeConfig(bytes.NewReader(out))
			if err != nil || img.Width != tt.width || img.Height != tt.height {
				t.Errorf("%+v, %v; want %dx%d", img, err, tt.width, tt.height)
			}
		})
	}
}

// hugePNG is the head of a PNG that says it is 100,000 pixels wide: its size is all
// that is read of it.
func hugePNG(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := pngenc.Encode(&b, image.NewGray(image.Rect(0, 0, 1, 10))); err != nil {
		t.Fatal(err)
	}
	p := b.Bytes()
	binary.BigEndian.PutUint32(p[16:20], 100000)                       // the IHDR chunk's width
	binary.BigEndian.PutUint32(p[29:33], crc32.ChecksumIEEE(p[12:29])) // and its checksum
	return p
}
