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
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on (loopback only by default)")
	bigSize := flag.Int64("big", 24<<20, "size in bytes of the /big response")
	latency := flag.Duration("latency", 0, "delay before each response, as a distant server's (e.g. 40ms)")
	video := flag.String("video", "", "a video `file` (WebM) served at /media/video.webm, with Range, and shown on /video")
	flag.Parse()

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatalf("demosite: %v", err)
	}
	site := newSite(*bigSize)
	if *video != "" {
		if err := site.addVideo(*video); err != nil {
			log.Fatalf("demosite: %v", err)
		}
	}
	fmt.Fprintf(os.Stdout, "http://%s/\n", ln.Addr())
	var h http.Handler = site
	if *latency > 0 {
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(*latency)
			site.ServeHTTP(w, r)
		})
	}
	if err := http.Serve(ln, h); err != nil {
		log.Fatalf("demosite: %v", err)
	}
}
