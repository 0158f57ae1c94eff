package urldb

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzReadDomain: any input loads without panic or hang, and a file that loads
// without errors is written in a form that reads back to the same form.
func FuzzReadDomain(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*/*.yaml")
	for _, name := range seeds {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		// Small seeds keep the fuzzer fast: it minimises every new input.
		if len(data) > 1200 {
			data = data[:bytes.LastIndex(data[:1200], []byte("\n---\n"))+1]
		}
		f.Add(data)
	}
	f.Add([]byte("---\n---\n_path: /\ncontent-type: text/html\n"))
	f.Add([]byte("%YAML 1.1\n---\na: &x [1, *x]\n...\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ReadDomain("f.example.yaml", bytes.NewReader(data))
		if d == nil {
			t.Fatalf("nil domain (err %v)", err)
		}
		if err != nil || d.Incomplete {
			return
		}
		once := d.Encode()
		d2, err := ReadDomain("f.example.yaml", bytes.NewReader(once))
		if err != nil {
			t.Fatalf("written form does not load: %v\n%q\nfrom %q", err, once, data)
		}
		if twice := d2.Encode(); !bytes.Equal(once, twice) {
			t.Fatalf("not idempotent:\n%q\n%q\nfrom %q", once, twice, data)
		}
	})
}

// FuzzNormalizePath: never panics, and always gives an absolute path of
// printable ASCII (everything else percent-encoded). Normalising twice may
// change more, as in wwturldb: "/%45" on a case-insensitive domain gives "/E"
// then "/e", "?a=%3F" gives "?a=?" then "?a=".
func FuzzNormalizePath(f *testing.F) {
	for _, s := range []string{"/a/../b?c=%7e&a", "/%E2%82", "//x/./y", "/?utm_source=x&", "/a b/%zz", "?\xd9"} {
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, raw string, caseSensitive bool) {
		_, _, path, query := splitURL("http://example.com" + raw)
		got := NormalizePath(path, query, caseSensitive)
		if !strings.HasPrefix(got, "/") {
			t.Fatalf("%q -> %q: not absolute", raw, got)
		}
		for i := 0; i < len(got); i++ {
			if got[i] <= ' ' || got[i] > '~' {
				t.Fatalf("%q -> %q: byte %#x at %d", raw, got, got[i], i)
			}
		}
	})
}
