package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"fmt"
	"net/http"
	"strings"
)

// demoDatabase is a URL database for the demo site at host (host:port), as wwturldb
// writes one: some records the site satisfies, and some it does not (a changed file, a
// wrong content type, a page that is gone), so a check shows both kinds of verdict.
func demoDatabase(host string) []byte {
	sum := func(s string) string { return fmt.Sprintf("%x", sha256.Sum256([]byte(s))) }
	var y strings.Builder
	y.WriteString("--- {}\n")
	record := func(lines ...string) {
		y.WriteString("---\n")
		for _, l := range lines {
			y.WriteString(l + "\n")
		}
	}
	// In path order, as wwturldb sorts them.
	record("_path: /", "content-type: text/html")
	record("_path: /data.txt", "content-type: text/plain")
	record("_path: /gallery", "content-type: text/html")
	record("_path: /missing", "categories:", "- gone", "content-type: text/html")
	record("_path: /redirect/start", "content-type: X-301-Redirect")
	// A changed file: the recorded digest is of an older version.
	record("_path: /static/app.js", fmt.Sprintf("content-length: %d", len(appJS)),
		"content-sha256: "+sum(appJS + "// the old version\n")[:64], "content-type: text/javascript")
	// A wrong content type.
	record("_path: /static/logo.svg", "content-type: image/png")
	record("_path: /static/style.css", fmt.Sprintf("content-length: %d", len(styleCSS)),
		"content-sha256: "+sum(styleCSS), "content-type: text/css")
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	f, _ := zw.Create("db/" + host + ".yaml")
	f.Write([]byte(y.String()))
	zw.Close()
	return buf.Bytes()
}

// serveDatabase answers /__urldb.zip with the demo database for the address the
// request came to.
func serveDatabase(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Content-Disposition", `attachment; filename="demo-url-database.zip"`)
	w.Write(demoDatabase(r.Host))
}
