// Command opensslts serves a real RFC 3161 timestamp authority (OpenSSL's `openssl
// ts`) on 127.0.0.1 for tests written in JavaScript (the Worker's, in workerd). It
// prints one JSON line, {"url", "root", "chain", "dir"}, and serves until its
// standard input closes or it is stopped.
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
	dir := flag.String("dir", "", "where to make the keys and certificates (default: a new temporary directory)")
	flag.Parse()
	if *dir == "" {
		d, err := os.MkdirTemp("", "opensslts-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "opensslts:", err)
			os.Exit(1)
		}
		defer os.RemoveAll(d)
		*dir = d
	}
	s, err := opensslts.Start(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "opensslts:", err)
		os.Exit(1)
	}
	defer s.Close()
	json.NewEncoder(os.Stdout).Encode(map[string]string{
		"url": s.URL, "dir": *dir, "root": filepath.Join(*dir, "ca.pem"), "chain": filepath.Join(*dir, "chain.pem"),
	})
	done := make(chan struct{}, 2)
	go func() { io.Copy(io.Discard, os.Stdin); done <- struct{}{} }()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, os.Interrupt)
	go func() { <-sig; done <- struct{}{} }()
	<-done
}
