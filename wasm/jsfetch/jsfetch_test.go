//go:build js && wasm

package jsfetch

import (
	"context"
	"errors"
	"io"
	"net/url"
	"strings"
	"syscall/js"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/httpmsg"
)

// stubFetch replaces the global fetch with the JavaScript function body src (given
// url and init, returning a Response promise) for the test, and returns a function
// that gives the last call's URL, method, headers (as "name: value" lines, sorted) and
// body as text.
func stubFetch(t *testing.T, src string) func() (string, string, string, string) {
	t.Helper()
	saved := js.Global().Get("fetch")
	calls := js.Global().Get("Object").New()
	stub := js.Global().Get("Function").New("calls", `
		return async (url, init) => {
			calls.url = url;
			calls.method = init.method;
			calls.headers = [...init.headers.entries()].map(([k, v]) => k + ": " + v).sort().join("\n");
			calls.body = init.body ? new TextDecoder().decode(init.body) : "";
			calls.aborted = () => init.signal.aborted;
			`+src+`
		};`).Invoke(calls)
	js.Global().Set("fetch", stub)
	t.Cleanup(func() { js.Global().Set("fetch", saved) })
	return func() (string, string, string, string) {
		return calls.Get("url").String(), calls.Get("method").String(), calls.Get("headers").String(), calls.Get("body").String()
	}
}

func TestDoSendsTheRequestAndStreamsTheResponse(t *testing.T) {
	last := stubFetch(t, `
		const body = new ReadableStream({
			start(c) { c.enqueue(new TextEncoder().encode("part one, ")); c.enqueue(new TextEncoder().encode("part two")); c.close(); },
		});
		return new Response(body, { status: 201, headers: { "Content-Type": "text/plain", "X-Multi": "a" } });`)
	req, err := httpmsg.NewRequest(context.Background(), httpmsg.MethodPut, "https://team.example/api/upload?part=2", strings.NewReader("the part"))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer s3cret")
	resp, err := Client{}.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 201 || resp.Status != "201 Created" {
		t.Errorf("status %d %q", resp.StatusCode, resp.Status)
	}
	if got := resp.Header.Get("Content-Type"); got != "text/plain" {
		t.Errorf("Content-Type %q", got)
	}
	if resp.ContentLength != -1 {
		t.Errorf("ContentLength %d, want -1 (no Content-Length)", resp.ContentLength)
	}
	if string(body) != "part one, part two" {
		t.Errorf("body %q", body)
	}
	u, method, headers, sent := last()
	if u != "https://team.example/api/upload?part=2" || method != "PUT" || sent != "the part" {
		t.Errorf("sent %s %s with %q", method, u, sent)
	}
	if headers != "authorization: Bearer s3cret" {
		t.Errorf("headers sent %q", headers)
	}
	if resp.Request.URL.String() != req.URL.String() {
		t.Errorf("response's request %s", resp.Request.URL)
	}
}

func TestDoGivesTheRedirectedURLAndAGzipBodyAsDecoded(t *testing.T) {
	stubFetch(t, `
		const r = new Response("hello", { status: 200, headers: { "Content-Encoding": "gzip", "Content-Length": "25" } });
		Object.defineProperty(r, "redirected", { value: true });
		Object.defineProperty(r, "url", { value: "https://example.org/moved" });
		return r;`)
	req, _ := httpmsg.NewRequest(context.Background(), httpmsg.MethodGet, "https://example.org/old", nil)
	resp, err := Client{}.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if got := resp.Request.URL.String(); got != "https://example.org/moved" {
		t.Errorf("response's request URL %s, want the redirect's", got)
	}
	if req.URL.String() != "https://example.org/old" {
		t.Errorf("the request itself was changed: %s", req.URL)
	}
	if !resp.Uncompressed || resp.Header.Get("Content-Encoding") != "" || resp.ContentLength != -1 {
		t.Errorf("gzip: Uncompressed %v, Content-Encoding %q, ContentLength %d", resp.Uncompressed, resp.Header.Get("Content-Encoding"), resp.ContentLength)
	}
}

func TestDoErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"TypeError", `throw new TypeError("Failed to fetch")`, `Get "https://example.org/x": net/http: fetch() failed: TypeError: Failed to fetch`},
		{"with a cause", `throw new TypeError("fetch failed", { cause: new Error("ECONNREFUSED") })`, `Get "https://example.org/x": net/http: fetch() failed: TypeError: fetch failed: Error: ECONNREFUSED`},
		{"undefined", `return Promise.reject(undefined)`, `Get "https://example.org/x": net/http: fetch() failed: promise rejected with undefined`},
		{"bad Content-Length", `return new Response("x", { headers: { "Content-Length": "-3" } })`, `Get "https://example.org/x": net/http: invalid Content-Length header: "-3"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stubFetch(t, tt.src)
			req, _ := httpmsg.NewRequest(context.Background(), httpmsg.MethodGet, "https://example.org/x", nil)
			_, err := Client{}.Do(req)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("error %v, want %s", err, tt.want)
			}
			var ue *url.Error
			if !errors.As(err, &ue) {
				t.Errorf("error %T, want *url.Error", err)
			}
		})
	}
}

func TestDoAbortsWhenTheContextEnds(t *testing.T) {
	stubFetch(t, `
		return new Promise((_, reject) => init.signal.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError"))));`)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	req, _ := httpmsg.NewRequest(ctx, httpmsg.MethodGet, "https://example.org/slow", nil)
	_, err := Client{}.Do(req)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v, want the context's deadline", err)
	}
}

func TestURLErrorOp(t *testing.T) {
	for method, want := range map[string]string{"": "Get", "GET": "Get", "POST": "Post", "DELETE": "Delete"} {
		if got := urlErrorOp(method); got != want {
			t.Errorf("urlErrorOp(%q) = %q, want %q", method, got, want)
		}
	}
}
