package urldb

import (
	"reflect"
	"testing"
)

// TestCompactKeepsRecords loads the same domain as laid out by the reader and as
// it was before compacting, and checks every record reads the same, and that
// records sharing a category list or a digest block do not change each other.
func TestCompactKeepsRecords(t *testing.T) {
	const text = `---
https: true
---
_path: /a
categories:
- coreapp
- docs
content-type: image/png
content-length: 3
content-sha256: ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad
---
_path: /b?x=1
categories:
- coreapp
- docs
content-type: image/png
content-length: 0
content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
---
_path: /c
content-type: text/html
flavour: kept
`
	p := &domainParser{file: "example.com.yaml", d: &Domain{Name: "example.com"}}
	p.parse([]byte(text))
	var before []Record
	for _, r := range p.d.Records {
		before = append(before, *r)
	}
	p.d.compact()
	if len(p.d.Records) != len(before) {
		t.Fatalf("compact left %d records of %d", len(p.d.Records), len(before))
	}
	for i, r := range p.d.Records {
		if !reflect.DeepEqual(*r, before[i]) {
			t.Errorf("record %d: compacted %+v, read %+v", i, *r, before[i])
		}
	}
	a, b := p.d.Records[0], p.d.Records[1]
	if &a.Categories[0] != &b.Categories[0] {
		t.Errorf("equal category lists are not shared")
	}
	a.AddCategory("alpha")
	if !reflect.DeepEqual(b.Categories, []string{"coreapp", "docs"}) {
		t.Errorf("adding a category to one record changed another's: %v", b.Categories)
	}
	a.ContentSHA256 = append(a.ContentSHA256, 0xff)
	if !reflect.DeepEqual(b.ContentSHA256, before[1].ContentSHA256) {
		t.Errorf("growing one record's digest changed the next one's: %x", b.ContentSHA256)
	}
}
