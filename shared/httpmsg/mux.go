package httpmsg

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// A Mux routes requests by method and path, as net/http's ServeMux does with the
// patterns webkeep's API uses: "METHOD /literal/{name}/...", where {name} matches one
// whole path segment (unescaped, for PathValue). Of the patterns that match a path,
// the one with a literal segment where another has a wildcard wins; a GET pattern
// answers HEAD too. A path no pattern matches is answered 404; one matched for
// other methods only, 405 with an Allow field. (Unlike net/http's, it does not
// redirect a path that is not clean: its callers send clean ones.)
type Mux struct {
	routes []route
}

type route struct {
	method   string
	segments []string // "{name}" for a wildcard
	handler  Handler
}

// NewMux returns an empty Mux.
func NewMux() *Mux { return &Mux{} }

// Handle registers h for pattern. It panics on a pattern that is not "METHOD /path"
// or that is registered already, as net/http's ServeMux does.
func (m *Mux) Handle(pattern string, h Handler) {
	method, path, ok := strings.Cut(pattern, " ")
	if !ok || method == "" || !strings.HasPrefix(path, "/") {
		panic(fmt.Sprintf("httpmsg: pattern %q: want \"METHOD /path\"", pattern))
	}
	r := route{method: method, segments: strings.Split(path[1:], "/"), handler: h}
	for _, o := range m.routes {
		if o.method == r.method && slices.Equal(o.segments, r.segments) {
			panic(fmt.Sprintf("httpmsg: pattern %q is registered twice", pattern))
		}
	}
	m.routes = append(m.routes, r)
}

// HandleFunc registers f for pattern (see Handle).
func (m *Mux) HandleFunc(pattern string, f func(ResponseWriter, *Request)) {
	m.Handle(pattern, HandlerFunc(f))
}

// ServeHTTP answers r with the handler of the pattern that matches it best.
func (m *Mux) ServeHTTP(w ResponseWriter, r *Request) {
	segments := strings.Split(strings.TrimPrefix(r.URL.EscapedPath(), "/"), "/")
	for i, s := range segments {
		if u, err := url.PathUnescape(s); err == nil {
			segments[i] = u
		}
	}
	var best *route
	var allow []string
	for i := range m.routes {
		rt := &m.routes[i]
		if !rt.matches(segments) {
			continue
		}
		if rt.method != r.Method && !(rt.method == MethodGet && r.Method == "HEAD") {
			allow = append(allow, rt.method)
			if rt.method == MethodGet {
				allow = append(allow, "HEAD")
			}
			continue
		}
		if best == nil || rt.moreSpecific(best) {
			best = rt
		}
	}
	switch {
	case best != nil:
		for i, s := range best.segments {
			if name, ok := wildcard(s); ok {
				r.SetPathValue(name, segments[i])
			}
		}
		best.handler.ServeHTTP(w, r)
	case allow != nil:
		slices.Sort(allow)
		w.Header().Set("Allow", strings.Join(slices.Compact(allow), ", "))
		Error(w, StatusText(StatusMethodNotAllowed), StatusMethodNotAllowed)
	default:
		Error(w, "404 page not found", StatusNotFound)
	}
}

// matches reports whether the route's path matches the request path's segments.
func (rt *route) matches(segments []string) bool {
	if len(segments) != len(rt.segments) {
		return false
	}
	for i, s := range rt.segments {
		if _, ok := wildcard(s); ok {
			if segments[i] == "" {
				return false
			}
		} else if s != segments[i] {
			return false
		}
	}
	return true
}

// moreSpecific reports whether rt has a literal segment before o does where the
// other has a wildcard.
func (rt *route) moreSpecific(o *route) bool {
	for i, s := range rt.segments {
		_, w1 := wildcard(s)
		_, w2 := wildcard(o.segments[i])
		if w1 != w2 {
			return w2
		}
	}
	return false
}

// wildcard returns the name of a "{name}" segment.
func wildcard(segment string) (string, bool) {
	if strings.HasPrefix(segment, "{") && strings.HasSuffix(segment, "}") {
		return segment[1 : len(segment)-1], true
	}
	return "", false
}

// Error answers code with a line of text, as net/http's Error does.
func Error(w ResponseWriter, text string, code int) {
	h := w.Header()
	h.Del("Content-Length")
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	fmt.Fprintln(w, text)
}
