package capture

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/webkeep/webkeep/shared/recorder"
	"github.com/webkeep/webkeep/shared/warc"
)

// A stop of the core with requests under way: Underway names them while they are, and
// a core started again over the same store archives that they were lost, as a
// metadata record on each and a note in the session.
func TestUnderwayIsArchivedByTheCoreStartedAfterAStop(t *testing.T) {
	ctx := context.Background()
	store := NewMemStore()
	host := &tabsHost{fakeHost: newFakeHost()}
	host.setOpen(OpenTab{ID: 3, Target: "A", Attached: true})
	svc, _ := NewService(store, host)
	info, err := svc.Start(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	event := func(method, params string) {
		svc.Event(ctx, recorder.Target{TabID: 3}, method, json.RawMessage(params), nil)
	}
	begin := func(id, url string) {
		event("Network.requestWillBeSent", fmt.Sprintf(`{"requestId":%q,"request":{"url":%q,"method":"GET","headers":{}}}`, id, url))
	}
	if session, urls := svc.Underway(); session != info.ID || len(urls) != 0 {
		t.Fatalf("before any request: Underway() = %q, %q; want %q and none", session, urls, info.ID)
	}
	begin("1", "http://example.org/b.png")
	begin("2", "http://example.org/a.js")
	begin("3", "http://example.org/")
	svc.Status() // the events are handled
	want := []string{"http://example.org/", "http://example.org/a.js", "http://example.org/b.png"}
	if session, urls := svc.Underway(); session != info.ID || !slices.Equal(urls, want) {
		t.Fatalf("three requests begun: Underway() = %q, %q; want %q, %q", session, urls, info.ID, want)
	}
	event("Network.responseReceived", `{"requestId":"3","response":{"status":200,"headers":{"Content-Type":"text/html"}}}`)
	event("Network.loadingFinished", `{"requestId":"3"}`)
	svc.Status()
	svc.recorder.Wait()
	svc.flushWrites()
	session, urls := svc.Underway()
	if want := want[1:]; !slices.Equal(urls, want) {
		t.Fatalf("one written: Underway() = %q; want %q", urls, want)
	}
	before := svc.Status().Session.Records

	// The worker stops; the next core finds what the last Underway said.
	svc2, err := NewService(store, host)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc2.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	if err := svc2.StoppedUnderway(session, urls, 0, 4); err != nil {
		t.Fatal(err)
	}
	sess, err := svc2.sessions.find(info.ID)
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(sess.Info().Notes, "\n")
	wantNote := "webkeep's service worker stopped while recording: 2 requests were under way and not recorded (http://example.org/a.js, http://example.org/b.png; a metadata record says so of each), and 4 events of the browser's not yet handled: what they were of may be missing"
	if !strings.Contains(notes, wantNote) {
		t.Errorf("notes: %q, want %q", notes, wantNote)
	}
	if got := sess.Info().Reasons["under way when webkeep's service worker stopped"]; got != len(urls) {
		t.Errorf("reasons: %v, want %d under way when the worker stopped", sess.Info().Reasons, len(urls))
	}
	recs, blocks := sessionRecords(t, sess)
	var noted []string
	for i, rec := range recs {
		if rec.Type == warc.TypeMetadata && string(blocks[i]) == WhyStoppedUnderway {
			noted = append(noted, rec.TargetURI)
		}
	}
	if !slices.Equal(noted, urls) {
		t.Errorf("metadata records saying so: %q, want %q", noted, urls)
	}
	if got := sess.Info().Records; got != before+len(urls) {
		t.Errorf("records: %d, want the %d before and one for each request lost", got, before)
	}
	// The recording goes on, and what the new core has begun is its own.
	if session, urls := svc2.Underway(); session != info.ID || len(urls) != 0 {
		t.Errorf("the new core: Underway() = %q, %q; want %q and none", session, urls, info.ID)
	}
}

func TestStoppedUnderwayWithNothingLostSaysNothing(t *testing.T) {
	svc, _ := NewService(NewMemStore(), newFakeHost())
	info, err := svc.Start(context.Background(), 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, session := range []string{info.ID, ""} {
		if err := svc.StoppedUnderway(session, nil, 0, 0); err != nil {
			t.Errorf("StoppedUnderway(%q, nothing): %v", session, err)
		}
	}
	if notes := svc.Status().Session.Notes; len(notes) != 0 {
		t.Errorf("notes: %q, want none", notes)
	}
	if err := svc.StoppedUnderway("no-such-session", []string{"http://example.org/"}, 0, 0); err == nil {
		t.Error("StoppedUnderway of a session that does not exist: no error")
	}
	if session, urls := (&Service{recorder: recorder.NewRecorder(newFakeHost())}).Underway(); session != "" || urls != nil {
		t.Errorf("Underway() while nothing is recorded = %q, %q", session, urls)
	}
}

func TestLostUnderwaySaysWhatWasLost(t *testing.T) {
	urls := func(n int) []string {
		var out []string
		for i := range n {
			out = append(out, fmt.Sprintf("http://example.org/%d", i))
		}
		return out
	}
	for _, tc := range []struct {
		urls         []string
		more, events int
		want         string
	}{
		{urls(1), 0, 0, "webkeep's service worker stopped while recording: 1 request was under way and not recorded (http://example.org/0; a metadata record says so of each)"},
		{urls(7), 0, 1, "webkeep's service worker stopped while recording: 7 requests were under way and not recorded (http://example.org/0, http://example.org/1, http://example.org/2, http://example.org/3, http://example.org/4, and 2 more; a metadata record says so of each), and 1 event of the browser's not yet handled: what it was of may be missing"},
		{urls(MaxLostNotes), 10, 0, "webkeep's service worker stopped while recording: 60 requests were under way and not recorded (http://example.org/0, http://example.org/1, http://example.org/2, http://example.org/3, http://example.org/4, and 55 more; a metadata record says so of each of the first 50)"},
		{nil, 0, 12, "webkeep's service worker stopped while recording with 12 events of the browser's not yet handled: what they were of may be missing"},
	} {
		if got := lostUnderway(tc.urls, tc.more, tc.events); got != tc.want {
			t.Errorf("lostUnderway(%d URLs, %d more, %d events) =\n%s\nwant\n%s", len(tc.urls), tc.more, tc.events, got, tc.want)
		}
	}
}
