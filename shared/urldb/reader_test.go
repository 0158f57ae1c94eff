package urldb

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
)

const realDB = "testdata/wwt-url-database"

func loadReal(t testing.TB) *Database {
	t.Helper()
	db, err := LoadDir(realDB)
	if err != nil {
		t.Fatalf("LoadDir: %v", err)
	}
	return db
}

// The real database (written by wwturldb with PyYAML) loads without a problem,
// with the counts its README gives, and every file round-trips byte for byte.
func TestRealDatabaseRoundTrip(t *testing.T) {
	db := loadReal(t)
	if len(db.Domains) != 8 {
		t.Fatalf("%d domains, want 8", len(db.Domains))
	}
	records, static := 0, 0
	for _, d := range db.Domains {
		if d.Incomplete {
			t.Errorf("%s: incomplete", d.Name)
		}
		for _, r := range d.Records {
			records++
			if r.Static() {
				static++
			}
		}
		want, err := os.ReadFile(filepath.Join(realDB, d.Name+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if got := d.Encode(); !bytes.Equal(got, want) {
			t.Errorf("%s: Encode differs from the file\n%s", d.Name, firstDiff(got, want))
		}
	}
	if records != 537 || static != 348 {
		t.Errorf("%d records, %d static; want 537, 348 (README)", records, static)
	}
}

func firstDiff(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(g) && i < len(w); i++ {
		if g[i] != w[i] {
			return "line " + itoa(i+1) + ":\n got  " + g[i] + "\n want " + w[i]
		}
	}
	return "lengths differ: " + itoa(len(g)) + " vs " + itoa(len(w)) + " lines"
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestRealDatabaseFields(t *testing.T) {
	db := loadReal(t)
	wwt := db.Domain("www.worldwidetelescope.org")
	if wwt == nil || wwt.Name != "worldwidetelescope.org" {
		t.Fatalf("cname www.worldwidetelescope.org: got %v", wwt)
	}
	if !wwt.CaseSensitivePaths() || wwt.HTTPS() {
		t.Errorf("worldwidetelescope.org: case-sensitive %v https %v, want true false", wwt.CaseSensitivePaths(), wwt.HTTPS())
	}
	if got := strings.Join(wwt.CNAMEs(), ","); got != "cdn.worldwidetelescope.org,content.worldwidetelescope.org,openwwt.com,www.worldwidetelescope.org" {
		t.Errorf("cnames %s", got)
	}
	r := wwt.Record("/community/authorthumbnail/c82902cd-234b-4c39-bd14-8a2a3849949d")
	if r == nil || r.ContentLength != 17135 || r.ContentType != "image/jpeg" || !r.Has("coreapp") ||
		strings.ToUpper(string(hexOf(r.ContentSHA256)))[:8] != "5D488C76" {
		t.Errorf("record: %+v", r)
	}
	if d := db.Domain("data1.wwtassets.org"); d == nil || !d.HTTPS() {
		t.Errorf("data1.wwtassets.org https")
	}
}

func hexOf(b []byte) string {
	const digits = "0123456789abcdef"
	var s []byte
	for _, c := range b {
		s = append(s, digits[c>>4], digits[c&15])
	}
	return string(s)
}

func TestLoadFilesAndFS(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(realDB, "binder.wwt-forum.org.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := LoadFiles(File{"db/binder.wwt-forum.org.yaml", data}, File{"README.md", []byte("x")})
	if err != nil || len(db.Domains) != 1 || len(db.Domains[0].Records) != 9 {
		t.Fatalf("LoadFiles: %v %+v", err, db)
	}
	// A zip of a repository holds the database below its root.
	fsys := fstest.MapFS{
		"repo/README.md": {Data: []byte("readme")},
		"repo/wwt_url_database/db/binder.wwt-forum.org.yaml": {Data: data},
		"repo/wwt_url_database/tests/x.yaml.txt":             {Data: []byte("no")},
	}
	db, err = Load(fsys)
	if err != nil || len(db.Domains) != 1 || db.Domains[0].Name != "binder.wwt-forum.org" {
		t.Fatalf("Load: %v %+v", err, db)
	}
}

// Every malformed file, document or field is reported with file, line and what
// is wrong; the rest still loads.
func TestLoadErrors(t *testing.T) {
	good := "---\n---\n_path: /\ncontent-type: text/html\n"
	tests := []struct {
		name, text string
		want       []string // substrings of the error, in order
		is         error
		records    int
		incomplete bool
	}{
		// yaml.v3 gives the line before the problem for parser errors.
		{"syntax", "---\nhttps: true\n---\n_path: /a\ncontent-type: [text\n---\n_path: /b\ncontent-type: text/html\n",
			[]string{"syntax.yaml:4: did not find expected ',' or ']'"}, ErrSyntax, 1, true},
		{"nopath", "---\n---\ncontent-type: text/html\n---\n_path: /b\ncontent-type: text/html\n",
			[]string{"nopath.yaml:3: _path: record has no _path"}, ErrMissingField, 1, true},
		{"notype", "---\n---\n_path: /a\n",
			[]string{"notype.yaml:3: content-type: record /a has no content-type"}, ErrMissingField, 0, true},
		{"badlength", "---\n---\n_path: /a\ncontent-length: lots\ncontent-sha256: ab\ncontent-type: text/html\n",
			[]string{"badlength.yaml:4: content-length: want a non-negative integer, got string"}, ErrField, 1, true},
		{"baddigest", "---\n---\n_path: /a\ncontent-length: 3\ncontent-sha256: xyz\ncontent-type: text/html\n",
			[]string{"baddigest.yaml:5: content-sha256: want 64 hex digits"}, ErrField, 1, true},
		{"nodigest", "---\n---\n_path: /a\ncontent-length: 3\ncontent-type: text/html\n",
			[]string{"nodigest.yaml:3: content-sha256: record /a has a content-length but no content-sha256"}, ErrMissingField, 1, true},
		{"badmeta", "---\nhttps: maybe\ncnames: www.x\n---\n_path: /a\ncontent-type: text/html\n",
			[]string{"badmeta.yaml:2: https: want a boolean, got string", "badmeta.yaml:3: cnames: want a list"}, ErrField, 1, false},
		{"notmap", "---\n---\n- a\n- b\n" + good[4:],
			[]string{"notmap.yaml:2: record document is not a mapping"}, ErrField, 1, true},
		{"emptyrecord", "---\n---\n---\n_path: /\ncontent-type: text/html\n",
			[]string{"emptyrecord.yaml:2: record document is not a mapping"}, ErrField, 1, true},
		{"dup", "---\n---\n_path: /\ncontent-type: text/html\n---\n_path: /\ncontent-type: text/plain\n",
			[]string{"dup.yaml:6: _path: / is also the path of the record at line 3"}, ErrDuplicatePath, 2, false},
		{"categories", "---\n---\n_path: /\ncategories: frontend\ncontent-type: text/html\n",
			[]string{"categories.yaml:4: categories: want a list of strings, got string"}, ErrField, 1, true},
		{"alias bomb", "---\n---\n_path: /\ncontent-type: text/html\na: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n",
			[]string{"alias bomb.yaml:"}, ErrTooLarge, 0, true},
	}
	for _, tt := range tests {
		db, err := LoadFiles(File{tt.name + ".yaml", []byte(tt.text)}, File{"ok.example.yaml", []byte(good)})
		if err == nil {
			t.Errorf("%s: no error", tt.name)
			continue
		}
		msg := err.Error()
		var list ErrorList
		if errors.As(err, &list) {
			var all []string
			for _, e := range list {
				all = append(all, e.Error())
			}
			msg = strings.Join(all, "\n")
		}
		at := 0
		for _, w := range tt.want {
			i := strings.Index(msg[at:], w)
			if i < 0 {
				t.Errorf("%s: error %q does not contain %q", tt.name, msg, w)
				break
			}
			at += i + len(w)
		}
		if !errors.Is(err, tt.is) {
			t.Errorf("%s: error %q is not %v", tt.name, msg, tt.is)
		}
		if len(db.Domains) != 2 || db.Domain("ok.example") == nil || len(db.Domain("ok.example").Records) != 1 {
			t.Errorf("%s: the good file did not load", tt.name)
			continue
		}
		d := db.Domain(tt.name)
		if d == nil {
			t.Errorf("%s: domain missing", tt.name)
			continue
		}
		if len(d.Records) != tt.records || d.Incomplete != tt.incomplete {
			t.Errorf("%s: %d records, incomplete %v; want %d, %v", tt.name, len(d.Records), d.Incomplete, tt.records, tt.incomplete)
		}
	}
}

func TestLoaderPausesBetweenDocumentsAndStopsWhenAsked(t *testing.T) {
	domain := "---\nwebsite: https://example.org/\n---\n_path: /a\ncontent-type: text/html\n---\n_path: /b\ncontent-type: text/html\n---\n_path: /c\ncontent-type: text/html\n"
	pauses := 0
	db, err := (&Loader{Pause: func() error { pauses++; return nil }}).LoadFiles(File{Name: "example.org.yaml", Data: []byte(domain)})
	if err != nil || len(db.Domains) != 1 || len(db.Domains[0].Records) != 3 {
		t.Fatalf("load: %v, %+v", err, db)
	}
	if pauses != 4 {
		t.Errorf("paused %d times, want 4 (once per document)", pauses)
	}
	stop := errors.New("cancelled")
	pauses = 0
	db, err = (&Loader{Pause: func() error {
		if pauses++; pauses == 3 {
			return stop
		}
		return nil
	}}).LoadFiles(File{Name: "example.org.yaml", Data: []byte(domain)}, File{Name: "other.org.yaml", Data: []byte(domain)})
	if err != stop || db != nil || pauses != 3 {
		t.Errorf("stopped load: db %v, err %v, %d pauses", db, err, pauses)
	}
}
