package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/webkeep/webkeep/shared/urlrules"
)

func rulesUsage(w io.Writer) {
	fmt.Fprintln(w, `usage: webkeep rules <command> [arguments]

commands:
  match    print the domain, website, options and canonical URL of URLs
  check    compile a rules file and report its errors

Run 'webkeep rules <command> -h' for a command's arguments.`)
}

// runRules dispatches the rules subcommands.
func runRules(args []string, stdout, stderr io.Writer) int {
	return dispatch("rules", rulesUsage, subcommands{"match": runRulesMatch, "check": runRulesCheck}, args, stdout, stderr)
}

// rulesFlags parses the flags both subcommands share; ok false means return code.
func rulesFlags(name, usage string, args []string, stderr io.Writer) (fs *flag.FlagSet, file string, code int, ok bool) {
	fs = flag.NewFlagSet("webkeep rules "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	rules := fs.String("rules", "", "the Domain Rules and Website Rules script `FILE` (required)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return fs, "", 0, false
		}
		return fs, "", 2, false
	}
	if *rules == "" {
		fs.Usage()
		return fs, "", 2, false
	}
	return fs, *rules, 0, true
}

// compileRulesFile reads and compiles a rules file, printing errors one per line.
func compileRulesFile(cmd, file string, stderr io.Writer) *urlrules.Rules {
	src, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintf(stderr, "webkeep rules %s: %v\n", cmd, err)
		return nil
	}
	rules, err := urlrules.Compile(file, src)
	if err != nil {
		var list urlrules.ErrorList
		if errors.As(err, &list) {
			for _, e := range list {
				fmt.Fprintln(stderr, e)
			}
		} else {
			fmt.Fprintln(stderr, err)
		}
		return nil
	}
	return rules
}

func runRulesMatch(args []string, stdout, stderr io.Writer) int {
	fs, file, code, ok := rulesFlags("match", `usage: webkeep rules match --rules FILE URL...

Prints one JSON line per URL: {"url", "domain", "website", "options", "canonical"}.`, args, stderr)
	if !ok {
		return code
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	rules := compileRulesFile("match", file, stderr)
	if rules == nil {
		return 1
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	status := 0
	for _, u := range fs.Args() {
		m, err := rules.Match(u)
		if err != nil {
			fmt.Fprintf(stderr, "webkeep rules match: %v\n", err)
			status = 1
			continue
		}
		if err := enc.Encode(m); err != nil {
			fmt.Fprintf(stderr, "webkeep rules match: %v\n", err)
			return 1
		}
	}
	return status
}

func runRulesCheck(args []string, stdout, stderr io.Writer) int {
	fs, file, code, ok := rulesFlags("check", `usage: webkeep rules check --rules FILE

Compiles FILE; prints each error as FILE:LINE:COLUMN: rule R: variable V: error, and exits 1.`, args, stderr)
	if !ok {
		return code
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return 2
	}
	rules := compileRulesFile("check", file, stderr)
	if rules == nil {
		return 1
	}
	fmt.Fprintf(stdout, "%s: ok, %d domain rules, %d website rules\n", file, len(rules.Domain), len(rules.Website))
	return 0
}
