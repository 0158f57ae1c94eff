package urlrules

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func FuzzCompile(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.rules")
	for _, name := range seeds {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b, "http://test.3.59.w.en.example.org/en/a?page=2&q=x")
		}
	}
	f.Add([]byte(`r { namespace a { namespace b { optional c = flag('x|', "") ; } } ; }`), "x.example.com")
	f.Fuzz(func(t *testing.T, src []byte, rawURL string) {
		rs, err := Compile("fuzz", src)
		if err != nil {
			var list ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("error %v is not a non-empty ErrorList", err)
			}
			for _, e := range list {
				if e.Line < 1 || e.Column < 1 || e.Err == nil {
					t.Fatalf("error without a position or a kind: %+v", e)
				}
			}
			return
		}
		m, err := rs.Match(rawURL)
		if err != nil {
			return
		}
		if m.Domain == "" || m.Options == nil {
			t.Fatalf("%q: no domain or nil options: %+v", rawURL, m)
		}
		// The canonical URL stays in the registered domain (website()
		// strings the rules invent may make it no URL at all).
		c, err := url.Parse(m.Canonical)
		if err != nil {
			return
		}
		if h := c.Hostname(); h != m.Domain && !strings.HasSuffix(h, "."+m.Domain) {
			t.Fatalf("%q: canonical %q is not in domain %q", rawURL, m.Canonical, m.Domain)
		}
	})
}
