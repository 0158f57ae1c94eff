package main

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
)

// initLine is a line of GODEBUG=inittrace=1: a package's initialisation and what it
// allocated.
var initLine = regexp.MustCompile(`(?m)^init (\S+) @.*, (\d+) bytes, (\d+) allocs$`)

// The packages the extension's core links that used to compile regular expressions
// when a program starts, and how many allocations each may make at init. In the
// service worker, a pattern compiled at init made V8 compile regexp's compiler on every
// cold start (BENCHMARKS.md, "Core cold start in Chromium"); they compile them on first
// use. Measured with Go 1.26: yaml.v3 allocates 41 times at init (276 as published,
// with its two patterns), shared/cdx 14, shared/urldb 16; compiling the smallest of
// their patterns allocates 26 times, the others 78 to 157. Each limit is under what the
// package would allocate with one more pattern compiled at init.
var initAllocLimits = map[string]int{
	"gopkg.in/yaml%2ev3":                      60,
	"github.com/webkeep/webkeep/shared/cdx":   38,
	"github.com/webkeep/webkeep/shared/urldb": 40,
}

// TestNoPatternCompiledAtInit runs this test binary again, running no test, with
// Go's init trace on, and checks what each package above allocated at init.
func TestNoPatternCompiledAtInit(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	allocs := map[string]int{}
	for _, m := range initLine.FindAllSubmatch(out, -1) {
		allocs[string(m[1])], _ = strconv.Atoi(string(m[3]))
	}
	for pkg, limit := range initAllocLimits {
		n, ok := allocs[pkg]
		switch {
		case !ok:
			t.Errorf("%s: no init in the trace:\n%s", pkg, out)
		case n > limit:
			t.Errorf("%s allocates %d times at init, over %d: is a regular expression compiled there again?", pkg, n, limit)
		}
	}
}
