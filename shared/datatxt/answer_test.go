package datatxt

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/webkeep/webkeep/shared/httpmsg/nethttp"
)

const sitePage = `<!DOCTYPE html>
<html><head><title>Shop</title><meta name="viewport" content="width=device-width"></head>
<body><a href="https://example.org/">Home</a> Disallow: nothing here</body></html>
`

func TestGetCountsOnlyTextAnswersOfTheFormat(t *testing.T) {
	tests := []struct {
		name, ctype, body string
		found             bool
	}{
		{"robots as text/plain", "text/plain; charset=utf-8", "User-agent: *\nDisallow: /private\n", true},
		{"yaml data.txt", "text/yaml", "- path: a.csv\n  name: a\n", true},
		{"yaml as application/yaml", "application/yaml", "- path: a.csv\n", true},
		{"sitemap alone", "text/plain", "Sitemap: https://example.org/sitemap.xml\n", true},
		{"empty file", "text/plain", "", true},
		{"comments only", "text/plain", "# nothing to say\n", true},
		{"no content type", "", "User-agent: *\nAllow: /\n", true},
		{"the site's own page", "text/html; charset=utf-8", sitePage, false},
		{"an HTML page called text", "text/plain", sitePage, false},
		{"an HTML page without a doctype", "text/plain", "\n  <html><body>User-agent: *</body></html>", false},
		{"an image", "image/png", "User-agent: *\n", false},
		{"text that is neither form", "text/plain", "Not here, sorry.\nTry the front page.\n", false},
		{"a JSON error", "application/json", `{"error": "not found"}`, false},
		{"a bad content type", "text/", "User-agent: *\n", false},
	}
	mux := http.NewServeMux()
	for i, tt := range tests {
		mux.HandleFunc("/"+string(rune('a'+i))+"/data.txt", func(w http.ResponseWriter, r *http.Request) {
			if tt.ctype != "" {
				w.Header().Set("Content-Type", tt.ctype)
			} else {
				w.Header()["Content-Type"] = nil // no sniffing by net/http
			}
			io.WriteString(w, tt.body)
		})
	}
	srv := httptest.NewServer(mux)
	defer srv.Close()
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Get(context.Background(), nethttp.Client{Client: srv.Client()}, srv.URL+"/"+string(rune('a'+i))+"/data.txt")
			if tt.found && (err != nil || f == nil) {
				t.Fatalf("not found: %v", err)
			}
			if !tt.found && !errors.Is(err, ErrNotText) {
				t.Fatalf("err = %v, want ErrNotText", err)
			}
		})
	}
}

func FuzzParseAnswer(f *testing.F) {
	f.Add("text/plain", "User-agent: *\nDisallow: /\n")
	f.Add("text/html", sitePage)
	f.Add("", "- path: a\n")
	f.Add("text/plain; charset=\"", "x: y")
	f.Fuzz(func(t *testing.T, ctype, body string) {
		file, err := ParseAnswer(ctype, strings.NewReader(body))
		if err == nil && file == nil {
			t.Fatal("no file and no error")
		}
		if err == nil && isHTML([]byte(body)) {
			t.Fatal("an HTML document counted as a file")
		}
	})
}

// FuzzIsHTML holds isHTML to net/http's sniffing of HTML, which it replaces so that
// the package does not import net/http.
func FuzzIsHTML(f *testing.F) {
	for _, s := range []string{"", "<html>", " \n<HTML ", "<html", "<!DOCTYPE html>", "<!doctype HTML ", "<!-->", "<!--",
		"<p>hi", "<P ", "<pre>", "<a href=x>", "<b>", "<br>", "<body>", "<h1>", "<h2>", "\x0c<div>", "<?xml", "User-agent: *\n",
		"\xef\xbb\xbf<html>", strings.Repeat(" ", 510) + "<p>", strings.Repeat(" ", 509) + "<p>"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want := strings.HasPrefix(http.DetectContentType(data), "text/html")
		if got := isHTML(data); got != want {
			t.Errorf("isHTML(%q) = %v, net/http sniffs %q", data, got, http.DetectContentType(data))
		}
	})
}
