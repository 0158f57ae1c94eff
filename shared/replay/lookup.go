package replay

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/webkeep/webkeep/shared/cdx"
	"github.com/webkeep/webkeep/shared/httpmsg"
)

// A Request is a request the browser makes during replay.
type Request struct {
	Method string
	URL    string
	Header httpmsg.Header
	Body   []byte
	// Navigation is true for a navigation's request (of the tab or a frame), which
	// a body too large to carry is answered differently for (large.go).
	Navigation bool
	// Tab is true for the navigation of the tab itself (its top document, not a
	// frame's), which is given a PDF (large.go, showsPDF).
	Tab bool
	// Script is true for the request of a script's fetch() or XMLHttpRequest, which
	// a body too large to carry is offered to as a stream (large.go). The Fetch
	// domain reports both as resource type "XHR" (the Network domain tells a fetch()
	// as "Fetch").
	Script bool
	// Image is true for the request of an image of the page (resource type
	// "Image": an <img>'s, a CSS image's), which a body too large to carry is
	// offered to as a stream too: the replay's script in the page shows an <img>
	// from it (large.go).
	Image bool
	// ScriptElement is true for the request of a script the page or a worker runs
	// (resource type "Script": a <script src>, importScripts()), which a body too
	// large to carry is run by webkeep's loader for (loader.go).
	ScriptElement bool
}

// A Match is the capture found for a request.
type Match struct {
	Capture cdx.Entry
	// Approximate is set when no capture had the request's exact key; Why says
	// what differed.
	Approximate bool
	Why         string
}

// IgnoredParams are the query (and form body) parameters a fuzzy look-up ignores:
// cache-busting and timestamp parameters, whose values change at every load, as in
// pywb's default fuzzy rules.
var IgnoredParams = map[string]bool{
	"_": true, "cb": true, "cachebust": true, "cachebuster": true, "nocache": true,
	"timestamp": true, "t": true, "ts": true, "_t": true, "rnd": true, "rand": true, "random": true,
}

// Key returns the key a request is looked up under: the SURT of its URL with pywb
// 2.6.7's method and body query appended, as the session's index keys its capture.
// A body without a Content-Length header (DevTools leaves it out) is counted as
// sent whole.
func Key(r *Request) (string, error) {
	h := r.Header
	if len(r.Body) > 0 {
		if _, ok := headerValue(h, "Content-Length"); !ok {
			h = h.Clone()
			if h == nil {
				h = httpmsg.Header{}
			}
			h.Set("Content-Length", strconv.Itoa(len(r.Body)))
		}
	}
	u, _ := cdx.Pywb267.EncodeRequest(&cdx.Request{Method: r.Method, URL: r.URL, Header: h, Body: r.Body})
	return cdx.SURT(u)
}

// headerValue returns the first value of a header, its name matched in any case.
func headerValue(h httpmsg.Header, name string) (string, bool) {
	for k, v := range h {
		if strings.EqualFold(k, name) && len(v) > 0 {
			return v[0], true
		}
	}
	return "", false
}

// Lookup finds the capture that answers r, the one nearest in time to at (a 4 to
// 14-digit timestamp; "" for the latest). With no capture under r's exact key, a
// capture of the same method and path whose query and body differ only in ignored
// parameters, or, for a POST or PUT, the one with the closest body, is returned as
// approximate. ok is false when nothing matches.
func (ix *Index) Lookup(r *Request, at string) (m Match, ok bool) {
	key, err := Key(r)
	if err != nil {
		return m, false
	}
	target := parseTimestamp(at)
	if i, ok := ix.nearest(ix.exact(key), target); ok {
		return Match{Capture: ix.captures[i]}, true
	}
	return ix.fuzzy(key, strings.ToUpper(r.Method), target)
}

// exact returns the indexes of the captures under key.
func (ix *Index) exact(key string) []int {
	lo := sort.Search(len(ix.captures), func(i int) bool { return ix.captures[i].URLKey >= key })
	var out []int
	for i := lo; i < len(ix.captures) && ix.captures[i].URLKey == key; i++ {
		out = append(out, i)
	}
	return out
}

// nearest returns, of the captures at idx, the one nearest to target (the latest
// when target is zero); an earlier one wins a tie.
func (ix *Index) nearest(idx []int, target time.Time) (int, bool) {
	best := -1
	var bestT time.Time
	var bestD time.Duration
	for _, i := range idx {
		t := parseTimestamp(ix.captures[i].Timestamp)
		if target.IsZero() {
			if best < 0 || t.After(bestT) {
				best, bestT = i, t
			}
			continue
		}
		d := t.Sub(target)
		if d < 0 {
			d = -d
		}
		if best < 0 || d < bestD {
			best, bestD = i, d
		}
	}
	return best, best >= 0
}

// parseTimestamp reads a 14-digit timestamp (padded if shorter); zero if it is not one.
func parseTimestamp(ts string) time.Time {
	if ts == "" || len(ts) > 14 || strings.Trim(ts, "0123456789") != "" {
		return time.Time{}
	}
	t, err := time.Parse("20060102150405", padTimestamp(ts))
	if err != nil {
		return time.Time{}
	}
	return t
}

// keyParts splits a key into its path (before "?"), its method (GET unless
// __wb_method says) and its query parameters other than __wb_method.
func keyParts(key string) (path, method string, params []string) {
	path, query, _ := strings.Cut(key, "?")
	method = "GET"
	for p := range strings.SplitSeq(query, "&") {
		if p == "" {
			continue
		}
		if v, ok := strings.CutPrefix(p, "__wb_method="); ok {
			method = strings.ToUpper(v)
			continue
		}
		params = append(params, p)
	}
	return path, method, params
}

// significant returns the params that a fuzzy look-up compares, counted.
func significant(params []string) (kept map[string]int, ignored []string) {
	kept = map[string]int{}
	for _, p := range params {
		name, _, _ := strings.Cut(p, "=")
		if IgnoredParams[name] {
			ignored = append(ignored, name)
			continue
		}
		kept[p]++
	}
	return kept, ignored
}

// fuzzy is the look-up when no key matched exactly.
func (ix *Index) fuzzy(key, method string, target time.Time) (Match, bool) {
	path, _, params := keyParts(key)
	want, ignored := significant(params)
	var cands []int
	cands = append(cands, ix.exact(path)...)
	prefix := path + "?"
	lo := sort.Search(len(ix.captures), func(i int) bool { return ix.captures[i].URLKey >= prefix })
	for i := lo; i < len(ix.captures) && strings.HasPrefix(ix.captures[i].URLKey, prefix); i++ {
		cands = append(cands, i)
	}
	bodied := method == "POST" || method == "PUT"
	bestScore := 0
	var best []int
	for _, i := range cands {
		_, m, ps := keyParts(ix.captures[i].URLKey)
		if m != method {
			continue
		}
		have, _ := significant(ps)
		common, differ := compare(want, have)
		if differ > 0 && !bodied {
			continue
		}
		score := 1 + 2*common - differ
		switch {
		case len(best) == 0 || score > bestScore:
			best, bestScore = []int{i}, score
		case score == bestScore:
			best = append(best, i)
		}
	}
	i, ok := ix.nearest(best, target)
	if !ok {
		return Match{}, false
	}
	m := Match{Capture: ix.captures[i], Approximate: true}
	_, _, got := keyParts(ix.captures[i].URLKey)
	have, _ := significant(got)
	if _, differ := compare(want, have); differ > 0 {
		m.Why = "no capture of this body: the closest body was used"
	} else if len(ignored) > 0 {
		m.Why = "parameters ignored: " + strings.Join(ignored, ", ")
	} else {
		m.Why = "captured with other cache-busting parameters"
	}
	return m, true
}

// compare counts the parameters two multisets share and those only one has.
func compare(a, b map[string]int) (common, differ int) {
	for p, n := range a {
		c := min(n, b[p])
		common += c
		differ += n - c
	}
	for p, n := range b {
		differ += n - min(n, a[p])
	}
	return common, differ
}
