// Command webkeep is the native command-line face of the webkeep core: it reads,
// writes, converts and verifies WARC files, computes CDX keys and indexes, keeps a
// wwturldb-compatible URL database, applies data.txt and URL rules, and searches
// the text of archived pages.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
)

// command is one subcommand of webkeep: its one-line summary and its entry point.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

var commands = map[string]command{
	"warc":    {"read, write, verify and convert WARC 0.9/1.0/1.1 files", runWARC},
	"cdx":     {"compute CDX keys (pywb non-GET encoding) and CDXJ indexes", runCDX},
	"urldb":   {"keep and check a wwturldb URL database", runURLDB},
	"datatxt": {"read a site's /data.txt or /robots.txt", runDatatxt},
	"rules":   {"match URLs against Snap!-style domain and website rules", runRules},
	"wacz":    {"make, sign and verify WACZ files for ReplayWeb.page", runWACZ},
	"search":  {"find pages in WARC and WACZ files by their words", runSearch},
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "webkeep: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	return cmd.run(args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: webkeep <command> [arguments]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(w, "  %-8s %s\n", name, commands[name].summary)
	}
	fmt.Fprintln(w, "\nRun 'webkeep <command> -h' for a command's arguments.")
}

// subcommands maps the names of a command's subcommands to their entry points.
type subcommands map[string]func(args []string, stdout, stderr io.Writer) int

// dispatch runs the subcommand that args name: usage to stdout for -h, and to stderr
// with exit code 2 when the subcommand is missing or unknown.
func dispatch(command string, usage func(io.Writer), subs subcommands, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "-h", "--help", "help":
		usage(stdout)
		return 0
	}
	if run, ok := subs[args[0]]; ok {
		return run(args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "webkeep %s: unknown subcommand %q\n\n", command, args[0])
	usage(stderr)
	return 2
}
