package urldb

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// The paths wwturldb computes (url-normalize 1.4.3), from
// testdata/url-normalize/normalize.tsv.
func TestNormalizePathOracle(t *testing.T) {
	f, err := os.Open("testdata/url-normalize/normalize.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		if len(fields) != 3 {
			t.Fatalf("bad line %q", sc.Text())
		}
		_, _, path, query := splitURL(fields[1])
		if got := NormalizePath(path, query, fields[0] == "cs"); got != fields[2] {
			t.Errorf("%s %q: got %q, want %q", fields[0], fields[1], got, fields[2])
		}
		n++
	}
	if n < 200 {
		t.Fatalf("only %d vectors", n)
	}
}

// Where wwturldb's result is wrong, and what NormalizePath gives instead.
func TestNormalizePathDeviations(t *testing.T) {
	tests := []struct{ path, query, want string }{
		{"", "", "/"},              // wwturldb: ""
		{"", "a=1", "/?a=1"},       // wwturldb: "https:///?a=1"
		{"//x/y", "", "/x/y"},      // wwturldb: "https://x/y"
		{"/%C3%A9", "", "/%C3%A9"}, // precomposed: as wwturldb
	}
	for _, tt := range tests {
		if got := NormalizePath(tt.path, tt.query, true); got != tt.want {
			t.Errorf("NormalizePath(%q, %q) = %q, want %q", tt.path, tt.query, got, tt.want)
		}
	}
}

func TestLookup(t *testing.T) {
	db := loadReal(t)
	tests := []struct {
		url, domain, path string
		found             bool
	}{
		{"http://worldwidetelescope.org/about", "worldwidetelescope.org", "/about", true},
		{"https://WWW.WorldWideTelescope.org:443/about#team", "worldwidetelescope.org", "/about", true},
		{"http://openwwt.com/about/./governance/", "worldwidetelescope.org", "/about/governance/", true},
		{"http://worldwidetelescope.org/About", "worldwidetelescope.org", "/About", false}, // case-sensitive-paths: true
		{"https://binder.wwt-forum.org/v2/gh/WorldWideTelescope/pywwt-notebooks/master?urlpath=lab/tree/Start%20Here.ipynb", "binder.wwt-forum.org",
			"/v2/gh/WorldWideTelescope/pywwt-notebooks/master?urlpath=lab/tree/Start%20Here.ipynb", true},
		{"http://forums.worldwidetelescope.org/", "forum.worldwidetelescope.org", "/", true},
		{"http://forums.worldwidetelescope.org", "forum.worldwidetelescope.org", "/", true},
		{"http://example.org/", "", "", false},
	}
	for _, tt := range tests {
		d, r, ok := db.Lookup(tt.url)
		if ok != tt.found || (d == nil) != (tt.domain == "") || d != nil && d.Name != tt.domain || ok && r.Path != tt.path {
			t.Errorf("Lookup(%q) = %v %v %v, want %s %s %v", tt.url, d, r, ok, tt.domain, tt.path, tt.found)
		}
	}
	_, _, err := db.Normalize("http://example.org/x")
	if err == nil || err.Error() != "illegal domain name 'example.org' for URL 'http://example.org/x'" {
		t.Errorf("Normalize error %v", err)
	}
}
