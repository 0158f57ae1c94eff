package urldb

import (
	"bytes"
	"errors"
	"os"
	"testing"
)

// A domain file full of awkward values is written back exactly as wwturldb
// (PyYAML 6.0.3) writes it; see testdata/pyyaml/README.md.
func TestEncodeMatchesPyYAML(t *testing.T) {
	in, err := os.ReadFile("testdata/pyyaml/input.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/pyyaml/expected.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d, err := ReadDomain("example.com.yaml", bytes.NewReader(in))
	if !errors.Is(err, ErrDuplicatePath) { // the input repeats /static on purpose
		t.Fatalf("ReadDomain: %v", err)
	}
	got := d.Encode()
	if !bytes.Equal(got, want) {
		t.Errorf("Encode differs from PyYAML:\n%s", firstDiff(got, want))
	}
	// What PyYAML wrote reads back to the same file.
	d2, err := ReadDomain("example.com.yaml", bytes.NewReader(want))
	if err != nil {
		t.Fatalf("ReadDomain(expected): %v", err)
	}
	if again := d2.Encode(); !bytes.Equal(again, want) {
		t.Errorf("expected.yaml does not round-trip:\n%s", firstDiff(again, want))
	}
}
