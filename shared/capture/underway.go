package capture

// What a stop of the core's process loses of a recording: the exchanges begun and not
// yet written. The browser stops an extension's service worker when it likes (or it
// crashes), and the browser's later events of a request go unheeded by a core that did
// not see it begin; the extension keeps Underway where a restarted core finds it, which
// then says in the session what was lost (StoppedUnderway).

import (
	"fmt"
	"strings"
)

// MaxLostNotes bounds the metadata records StoppedUnderway writes, and the URLs the
// extension keeps of what is under way.
const MaxLostNotes = 50

// WhyStoppedUnderway is the text of the metadata record StoppedUnderway archives for
// each request it lost.
const WhyStoppedUnderway = "under way when webkeep's service worker stopped (the browser stopped it, or it crashed): not recorded, and what had been received of it was lost with it"

// Underway returns what a stop of the core's process now would lose of the recording:
// its session's id and the URLs of the exchanges begun and not yet written, sorted, a
// URL once for each; "" and nil when nothing is recorded.
func (s *Service) Underway() (session string, urls []string) {
	urls = s.recorder.Underway()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state.Session == "" {
		return "", nil
	}
	for url, n := range s.queued {
		for range n {
			urls = append(urls, url)
		}
	}
	return s.state.Session, urls
}

// queue counts url among the exchanges waiting to be written (see Underway); the
// function it returns uncounts it.
func (s *Service) queue(url string) (written func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.queued == nil {
		s.queued = map[string]int{}
	}
	s.queued[url]++
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.queued[url]--; s.queued[url] <= 0 {
			delete(s.queued, url)
		}
	}
}

// StoppedUnderway archives in session what a core stopped with requests under way
// lost (see Underway): a metadata record for each of urls (the first MaxLostNotes),
// and a note in the session that names them and counts more, those under way that
// urls leaves out; events counts the browser's events the extension still held for
// that core, whose requests may be missing as well.
func (s *Service) StoppedUnderway(session string, urls []string, more, events int) error {
	if session == "" || len(urls)+more+events == 0 {
		return nil
	}
	sess, err := s.sessions.get(session)
	if err != nil {
		return fmt.Errorf("capture: noting what a stop lost: %w", err)
	}
	for _, url := range urls[:min(len(urls), MaxLostNotes)] {
		if err := sess.WriteNote(url, WhyStoppedUnderway); err != nil {
			sess.Note(err.Error())
		}
	}
	sess.lost(WhyStoppedUnderway, len(urls)+more)
	sess.Note(lostUnderway(urls, more, events))
	return nil
}

// lostUnderway says in plain words what a stop with urls and more requests under way
// and events not yet handed to the core lost.
func lostUnderway(urls []string, more, events int) string {
	var b strings.Builder
	b.WriteString("webkeep's service worker stopped while recording")
	if n := len(urls) + more; n > 0 {
		verb := "were"
		if n == 1 {
			verb = "was"
		}
		fmt.Fprintf(&b, ": %s %s under way and not recorded (", plural(n, "request"), verb)
		const named = 5
		for i, url := range urls[:min(len(urls), named)] {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(url)
		}
		if left := n - min(len(urls), named); left > 0 {
			fmt.Fprintf(&b, ", and %d more", left)
		}
		if more > 0 {
			fmt.Fprintf(&b, "; a metadata record says so of each of the first %d)", len(urls))
		} else {
			b.WriteString("; a metadata record says so of each)")
		}
	}
	if events > 0 {
		if len(urls)+more > 0 {
			b.WriteString(", and")
		} else {
			b.WriteString(" with")
		}
		what := "what they were of"
		if events == 1 {
			what = "what it was of"
		}
		fmt.Fprintf(&b, " %s of the browser's not yet handled: %s may be missing", plural(events, "event"), what)
	}
	return b.String()
}
