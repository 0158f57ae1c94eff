package urldb

import (
	"strings"
	"testing"
)

// A domain file's name becomes the domain's name, and the name it is written back
// under: one that names no file of a folder is a problem of that file, not loaded.
func TestLoadFilesRefusesNamesThatNameNoDomain(t *testing.T) {
	const domain = "---\nhttps: true\n---\n_path: /\ncontent-type: text/html\n"
	for _, tc := range []struct {
		name    string
		problem string // "" when the file loads
	}{
		{"example.org.yaml", ""},
		{"../../example.org.yaml", ""}, // the base name is the domain
		{`..\..\example.org.yaml`, ""},
		{"..yaml", "names no domain"},
		{".yaml", "names no domain"},
		{"example.\x01\x00g.yaml", "control character"},
		{"example\n.org.yaml", "control character"},
		{"ex\xffample.org.yaml", "not UTF-8"},
	} {
		db, err := LoadFiles(File{Name: tc.name, Data: []byte(domain)})
		switch {
		case tc.problem == "" && (err != nil || len(db.Domains) != 1 || db.Domains[0].Name != "example.org"):
			t.Errorf("%q: %v, domains %v", tc.name, err, db.Domains)
		case tc.problem != "" && (err == nil || !strings.Contains(err.Error(), tc.problem) || len(db.Domains) != 0):
			t.Errorf("%q: %v, want a problem saying %q and no domain", tc.name, err, tc.problem)
		}
	}
}
