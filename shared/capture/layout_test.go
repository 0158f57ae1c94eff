package capture

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxFileLines is the most lines a Go file of capture or the recorder may have: a
// file longer than that holds more than one concern (docs/architecture.md).
const maxFileLines = 600

func TestFileLengths(t *testing.T) {
	for _, dir := range []string{".", "../recorder"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("listing %s: %v (%d files)", dir, err, len(files))
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if n := bytes.Count(b, []byte("\n")); n > maxFileLines {
				t.Errorf("%s has %d lines, over %d: split it by concern", f, n, maxFileLines)
			}
		}
	}
}
