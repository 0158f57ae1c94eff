package capture

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/webkeep/webkeep/shared/httpmsg/nethttp"
	"github.com/webkeep/webkeep/shared/recorder"
	"github.com/webkeep/webkeep/shared/recorder/recordertest"
)

// listFields checks that each documented list field of a JSON answer is a list: not
// null, not missing. A path is dot-separated field names; "[]" stands for every element
// of a list; the empty path is the answer itself. A name ending in "?" is a field
// docs/api.md marks optional: it may be missing, but when present it is a list.
func listFields(t *testing.T, what string, body []byte, paths ...string) {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%s: %v: %s", what, err, body)
	}
	for _, p := range paths {
		var path []string
		if p != "" {
			path = strings.Split(p, ".")
		}
		for _, problem := range listProblems(v, path, "") {
			t.Errorf("%s: %s: %s", what, p, problem)
		}
	}
}

func listProblems(v any, path []string, at string) []string {
	if len(path) == 0 {
		if _, ok := v.([]any); !ok {
			return []string{at + " is " + describeJSON(v) + ", want a list"}
		}
		return nil
	}
	name := path[0]
	if name == "[]" {
		list, ok := v.([]any)
		if !ok {
			return []string{at + " is " + describeJSON(v) + ", want a list"}
		}
		var out []string
		for _, e := range list {
			out = append(out, listProblems(e, path[1:], at+"[]")...)
		}
		return out
	}
	optional := strings.HasSuffix(name, "?")
	name = strings.TrimSuffix(name, "?")
	obj, ok := v.(map[string]any)
	if !ok {
		return []string{at + " is " + describeJSON(v) + ", want an object"}
	}
	field, present := obj[name]
	if !present {
		if optional {
			return nil
		}
		return []string{at + "." + name + " is missing"}
	}
	return listProblems(field, path[1:], at+"."+name)
}

func describeJSON(v any) string {
	if v == nil {
		return "null"
	}
	b, _ := json.Marshal(v)
	if len(b) > 40 {
		b = append(b[:40], "..."...)
	}
	return string(b)
}

// TestAnswersListNothingAsEmptyLists reads every answer docs/api.md describes with a
// list field, idle and with something recorded, and fails on a null where a list is
// documented.
func TestAnswersListNothingAsEmptyLists(t *testing.T) {
	host := newFakeHost()
	svc, _ := NewService(NewMemStore(), host)
	h := nethttp.Handler(svc.Handler())
	get := func(path string, fields ...string) {
		t.Helper()
		rec := send(t, h, "GET", path, "", nil, nil)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
		}
		listFields(t, "GET "+path, rec.Body.Bytes(), fields...)
	}

	// Nothing yet.
	get("/api/status", "tabs")
	get("/api/sessions", "")
	get("/api/urldb", "domains", "problems", "origins")
	if rec := send(t, h, "PUT", "/api/settings", "application/json", []byte(`{"domainRules":null}`), nil); rec.Code != http.StatusOK {
		t.Fatalf("PUT /api/settings: %d %s", rec.Code, rec.Body)
	}
	rec := send(t, h, "GET", "/api/settings", "", nil, nil)
	var settings map[string]any
	json.Unmarshal(rec.Body.Bytes(), &settings)
	if _, ok := settings["domainRules"].(map[string]any); !ok {
		t.Errorf("GET /api/settings: domainRules is %s, want an object", describeJSON(settings["domainRules"]))
	}

	// A session being recorded, with nothing in it yet.
	ctx := context.Background()
	info, err := svc.Start(ctx, 7)
	if err != nil {
		t.Fatal(err)
	}
	get("/api/status", "tabs", "session.notes")
	get("/api/sessions", "[].notes")
	get("/api/sessions/"+info.ID, "notes")
	get("/api/sessions/"+info.ID+"/records", "")
	get("/api/sessions/"+info.ID+"/pages", "")
	get("/api/sessions/"+info.ID+"/report", "session.notes", "verdicts", "sites")

	// Stopped, with a page and a response in it.
	for _, ev := range []recordertest.Event{
		{Method: "Page.frameNavigated", Params: `{"frame":{"id":"F","url":"http://example.org/"}}`},
		{Method: "Network.requestWillBeSent", Params: `{"requestId":"1","request":{"url":"http://example.org/","method":"GET","headers":{}}}`},
		{Method: "Network.responseReceived", Params: `{"requestId":"1","response":{"status":200,"headers":{"Content-Type":"text/html"}}}`},
		{Method: "Network.loadingFinished", Params: `{"requestId":"1"}`},
	} {
		svc.Event(ctx, recorder.Target{TabID: 7}, ev.Method, json.RawMessage(ev.Params), nil)
	}
	if _, err := svc.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	get("/api/status", "tabs")
	get("/api/sessions", "[].notes")
	get("/api/sessions/"+info.ID, "notes")
	get("/api/sessions/"+info.ID+"/pages", "")
	get("/api/sessions/"+info.ID+"/report", "session.notes", "verdicts", "sites", "sites.[].datatxt.datasets?")

	// A URL database: loaded, and one whose only file is broken.
	for _, files := range []map[string]string{
		{"db/example.org.yaml": demoDomain},
		{"db/broken.org.yaml": "---\nhttps: [\n"},
	} {
		j := runJob(t, h, "POST", "/api/urldb", "application/zip", dbZip(t, files), nil)
		if j.State != "done" {
			t.Fatalf("POST /api/urldb: %s %s", j.State, j.Error)
		}
		result, _ := json.Marshal(j.Result)
		listFields(t, "POST /api/urldb's job", result, "domains", "problems", "origins")
		get("/api/urldb", "domains", "problems", "origins")
	}
}
