// Command demosite serves the webkeep demo site on 127.0.0.1: pages, forms and API calls
// that exercise what real sites do (form, multipart, JSON, text and binary POSTs, PUT,
// DELETE, redirects, a 404, a large response, /data.txt and /robots.txt). It keeps a log
// of every request it received and of every response body it sent, served at /__log, so
// tests can compare an archive with what really crossed the wire.
//
// It prints its base URL on the first line of standard output.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on (loopback only by default)")
	bigSize := flag.Int64("big", 24<<20, "size in bytes of the /big response")
	flag.Parse()

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatalf("demosite: %v", err)
	}
	site := newSite(*bigSize)
	fmt.Fprintf(os.Stdout, "http://%s/\n", ln.Addr())
	if err := http.Serve(ln, site); err != nil {
		log.Fatalf("demosite: %v", err)
	}
}
