package autopilot

import (
	"net/url"
	"slices"
	"strings"
	"testing"
)

func TestParseSrcset(t *testing.T) {
	const base = "https://example.org/feed/page.html"
	for _, tc := range []struct {
		srcset string
		want   []string
	}{
		{"a.jpg 200w, b.jpg 400w", []string{"https://example.org/feed/a.jpg", "https://example.org/feed/b.jpg"}},
		{"/img/1?w=200 200w,/img/1?w=400 400w , /img/1?w=800 800w", []string{"https://example.org/img/1?w=200", "https://example.org/img/1?w=400", "https://example.org/img/1?w=800"}},
		{"a.jpg, b.jpg 2x", []string{"https://example.org/feed/a.jpg", "https://example.org/feed/b.jpg"}},
		{"a.jpg 1x, a.jpg 2x", []string{"https://example.org/feed/a.jpg"}},
		{"data:image/png;base64,AAAA 1x, b.png 2x", []string{"https://example.org/feed/b.png"}},
		{"a,b.jpg 1x", []string{"https://example.org/feed/a,b.jpg"}},
		{"a.jpg (foo, bar) 1x, b.jpg", []string{"https://example.org/feed/a.jpg", "https://example.org/feed/b.jpg"}},
		{"https://cdn.example/x.webp#frag 100w", []string{"https://cdn.example/x.webp"}},
		{"  ,, ", nil},
		{"", nil},
		{"javascript:alert(1) 1x", nil},
	} {
		if got := ParseSrcset(tc.srcset, base); !slices.Equal(got, tc.want) {
			t.Errorf("ParseSrcset(%q) = %q, want %q", tc.srcset, got, tc.want)
		}
	}
}

func TestParseSrcsetBounded(t *testing.T) {
	var b strings.Builder
	for i := range 1000 {
		b.WriteString("/i")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString(string(rune('a'+i%26)) + "?n=")
		b.WriteString(strings.Repeat("1", i%50+1))
		b.WriteString(" 1x, ")
	}
	if got := ParseSrcset(b.String(), "https://example.org/"); len(got) != maxSrcsetURLs {
		t.Errorf("got %d URLs, want %d", len(got), maxSrcsetURLs)
	}
}

// FuzzParseSrcset: any attribute parses without panic into at most maxSrcsetURLs
// distinct absolute http(s) URLs without fragment.
func FuzzParseSrcset(f *testing.F) {
	f.Add("a.jpg 200w, b.jpg 400w", "https://example.org/x/")
	f.Add("a.jpg (1, 2) 1x,,, b.jpg,", "http://e/")
	f.Add("data:,x 1x", "https://example.org/")
	f.Fuzz(func(t *testing.T, srcset, base string) {
		got := ParseSrcset(srcset, base)
		if len(got) > maxSrcsetURLs {
			t.Fatalf("%d URLs", len(got))
		}
		seen := map[string]bool{}
		for _, s := range got {
			u, err := url.Parse(s)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Fragment != "" {
				t.Errorf("%q: not an absolute http(s) URL without fragment", s)
			}
			if seen[s] {
				t.Errorf("%q twice", s)
			}
			seen[s] = true
		}
	})
}
