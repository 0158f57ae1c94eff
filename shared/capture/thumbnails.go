package capture

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	_ "image/png" // a picture may come as PNG
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/webkeep/webkeep/shared/httpmsg"
	"github.com/webkeep/webkeep/shared/recorder"
	"golang.org/x/image/draw"
)

// Thumbnails: a picture of each page recorded, taken thumbnailDelay after a load
// event of its tab if the tab then shows it, whole (its document complete), and as
// recording stops, thumbnailWidth pixels wide, as JPEG, with the text the page
// shows. They are kept with the session (not in its WARC: they are what the archive
// page shows of a page and what the capture check compares its replay with, not
// part of what was recorded).
//
// The first picture of a page, and its text, are also kept apart, never replaced:
// the page as it showed once loaded, before what was done on it afterwards (a form
// filled in, buttons clicked, scrolling, autopilot). That is what the capture check
// compares the page's replay with, for the check replays a page's load and nothing
// done on it after. Autopilot pictures the page so before it begins, if the page
// has no picture yet.
const (
	thumbnailDelay   = time.Second
	thumbnailWidth   = 320
	thumbnailQuality = 70
	thumbnailLimit   = 10 * time.Second
	thumbnailAtStop  = 1500 * time.Millisecond
)

// thumbnails follows the page each recorded tab shows, to picture it once loaded,
// and serves the pictures.
type thumbnails struct {
	store    Store
	sessions *sessions

	mu    sync.Mutex
	shown map[int]shownPage // by tab
}

// shownPage is the page a tab shows: of which session, its id and URL.
type shownPage struct {
	sess    *Session
	id, url string
}

// shows notes the page a tab now shows.
func (t *thumbnails) shows(tab int, sess *Session, id, url string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.shown == nil {
		t.shown = map[int]shownPage{}
	}
	t.shown[tab] = shownPage{sess, id, url}
}

// forget forgets a tab no longer recorded.
func (t *thumbnails) forget(tab int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.shown, tab)
}

// loaded pictures the page tab shows thumbnailDelay from now, if the tab then shows
// it whole. The load event may reach the core before the navigation it ends (the
// shim hands it on at once, the navigation when the browser is quiet): the page is
// the one the tab shows when the picture is taken, and the browser is asked whether
// its document is that page's and complete. What fails (a tab closed, a browser
// that takes no pictures) leaves the page without one.
func (t *thumbnails) loaded(host recorder.Browser, tab int) {
	t.try(host, tab, thumbnailTries)
}

// thumbnailTries is how many times a picture is tried, thumbnailDelay apart, while
// the tab shows a complete document the core has not yet heard is a new page.
const thumbnailTries = 5

// try pictures the page tab shows thumbnailDelay from now (see loaded), trying
// again, up to tries times in all, while the tab's document is complete but not
// yet the page the core knows it shows.
func (t *thumbnails) try(host recorder.Browser, tab, tries int) {
	time.AfterFunc(thumbnailDelay, func() {
		t.mu.Lock()
		page, ok := t.shown[tab]
		t.mu.Unlock()
		if !ok {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), thumbnailLimit)
		defer cancel()
		target := recorder.Target{TabID: tab}
		text, whole, elsewhere := shownText(ctx, host, target, page.url)
		if elsewhere && tries > 1 {
			t.try(host, tab, tries-1)
			return
		}
		if !whole {
			return
		}
		if b, err := picture(ctx, host, target); err == nil && len(b) > 0 {
			t.mu.Lock()
			still := t.shown[tab] == page
			t.mu.Unlock()
			if still {
				page.sess.putLive(page.id, b, text)
			}
		}
	})
}

// stopping pictures the page a tab shows as its recording stops, if the tab shows
// it whole: the end of the page's recording. It waits at most thumbnailAtStop.
func (t *thumbnails) stopping(ctx context.Context, host recorder.Browser, tab int) {
	t.mu.Lock()
	page, ok := t.shown[tab]
	t.mu.Unlock()
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, thumbnailAtStop)
	defer cancel()
	target := recorder.Target{TabID: tab}
	text, whole, _ := shownText(ctx, host, target, page.url)
	if !whole {
		return
	}
	if b, err := picture(ctx, host, target); err == nil && len(b) > 0 {
		page.sess.putLive(page.id, b, text)
	}
}

// maxLiveText bounds the visible text kept of a page, for the capture check.
const maxLiveText = 64 << 10

// shownTextExpression is the expression (a format of the text's limit, twice) that
// asks a page for its URL, its document's readyState and the text it shows, as an
// array of three strings. It opens with a comment naming it and the limit, by which a
// browser without DevTools (the Firefox build's background page) knows it and has its
// content script answer it.
const shownTextExpression = "/* webkeep:shown %d */ [location.href, document.readyState, document.body ? document.body.innerText.slice(0, %d) : '']"

// shownText asks the tab whether its document is url and complete (whole), and for
// the text it shows (at most maxLiveText characters); elsewhere reports a complete
// document at another URL.
func shownText(ctx context.Context, host recorder.Browser, t recorder.Target, url string) (text string, whole, elsewhere bool) {
	raw, err := host.Send(ctx, t, "Runtime.evaluate", map[string]any{
		"expression":    fmt.Sprintf(shownTextExpression, maxLiveText, maxLiveText),
		"returnByValue": true,
	})
	if err != nil {
		return "", false, false
	}
	var r struct {
		Result struct {
			Value []string `json:"value"`
		} `json:"result"`
	}
	if json.Unmarshal(raw, &r) != nil || len(r.Result.Value) != 3 {
		return "", false, false
	}
	v := r.Result.Value
	complete := v[1] == "complete"
	return v[2], complete && v[0] == url, complete && v[0] != url
}

// picture takes a JPEG of what the tab shows, thumbnailWidth pixels wide. The browser
// takes it at the size it shows it, and the core scales it down (thumbnail): a
// picture the browser scales itself (Page.captureScreenshot with a clip) leaves the
// tab's next pages loading their lazy images after their load event, not before (a
// DokuWiki gallery: 9 of its 249 images loaded by its load event, instead of all),
// which would make recording change how pages load.
func picture(ctx context.Context, host recorder.Browser, t recorder.Target) ([]byte, error) {
	raw, err := host.Send(ctx, t, "Page.captureScreenshot", map[string]any{"format": "jpeg", "quality": shotQuality})
	if err != nil {
		return nil, err
	}
	var shot struct {
		Data string `json:"data"`
	}
	if err := json.Unmarshal(raw, &shot); err != nil {
		return nil, err
	}
	b, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil {
		return nil, err
	}
	return thumbnail(b)
}

// maxPictureSide bounds a picture's width and height, in pixels, before it is decoded.
const maxPictureSide = 16384

// shotQuality is the JPEG quality the browser's picture is taken at, before it is
// scaled down.
const shotQuality = 90

// thumbnail scales a picture (JPEG or PNG) down to thumbnailWidth pixels wide, or
// keeps its size if it is narrower, as a JPEG of thumbnailQuality.
func thumbnail(picture []byte) ([]byte, error) {
	// A picture's size is checked before it is decoded: a few bytes can claim more
	// pixels than memory holds.
	cfg, _, err := image.DecodeConfig(bytes.NewReader(picture))
	if err != nil {
		return nil, fmt.Errorf("the page's picture: %w", err)
	}
	if cfg.Width > maxPictureSide || cfg.Height > maxPictureSide {
		return nil, fmt.Errorf("the page's picture is %dx%d pixels: more than a screen's %d a side", cfg.Width, cfg.Height, maxPictureSide)
	}
	src, _, err := image.Decode(bytes.NewReader(picture))
	if err != nil {
		return nil, fmt.Errorf("the page's picture: %w", err)
	}
	b := src.Bounds()
	w, h := b.Dx(), b.Dy()
	if w > thumbnailWidth {
		w, h = thumbnailWidth, max(1, h*thumbnailWidth/w)
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.ApproxBiLinear.Scale(dst, dst.Bounds(), src, b, draw.Src, nil)
	var out bytes.Buffer
	if err := jpeg.Encode(&out, dst, &jpeg.Options{Quality: thumbnailQuality}); err != nil {
		return nil, fmt.Errorf("the page's picture: %w", err)
	}
	return out.Bytes(), nil
}

// asLoaded pictures the page a tab shows now, if the tab shows it whole and it has
// no picture yet: autopilot calls it before it begins, so that the capture check
// compares the page's replay with the page as it loaded, not as autopilot left it.
// Autopilot may be started before the core has heard of the page the tab shows
// (the navigation reaches it when the browser is quiet): while the tab shows a
// complete document that is not yet that page, it waits thumbnailDelay and looks
// again, thumbnailTries times at most, as loaded does.
func (t *thumbnails) asLoaded(ctx context.Context, host recorder.Browser, tab int) {
	for tries := thumbnailTries; tries > 0; tries-- {
		t.mu.Lock()
		page, ok := t.shown[tab]
		t.mu.Unlock()
		if !ok {
			return
		}
		if page.sess.hasLoaded(page.id) {
			return
		}
		target := recorder.Target{TabID: tab}
		try, cancel := context.WithTimeout(ctx, thumbnailLimit)
		text, whole, elsewhere := shownText(try, host, target, page.url)
		if whole {
			if b, err := picture(try, host, target); err == nil && len(b) > 0 {
				page.sess.putLive(page.id, b, text)
			}
		}
		cancel()
		if !elsewhere {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(thumbnailDelay):
		}
	}
}

func thumbnailKey(sessionID, pageID string) string {
	return sessionKey(sessionID, "thumbnails/"+pageID)
}

// loadedKey is where the first picture of a page is kept, and loadedTextKey its
// text: the page as it showed once loaded, which the capture check compares with.
func loadedKey(sessionID, pageID string) string {
	return sessionKey(sessionID, "loaded/"+pageID)
}

func loadedTextKey(sessionID, pageID string) string {
	return sessionKey(sessionID, "loadedtext/"+pageID)
}

// loadedKeys are the keys of a page's picture and text as it showed once loaded: its
// first, or its latest in a session recorded before the first was kept apart.
func (s *Session) loadedKeys(pageID string) (picture, text string) {
	if !s.hasLoaded(pageID) {
		return thumbnailKey(s.info.ID, pageID), liveTextKey(s.info.ID, pageID)
	}
	return loadedKey(s.info.ID, pageID), loadedTextKey(s.info.ID, pageID)
}

// hasLoaded reports whether the page's picture as it showed once loaded is kept. It
// asks the store for keys, not the picture: a JPEG need not be read to know it is there.
func (s *Session) hasLoaded(pageID string) bool {
	key := loadedKey(s.info.ID, pageID)
	keys, err := s.store.Keys(key) // also page ids that key is a prefix of ("1", "10")
	return err == nil && slices.Contains(keys, key)
}

// liveTextKey is where the text a page showed live is kept, beside its picture.
func liveTextKey(sessionID, pageID string) string {
	return sessionKey(sessionID, "livetext/"+pageID)
}

// putLive keeps what a page showed live: its picture and its text, in one
// transaction when the store can; the first of a page is also kept as the page
// once loaded (loadedKey).
func (s *Session) putLive(pageID string, jpeg []byte, text string) {
	keys := []string{liveTextKey(s.info.ID, pageID), thumbnailKey(s.info.ID, pageID)}
	values := [][]byte{[]byte(text), jpeg}
	if !s.hasLoaded(pageID) {
		keys = append(keys, loadedTextKey(s.info.ID, pageID), loadedKey(s.info.ID, pageID))
		values = append(values, []byte(text), jpeg)
	}
	if err := putBatch(s.store, keys, values); err != nil {
		s.Note(fmt.Sprintf("the picture of page %s: %v", pageID, err))
	}
}

// thumbnailed returns the ids of the session's pages that have a picture.
func (s *Session) thumbnailed() (map[string]bool, error) {
	prefix := thumbnailKey(s.info.ID, "")
	keys, err := s.store.Keys(prefix)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, k := range keys {
		out[strings.TrimPrefix(k, prefix)] = true
	}
	return out, nil
}

// routes adds GET /api/sessions/{id}/pages/{page}/thumbnail and …/loaded.
func (t *thumbnails) routes(mux *routeTable) {
	mux.HandleFunc("GET /api/sessions/{id}/pages/{page}/thumbnail", t.sessions.with(func(w httpmsg.ResponseWriter, r *httpmsg.Request, sess *Session) {
		// The card's picture is replaced by each later one (recording stops, autopilot
		// ends): the browser asks again each time rather than show an old one.
		sendPicture(w, t.store, thumbnailKey(sess.info.ID, r.PathValue("page")), "private, no-cache",
			fmt.Sprintf("page %s of session %s has no picture (a page left within a second of loading has none)", r.PathValue("page"), sess.info.ID))
	}))
	mux.HandleFunc("GET /api/sessions/{id}/pages/{page}/loaded", t.sessions.with(func(w httpmsg.ResponseWriter, r *httpmsg.Request, sess *Session) {
		page := r.PathValue("page")
		key, _ := sess.loadedKeys(page)
		// Until a page's first picture is kept this is its latest (loadedKeys).
		sendPicture(w, t.store, key, "private, no-cache",
			fmt.Sprintf("page %s of session %s has no picture (a page left within a second of loading has none)", page, sess.info.ID))
	}))
}

// sendPicture answers with the JPEG kept under key, or 404 saying missing.
func sendPicture(w httpmsg.ResponseWriter, store Store, key, cacheControl, missing string) {
	b, err := store.Get(key)
	if errors.Is(err, ErrNotFound) {
		err = notFound(errors.New(missing))
	}
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "image/jpeg")
	w.Header().Set("Cache-Control", cacheControl)
	w.WriteHeader(httpmsg.StatusOK)
	w.Write(b)
}
