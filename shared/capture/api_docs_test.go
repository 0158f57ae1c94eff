package capture

import (
	"os"
	"regexp"
	"slices"
	"testing"
)

// docRoute is a route as docs/api.md names it, in code: "`GET /api/sessions/{id}`",
// "`POST /api/urldb?name=FILE`" (the query is not part of the route).
var docRoute = regexp.MustCompile("`((?:GET|HEAD|POST|PUT|PATCH|DELETE) /api/[^`?\\s]*)")

// documentedRoutes returns the routes a document names, as http.ServeMux patterns.
func documentedRoutes(doc string) map[string]bool {
	out := map[string]bool{}
	for _, m := range docRoute.FindAllStringSubmatch(doc, -1) {
		out[m[1]] = true
	}
	return out
}

func TestDocumentedRoutes(t *testing.T) {
	doc := "| `GET /api/status` | ... |\n`POST /api/urldb?name=FILE` body, `DELETE /api/jobs/{id}` cancels; the Worker's `/api/uploads`; `GET /api/sessions/{id}/{file}`"
	got := documentedRoutes(doc)
	want := map[string]bool{"GET /api/status": true, "POST /api/urldb": true, "DELETE /api/jobs/{id}": true, "GET /api/sessions/{id}/{file}": true}
	if len(got) != len(want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for r := range want {
		if !got[r] {
			t.Errorf("%q not found in %q", r, doc)
		}
	}
}

// docs/api.md documents every route the Handler registers, and no other.
func TestHandlerRoutesAreDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	documented := documentedRoutes(string(doc))
	svc, err := NewService(NewMemStore(), newFakeHost())
	if err != nil {
		t.Fatal(err)
	}
	registered := svc.api().patterns
	for _, p := range registered {
		if !documented[p] {
			t.Errorf("the Handler answers %q, which docs/api.md does not document", p)
		}
	}
	for p := range documented {
		if !slices.Contains(registered, p) {
			t.Errorf("docs/api.md documents %q, which the Handler does not answer", p)
		}
	}
}
