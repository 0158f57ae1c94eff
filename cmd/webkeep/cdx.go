package main

import (
	"fmt"
	"io"
)

// runCDX is replaced by the cdx subcommands; until then it says so.
func runCDX(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "webkeep cdx: not available in this build")
	return 2
}
