package main

import (
	"fmt"
	"io"
)

// runURLDB is replaced by the urldb subcommands; until then it says so.
func runURLDB(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "webkeep urldb: not available in this build")
	return 2
}
