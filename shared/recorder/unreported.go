package recorder

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Requests the browser sent but never reported.
//
// Chromium reports a page's own requests (Network.requestWillBeSent, the response,
// its end) from the page's renderer, and the headers as sent and received on the wire
// (the ExtraInfo events) from its network service. When a page is left while it
// loads, the renderer's reports still on their way to a DevTools session as the next
// document commits are dropped: all the requests the left page made after some point
// are never reported to that session, though they were sent (most reached the
// server), and their ExtraInfo events, which take the other road, arrive. It happens
// to every DevTools client, each at its own point (a plain client attached to the same
// tab misses some that the extension's session is told of, and the other way round),
// and no command names the request of an id afterwards. So such a request cannot be
// archived: the recorder knows it only by its wire headers, which do not carry its URL
// (in HTTP/1.1). When the tab's recording ends it says so, in plain words, in the
// session's notes (unreported) and in the archive itself, a note on each page that
// made such requests (notePages, OnPageNote), which gives their addresses when the
// browser's Fetch domain named them (see leftPages).

// maxUnreportedPages bounds the pages named in the note about unreported requests.
const maxUnreportedPages = 5

// countUnreported moves the requests the browser never reported, of the ExtraInfo
// queues of tab ts, from their queues (which it deletes, every one) to ts.unreported,
// by the page that made them (their Referer). r.mu is held.
func (r *Recorder) countUnreported(ts *tabState) {
	for k, q := range ts.extras {
		if !q.reported && len(q.requests) > 0 {
			page := q.requests[0].Get("Referer")
			ts.unreported[page]++
			ts.left.nameUnreported(k, page)
		}
		delete(ts.extras, k)
	}
}

// unreported returns a note for the user that counts the requests of a tab that the
// browser sent (their wire headers came, Network.requestWillBeSentExtraInfo) but never
// reported, byPage, by the page that made them (their Referer), with the addresses
// named (see leftPages), or "" when there are none.
func unreported(byPage map[string]int, named map[string][]string) string {
	n, names := 0, 0
	for _, c := range byPage {
		n += c
	}
	for _, u := range named {
		names += len(u)
	}
	if n == 0 {
		return ""
	}
	pages := slices.SortedFunc(maps.Keys(byPage), func(a, b string) int {
		return cmp.Or(cmp.Compare(byPage[b], byPage[a]), strings.Compare(a, b))
	})
	var of []string
	for i, p := range pages {
		if i == maxUnreportedPages {
			of = append(of, fmt.Sprintf("%d more pages", len(pages)-i))
			break
		}
		name := p
		if name == "" {
			name = "a page that sent no Referer"
		}
		of = append(of, fmt.Sprintf("%d of %s", byPage[p], name))
	}
	msg := fmt.Sprintf("%d %s begun by pages left as they loaded %s not in the archive: %s (by Referer: %s)",
		n, plural(n, "request", "requests"), plural(n, "is", "are"), whyUnreported, strings.Join(of, ", "))
	if names > 0 {
		msg += fmt.Sprintf("; %d of them named by the browser's Fetch domain, in each page's note in the archive", names)
	}
	return msg + "." + addresses(named[""], byPage[""])
}

// whyUnreported says why requests the browser never reported are not archived.
const whyUnreported = "the browser dropped its reports of them (as Chromium does, to any DevTools client, when the next page comes) and gave webkeep only their request headers"

// notePages hands OnPageNote a note for each page of byPage (requests never reported,
// by the page that made them; "" for those that named none, which only the session's
// note counts), in the order of their URLs, with the addresses named of them.
func (r *Recorder) notePages(byPage map[string]int, named map[string][]string) {
	if r.OnPageNote == nil {
		return
	}
	for _, page := range slices.Sorted(maps.Keys(byPage)) {
		if page == "" {
			continue
		}
		n := byPage[page]
		r.OnPageNote(page, fmt.Sprintf("%d %s this page began as it was left %s not in the archive: %s.%s", n, plural(n, "request", "requests"), plural(n, "is", "are"), whyUnreported, addresses(named[page], n)))
	}
}

// plural returns one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
