// Command opensslts serves a real RFC 3161 timestamp authority (OpenSSL's `openssl
// ts`, package opensslts) on 127.0.0.1 for tests written in JavaScript (the
// Worker's). It prints one JSON line to its standard output,
//
//	{"url":"http://127.0.0.1:PORT/","root":"DIR/ca.pem","chain":"DIR/chain.pem","dir":"DIR"}
//
// (root: the root CA's certificate, PEM; chain: the authority's certificate then
// the root's; dir: where ca.key is, to issue more certificates with), and serves
// until its standard input closes (spawn it with a pipe there) or it gets SIGTERM
// or SIGINT.
//
// Usage:
//
//	go run ./internal/opensslts/cmd/opensslts [-dir DIR] [-addr 127.0.0.1:0] [-mode grant|reject|garbage|fail|replay] [-stdin=false]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/webkeep/webkeep/internal/opensslts"
)

func main() {
	os.Exit(run())
}

func run() int {
	dir := flag.String("dir", "", "where to make the keys and certificates (default: a new temporary directory, removed at exit)")
	addr := flag.String("addr", "127.0.0.1:0", "the address to serve on")
	modeName := flag.String("mode", "grant", "how to answer: grant, reject (OpenSSL's rejection), garbage, fail (500) or replay (the first answer, again)")
	stdin := flag.Bool("stdin", true, "stop when standard input closes")
	flag.Parse()
	mode, err := opensslts.ParseMode(*modeName)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if *dir == "" {
		d, err := os.MkdirTemp("", "opensslts-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "opensslts:", err)
			return 1
		}
		defer os.RemoveAll(d)
		*dir = d
	} else if err := os.MkdirAll(*dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "opensslts:", err)
		return 1
	}
	s, err := opensslts.StartAt(*dir, *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer s.Close()
	s.SetMode(mode)
	line, _ := json.Marshal(struct {
		URL   string `json:"url"`
		Root  string `json:"root"`
		Chain string `json:"chain"`
		Dir   string `json:"dir"`
	}{s.URL, filepath.Join(s.Dir, "ca.pem"), filepath.Join(s.Dir, "chain.pem"), s.Dir})
	if _, err := fmt.Printf("%s\n", line); err != nil {
		return 1
	}
	done := make(chan struct{}, 2)
	if *stdin {
		go func() { io.Copy(io.Discard, os.Stdin); done <- struct{}{} }()
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, os.Interrupt)
	go func() { <-sig; done <- struct{}{} }()
	<-done
	return 0
}
