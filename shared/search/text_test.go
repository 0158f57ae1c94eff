package search

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func TestExtract(t *testing.T) {
	tests := []struct {
		name, ctype, body string
		limit             int64
		title, text       string
		truncated         bool
	}{
		{"html", "text/html", `<!doctype html><html><head><title> A  page </title><style>p{color:red}</style>
<script>var hidden = "no";</script><meta name="x" content="y"></head>
<body><h1>Heading</h1><p>One <b>bold</b>word.</p><p>Two</p><noscript>enable js</noscript>
<template><p>not shown</p></template><div>Z&uuml;rich &amp; Gen&egrave;ve</div></body></html>`,
			0, "A page", "Heading\nOne boldword.\nTwo\nZürich & Genève", false},
		{"no head end", "text/html; charset=utf-8", `<title>T</title><p>Body text`, 0, "T", "Body text", false},
		{"nested template", "text/html", `<p>a</p><template><template>x</template>y</template><p>b</p>`, 0, "", "a\nb", false},
		{"latin1 from header", "text/html; charset=iso-8859-1", "<p>Z\xfcrich</p>", 0, "", "Zürich", false},
		{"latin1 from meta", "text/html", "<html><head><meta charset=\"windows-1252\"></head><p>caf\xe9 \x93quoted\x94</p>", 0, "", "café “quoted”", false},
		{"shift_jis", "text/html; charset=shift_jis", "<p>\x93\x8c\x8b\x9e</p>", 0, "", "東京", false},
		{"invalid utf-8", "text/html", "<p>a\xffb</p>", 0, "", "a\uFFFDb", false},
		{"limit", "text/html", "<p>hello wonderful world</p>", 11, "", "hello wonde", true},
		{"limit at separator", "text/html", "<p>hello</p><p>world</p>", 6, "", "hello\n", true},
		{"limit in rune", "text/plain", "aé", 2, "", "a", true},
		{"plain", "text/plain", "  first line\r\n\r\nsecond\tline  ", 0, "", "first line second line", false},
		{"json", "application/json", `{"title":"Hello","n":3,"tags":["a b","c"],"nested":{"k":"v","t":true,"x":null},"after":"end"}`,
			0, "", "Hello\na b\nc\nv\nend", false},
		{"json lines", "application/x-ndjson+json", "{\"a\":\"one\"}\n{\"a\":\"two\"}\n", 0, "", "one\ntwo", false},
		{"xml", "application/rss+xml", `<?xml version="1.0"?><rss><channel><title>Feed</title><item><title>Item one</title><description>Text &amp; more</description></item></channel></rss>`,
			0, "Feed", "Feed\nItem one\nText & more", false},
		{"xml latin1", "text/xml", "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a>Z\xfcrich</a>", 0, "", "Zürich", false},
		{"utf-16 bom", "text/plain", "\xff\xfeh\x00i\x00", 0, "", "hi", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Extract(tt.ctype, strings.NewReader(tt.body), tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if d.Title != tt.title || d.Text != tt.text || d.Truncated != tt.truncated {
				t.Errorf("got title %q text %q truncated %v\nwant title %q text %q truncated %v", d.Title, d.Text, d.Truncated, tt.title, tt.text, tt.truncated)
			}
		})
	}
}

func TestExtractErrors(t *testing.T) {
	if _, err := Extract("image/png", strings.NewReader("x"), 0); !errors.Is(err, ErrNotText) {
		t.Errorf("image/png: %v, want ErrNotText", err)
	}
	d, err := Extract("application/json", strings.NewReader(`{"a":"kept", "b": nope}`), 0)
	if err == nil || d.Text != "kept" {
		t.Errorf("bad JSON: %q, %v; want the text before the error and an error", d.Text, err)
	}
}

// TestExtractArchivePage reads the extension's own archive page: its title,
// its visible words, and nothing of its head or scripts.
func TestExtractArchivePage(t *testing.T) {
	f, err := os.Open("testdata/archive.html")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := Extract("text/html", f, 0)
	if err != nil {
		t.Fatal(err)
	}
	if d.Title != "webkeep archive" {
		t.Errorf("title %q", d.Title)
	}
	for _, want := range []string{"Sessions", "Team archive", "Replay from the team archive", "Import a WARC, WACZ or bundle…"} {
		if !strings.Contains(d.Text, want) {
			t.Errorf("text lacks %q", want)
		}
	}
	for _, not := range []string{"<", "stylesheet", "viewport", "archive.js", "import-file"} {
		if strings.Contains(d.Text, not) {
			t.Errorf("text holds %q:\n%s", not, d.Text)
		}
	}
}
