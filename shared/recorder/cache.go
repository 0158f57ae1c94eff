package recorder

// What the browser's caches did for a response, as its record says it (noteCache), and
// the bodies the recorder keeps of URLs to stand for those a cache served.

import "fmt"

// Bounds of Recorder.kept: how many URLs it remembers, the largest body it keeps, and
// the bytes of bodies it keeps in all (beyond which it forgets them all).
const (
	maxKept         = 100000
	maxKeptBody     = 1 << 20
	maxKeptBodySize = 16 << 20
)

// noteCache says in ex what the browser's cache did, if anything: cache names the
// cache that answered without the network ("memory", "disk", "prefetch", or httpCache; see
// pendingExchange.cache); revalidated says the browser's HTTP cache revalidated its
// copy (the wire carried a 304) and gave the page that copy; a 304 answer is the
// server's to the page's own revalidation of a copy in its memory cache, whose body
// the page used. A 304 of a URL whose body no exchange of this recorder handed on is of
// a body the archive lacks: that is said as a note on the response (RespNote), which
// the user sees; the rest goes in CacheNote. A 304 of a body the archive holds needs
// no note: its record is what the wire carried.
//
// The browser gives the body of a response its memory cache served only while the page
// is there: once the page was left, the body is that of the URL's last response handed
// on whole, which is what that cache holds, when it was small enough to keep.
func (r *Recorder) noteCache(ex *Exchange, cache string, revalidated bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	body, kept := r.kept[ex.URL]
	served := fmt.Sprintf("%s %s cache, not fetched from the server at this time", WhyFromCache, cache)
	if cache == httpCache {
		served = WhyFromCache + " HTTP cache (the browser does not say whether it asked the server to revalidate its copy first, which the server then answered with 304 Not Modified)"
	}
	switch {
	case cache != "" && ex.Status == 200 && ex.RespTruncated != "" && ex.BodyLen() == 0 && body != nil:
		ex.RespBody, ex.RespTruncated = body, ""
		ex.CacheNote = fmt.Sprintf("%s: the browser gave none of its body (%s), so the body archived is that of the last response of this URL archived before, which is what the cache holds", served, ex.RespNote)
		ex.RespNote = ""
		checkLength(ex)
	case cache != "":
		ex.CacheNote = served + ": a response the server sent before, as the page used it"
	case revalidated:
		ex.CacheNote = WhyRevalidated + ": the server answered 304 Not Modified, and the page got the cached response, archived here as the page got it"
	case ex.Status == 304 && kept:
		// Archived as sent, of a body the archive holds: the record says it all.
	case ex.Status == 304:
		ex.CacheNote = WhyRevalidated + ": the server answered 304 Not Modified, archived as sent"
		why := "the page used the body the browser had cached, which no response of this URL archived whole before holds (it was cached before this recording began, or its response here is incomplete): it is not in this archive"
		if ex.RespNote != "" {
			why = ex.RespNote + "; " + why
		}
		ex.RespNote = why
	}
	if ex.Status != 200 || ex.RespTruncated != "" || ex.BodyLen() == 0 {
		return
	}
	if len(r.kept) >= maxKept || r.keptSize+len(ex.RespBody) > maxKeptBodySize {
		clear(r.kept)
		r.keptSize = 0
	}
	r.keptSize -= len(r.kept[ex.URL])
	if ex.respSpool == nil && len(ex.RespBody) <= maxKeptBody {
		r.kept[ex.URL] = ex.RespBody
		r.keptSize += len(ex.RespBody)
	} else {
		r.kept[ex.URL] = nil
	}
}

// httpCache is the cache named by a browser that says only that its HTTP cache
// answered, not whether the server was asked first (WireResponse.WebkeepFromHTTPCache).
const httpCache = "HTTP"

// WhyFromCache begins the note on a response the browser's cache served without the
// network ("served from the browser's memory cache, ..."); WhyRevalidated, the note on
// a response whose copy in the browser's cache the server said was still good.
const (
	WhyFromCache   = "served from the browser's"
	WhyRevalidated = "the browser revalidated the copy in its cache"
)
