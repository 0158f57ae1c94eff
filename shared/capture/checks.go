package capture

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/shared/capturecheck"
	"github.com/webkeep/webkeep/shared/httpmsg"
)

// maxCheckedReplay bounds the body of POST /api/sessions/{id}/checks: a picture
// and a page's text.
const maxCheckedReplay = 4 << 20

// captureChecks keeps the capture checks of the sessions' pages: each page, replayed
// from the archive (the replay page with ?check=ID does it, in a tab of its own),
// against what it showed live once loaded (its first picture: thumbnails.go). A check
// is kept with the session, its picture of the replay beside it, and written into
// the session's WARC as a metadata record on the page, so that the bundle carries it.
type captureChecks struct {
	store    Store
	sessions *sessions
	replays  *replays
	now      func() time.Time
}

func checkKey(sessionID, pageID string) string    { return sessionKey(sessionID, "checks/"+pageID) }
func replayedKey(sessionID, pageID string) string { return sessionKey(sessionID, "replayed/"+pageID) }

// routes adds the capture check's routes.
func (c *captureChecks) routes(mux *routeTable) {
	mux.HandleFunc("POST /api/sessions/{id}/checks", c.sessions.with(func(w httpmsg.ResponseWriter, r *httpmsg.Request, sess *Session) {
		var in api.CheckedReplay
		if err := readJSON(r.Body, maxCheckedReplay, &in); err != nil {
			writeError(w, badRequest(err))
			return
		}
		out, err := c.check(sess, in)
		answer(w, httpmsg.StatusOK, out, err)
	}))
	mux.HandleFunc("GET /api/sessions/{id}/checks", c.sessions.with(func(w httpmsg.ResponseWriter, r *httpmsg.Request, sess *Session) {
		list, err := sess.checks()
		writeList(w, list, err)
	}))
	mux.HandleFunc("GET /api/sessions/{id}/pages/{page}/replayed", c.sessions.with(func(w httpmsg.ResponseWriter, r *httpmsg.Request, sess *Session) {
		sendPicture(w, c.store, replayedKey(sess.info.ID, r.PathValue("page")), "no-store",
			fmt.Sprintf("page %s of session %s has no picture of its replay: check it first (Check capture on the archive page)", r.PathValue("page"), sess.info.ID))
	}))
}

// check compares what the replay of a page showed with what the page showed live,
// with the requests of the replay the archive lacked (the log of the session's
// replay, which the replay page started), and keeps the verdict.
func (c *captureChecks) check(sess *Session, in api.CheckedReplay) (api.CaptureCheck, error) {
	pages, err := sess.Pages()
	if err != nil {
		return api.CaptureCheck{}, err
	}
	var out api.CaptureCheck
	found := false
	for _, p := range pages {
		if p.ID == in.Page && !p.Restored {
			out = api.CaptureCheck{Page: p.ID, URL: p.URL, TS: p.TS.UTC().Format("20060102150405")}
			found = true
		}
	}
	if !found {
		return api.CaptureCheck{}, notFound(fmt.Errorf("session %s has no page %q to check", sess.info.ID, in.Page))
	}
	live, err := sess.shownOnceLoaded(in.Page)
	if err != nil {
		return api.CaptureCheck{}, err
	}
	out.Live = live.Picture != nil
	out.Missed = []string{}
	if rp, err := c.replays.of(sess); err == nil {
		out.Missed = append(out.Missed, rp.log.View().Missed...)
	}
	if len(in.Picture) > 0 {
		// Scaled as the live picture was (picture), so that the two compare.
		if in.Picture, err = thumbnail(in.Picture); err != nil {
			return api.CaptureCheck{}, badRequest(fmt.Errorf("check of %s: %w", out.URL, err))
		}
	}
	res := capturecheck.Compare(live, capturecheck.Observation{Picture: in.Picture, Text: in.Text, Loaded: in.Loaded}, out.Missed)
	out.Verdict, out.Why = res.Verdict, append([]string{}, res.Why...)
	out.PictureDifference, out.TextSimilarity = res.PictureDifference, res.TextSimilarity
	if !out.Live {
		out.Why = append(out.Why, "no picture or text of the page was taken live to compare with")
	}
	out.Checked = c.now().UTC()
	b, err := json.Marshal(out)
	if err != nil {
		return api.CaptureCheck{}, err
	}
	keys, values := []string{checkKey(sess.info.ID, in.Page)}, [][]byte{b}
	if len(in.Picture) > 0 {
		keys, values = append(keys, replayedKey(sess.info.ID, in.Page)), append(values, in.Picture)
	}
	if err := putBatch(c.store, keys, values); err != nil {
		return api.CaptureCheck{}, fmt.Errorf("capture: session %s: keeping the check of %s: %w", sess.info.ID, out.URL, err)
	}
	if err := sess.WriteNote(out.URL, checkNote(out)); err != nil {
		return api.CaptureCheck{}, err
	}
	return out, nil
}

// shownOnceLoaded is what a page showed live once loaded (its first picture and text), which
// its replay is compared with; a session recorded before the first picture was kept
// apart gives its latest. A page without a picture gives an empty observation.
func (s *Session) shownOnceLoaded(pageID string) (capturecheck.Observation, error) {
	var live capturecheck.Observation
	pictureKey, textKey := s.loadedKeys(pageID)
	b, err := s.store.Get(pictureKey)
	if errors.Is(err, ErrNotFound) {
		return live, nil
	}
	if err != nil {
		return live, fmt.Errorf("capture: session %s: the live picture of page %s: %w", s.info.ID, pageID, err)
	}
	live.Picture = b
	if b, err := s.store.Get(textKey); err == nil {
		live.Text = string(b)
	} else if !errors.Is(err, ErrNotFound) {
		return live, fmt.Errorf("capture: session %s: the live text of page %s: %w", s.info.ID, pageID, err)
	}
	return live, nil
}

// checkNote is the metadata record a check writes on its page.
func checkNote(c api.CaptureCheck) string {
	var b strings.Builder
	fmt.Fprintf(&b, "capture check at %s of the capture of %s: the page %s", c.Checked.Format(time.RFC3339), c.TS, c.Verdict)
	for _, w := range c.Why {
		b.WriteString("\n- " + w)
	}
	for _, m := range c.Missed {
		b.WriteString("\nnot in the archive: " + m)
	}
	return b.String()
}

// checks returns the latest check of each page of the session that has one.
func (s *Session) checks() ([]api.CaptureCheck, error) {
	prefix := checkKey(s.info.ID, "")
	keys, err := s.store.Keys(prefix)
	if err != nil {
		return nil, err
	}
	out := []api.CaptureCheck{}
	for _, k := range keys {
		b, err := s.store.Get(k)
		if err != nil {
			return nil, err
		}
		var c api.CaptureCheck
		if err := json.Unmarshal(b, &c); err != nil {
			return nil, fmt.Errorf("capture: session %s: check %s: %w", s.info.ID, strings.TrimPrefix(k, prefix), err)
		}
		out = append(out, c)
	}
	return out, nil
}
