package main

import (
	"fmt"
	"io"
)

// runRules is replaced by the rules subcommands; until then it says so.
func runRules(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "webkeep rules: not available in this build")
	return 2
}
