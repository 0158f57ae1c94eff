package main

import (
	"fmt"
	"io"
)

// runWARC is replaced by the warc subcommands; until then it says so.
func runWARC(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "webkeep warc: not available in this build")
	return 2
}
