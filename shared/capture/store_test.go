package capture

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func testStore(t *testing.T, s Store) {
	t.Helper()
	keys := []string{"s/a/warc/0000000001", "s/a/warc/0000000000", "s/b/info", "../escape", "/abs", "state"}
	for i, k := range keys {
		if err := s.Put(k, []byte{byte(i)}); err != nil {
			t.Fatalf("put %q: %v", k, err)
		}
	}
	for i, k := range keys {
		v, err := s.Get(k)
		if err != nil || len(v) != 1 || v[0] != byte(i) {
			t.Errorf("get %q = %v, %v", k, v, err)
		}
	}
	if _, err := s.Get("missing"); !errors.Is(err, ErrNotFound) {
		t.Errorf("get missing: %v, want ErrNotFound", err)
	}
	got, _ := s.Keys("s/a/")
	if want := []string{"s/a/warc/0000000000", "s/a/warc/0000000001"}; !reflect.DeepEqual(got, want) {
		t.Errorf("keys s/a/ = %v, want %v", got, want)
	}
	if err := s.Delete("s/"); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Keys("s/"); len(got) != 0 {
		t.Errorf("after delete: %v", got)
	}
	if _, err := s.Get("state"); err != nil {
		t.Errorf("delete of s/ removed state: %v", err)
	}
}

func TestMemStore(t *testing.T) { testStore(t, NewMemStore()) }

func TestDirStoreKeepsKeysInsideItsDirectory(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "store")
	s, err := NewDirStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	testStore(t, s)
	entries, _ := os.ReadDir(parent)
	if len(entries) != 1 || entries[0].Name() != "store" {
		t.Errorf("a key escaped the store's directory: %v", entries)
	}
}
