package datatxt

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*")
	for _, name := range seeds {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b, "/org/about.html")
		}
	}
	f.Add([]byte("User-agent: *\r\nDisallow: /a%2fb\rAllow: /%7e\n"), "/a%2Fb")
	f.Add([]byte("- path: [a, b]\n  x: &a [*a]\n"), "/")
	f.Fuzz(func(t *testing.T, data []byte, path string) {
		file, err := Parse(bytes.NewReader(data))
		if err != nil {
			if file != nil {
				t.Fatal("a File returned with an error")
			}
			return
		}
		allowed := file.Allowed("fuzzbot/1.0", path)
		if file.Format == YAML && !allowed {
			t.Fatal("a YAML-form file disallowed a path")
		}
		// Spelling octets with escapes must not change the decision.
		var esc bytes.Buffer
		for _, c := range []byte(path) {
			if c == '~' {
				esc.WriteString("%7E")
				continue
			}
			esc.WriteByte(c)
		}
		if file.Allowed("fuzzbot/1.0", esc.String()) != allowed {
			t.Fatalf("%q and %q decided differently", path, esc.String())
		}
	})
}
