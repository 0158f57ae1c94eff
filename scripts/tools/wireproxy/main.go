// Command wireproxy is a reverse proxy for tests that logs every exchange it carries as
// it was on the wire: method, URL, the request body's bytes, the status, the response
// headers as sent (Set-Cookie included) and the response body's bytes as written to the
// client, with whether the client took all of it. The end-to-end tests put it between
// the browser and a real web application, then compare its log with the archive.
//
// It listens on 127.0.0.1, prints its base URL on the first line of standard output,
// and appends one JSON object a line to the -log file as each exchange ends.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on (loopback only by default)")
	target := flag.String("target", "", "base URL of the application to forward to (required)")
	logPath := flag.String("log", "", "file to append the exchanges to, one JSON object a line (required)")
	flag.Parse()
	if *target == "" || *logPath == "" {
		flag.Usage()
		os.Exit(2)
	}
	to, err := url.Parse(*target)
	if err != nil {
		log.Fatalf("wireproxy: -target: %v", err)
	}
	f, err := os.OpenFile(*logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		log.Fatalf("wireproxy: %v", err)
	}
	defer f.Close()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatalf("wireproxy: %v", err)
	}
	rp := newProxy(to, log.New(os.Stderr, "wireproxy: ", 0))
	fmt.Fprintf(os.Stdout, "http://%s/\n", ln.Addr())
	if err := http.Serve(ln, newLogger(rp, f)); err != nil {
		log.Fatalf("wireproxy: %v", err)
	}
}

// newProxy returns a reverse proxy to the application at to that passes requests and
// answers on as they are, writing each piece of a body to the client as it comes.
func newProxy(to *url.URL, errorLog *log.Logger) *httputil.ReverseProxy {
	rp := httputil.NewSingleHostReverseProxy(to)
	// The browser's Accept-Encoding goes to the application as sent, and its answer
	// comes back as it was encoded.
	rp.Transport = &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 32}
	rp.FlushInterval = -1
	rp.ErrorLog = errorLog
	rp.ErrorHandler = func(w http.ResponseWriter, r *http.Request, err error) {
		if r.Context().Err() != nil {
			return // the client went away first: it is sent nothing, and logged so
		}
		errorLog.Printf("%s %s: %v", r.Method, r.RequestURI, err)
		w.WriteHeader(http.StatusBadGateway)
	}
	return rp
}
