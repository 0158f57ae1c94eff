package main

import (
	"fmt"
	"io"
)

// runDatatxt is replaced by the datatxt subcommands; until then it says so.
func runDatatxt(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "webkeep datatxt: not available in this build")
	return 2
}
