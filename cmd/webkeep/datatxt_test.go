package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The fict.org example of the specification, section 4.
const fictOrg = `# /robots.txt for http://www.fict.org/
User-agent: unhipbot
Disallow: /

User-agent: webcrawler
User-agent: excite
Disallow:

User-agent: *
Disallow: /org/plans.html
Allow: /org/
Allow: /serv
Allow: /~mak
Disallow: /
`

func siteRun(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func siteTempFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDatatxtAllowedFile(t *testing.T) {
	file := siteTempFile(t, "robots.txt", fictOrg)
	code, out, errs := siteRun("datatxt", "allowed", "--agent", "FigTree/0.1 Robot", "--file", file,
		"/", "/org/about.html", "http://www.fict.org/%7Emak/mak.html", "/%7Ejim/jim.html", "/robots.txt")
	want := "disallowed /\nallowed /org/about.html\nallowed http://www.fict.org/%7Emak/mak.html\n" +
		"disallowed /%7Ejim/jim.html\nallowed /robots.txt\n"
	if code != 0 || out != want {
		t.Errorf("exit %d, stdout\n%s\nstderr %s\nwant\n%s", code, out, errs, want)
	}
}

func TestDatatxtAllowedURL(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/data.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("User-agent: webkeep\nDisallow: /data-private\n"))
	})
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("User-agent: *\nDisallow: /robots-private\n"))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	code, out, errs := siteRun("datatxt", "allowed", "--agent", "webkeep", "--url", srv.URL+"/some/page",
		"/data-private/x", "/robots-private/x", "/public")
	want := "disallowed /data-private/x\ndisallowed /robots-private/x\nallowed /public\n"
	if code != 0 || out != want {
		t.Errorf("exit %d, stdout\n%s\nstderr %s\nwant\n%s", code, out, errs, want)
	}

	// Neither file exists: nothing is restricted.
	empty := httptest.NewServer(http.NotFoundHandler())
	defer empty.Close()
	code, out, _ = siteRun("datatxt", "allowed", "--agent", "webkeep", "--url", empty.URL, "/x")
	if code != 0 || out != "allowed /x\n" {
		t.Errorf("site without files: exit %d, %q", code, out)
	}

	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down", http.StatusServiceUnavailable)
	}))
	defer broken.Close()
	code, _, errs = siteRun("datatxt", "allowed", "--agent", "webkeep", "--url", broken.URL, "/x")
	if code != 1 || !strings.Contains(errs, "503") {
		t.Errorf("failing site: exit %d, stderr %q", code, errs)
	}
}

func TestDatatxtList(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/data.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("- path: iris/\n  name: iris\n  rows: 150\n- path: [a.csv, b.csv]\n  name: ab\n  license: CC0-1.0\n"))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	code, out, errs := siteRun("datatxt", "list", "--url", srv.URL)
	want := `{"name":"iris","path":["iris/"],"rows":150}` + "\n" +
		`{"license":"CC0-1.0","name":"ab","path":["a.csv","b.csv"]}` + "\n"
	if code != 0 || out != want {
		t.Errorf("exit %d, stdout\n%s\nstderr %s\nwant\n%s", code, out, errs, want)
	}

	file := siteTempFile(t, "data.txt", fictOrg)
	code, out, errs = siteRun("datatxt", "list", "--file", file)
	if code != 0 || out != "" || !strings.Contains(errs, "robots form") {
		t.Errorf("robots form: exit %d, stdout %q, stderr %q", code, out, errs)
	}

	bad := siteTempFile(t, "data.txt", "- just a string\n")
	code, _, errs = siteRun("datatxt", "list", "--file", bad)
	if code != 1 || !strings.Contains(errs, "line 1") {
		t.Errorf("bad YAML: exit %d, stderr %q", code, errs)
	}
}

func TestDatatxtUsage(t *testing.T) {
	file := siteTempFile(t, "robots.txt", fictOrg)
	for _, args := range [][]string{
		{"datatxt"},
		{"datatxt", "nope"},
		{"datatxt", "allowed", "--file", file, "/"},                          // no agent
		{"datatxt", "allowed", "--agent", "a", "/"},                          // no source
		{"datatxt", "allowed", "--agent", "a", "--file", file, "--url", "x"}, // both
		{"datatxt", "allowed", "--agent", "a", "--file", file},               // no path
		{"datatxt", "list"},
		{"datatxt", "list", "--bogus"},
	} {
		if code, _, errs := siteRun(args...); code != 2 || !strings.Contains(errs, "usage") {
			t.Errorf("%q: exit %d, stderr %q; want 2 and usage", args, code, errs)
		}
	}
	if code, _, errs := siteRun("datatxt", "allowed", "-h"); code != 0 || !strings.Contains(errs, "--agent NAME") {
		t.Errorf("-h: exit %d, %q", code, errs)
	}
	if code, _, errs := siteRun("datatxt", "list", "--file", "/nonexistent/data.txt"); code != 1 || !strings.Contains(errs, "nonexistent") {
		t.Errorf("missing file: exit %d, %q", code, errs)
	}
}
