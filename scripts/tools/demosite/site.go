package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"hash"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// exchange is one request the site received and what it answered.
type exchange struct {
	Method       string      `json:"method"`
	URL          string      `json:"url"` // path and query as received
	Header       http.Header `json:"header"`
	BodyBase64   string      `json:"body_base64"`
	Status       int         `json:"status"`
	ResponseSize int64       `json:"response_size"`
	ResponseHash string      `json:"response_sha256"` // hex SHA-256 of the response body sent
	Time         time.Time   `json:"time"`
}

// site is the demo web site and its log.
type site struct {
	mux     *http.ServeMux
	bigSize int64
	mu      sync.Mutex
	log     []exchange
}

func newSite(bigSize int64) *site {
	s := &site{mux: http.NewServeMux(), bigSize: bigSize}
	s.mux.HandleFunc("GET /{$}", s.page(indexHTML))
	s.mux.HandleFunc("GET /forms", s.page(formsHTML))
	s.mux.HandleFunc("GET /gallery", s.page(galleryHTML))
	s.mux.HandleFunc("GET /static/style.css", s.static("text/css; charset=utf-8", styleCSS))
	s.mux.HandleFunc("GET /static/app.js", s.static("text/javascript; charset=utf-8", appJS))
	s.mux.HandleFunc("GET /static/worker.js", s.static("text/javascript; charset=utf-8", workerJS))
	s.mux.HandleFunc("POST /api/worker", s.echo)
	s.mux.HandleFunc("GET /static/logo.svg", s.static("image/svg+xml", logoSVG))
	s.mux.HandleFunc("GET /static/pixel.png", s.static("image/png", string(pixelPNG)))
	s.mux.HandleFunc("GET /static/noise.bin", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(noise(1, 64<<10))
	})
	s.mux.HandleFunc("GET /data.txt", s.static("text/plain; charset=utf-8", dataTXT))
	s.mux.HandleFunc("GET /robots.txt", s.static("text/plain; charset=utf-8", robotsTXT))
	s.mux.HandleFunc("POST /submit/form", s.echo)
	s.mux.HandleFunc("POST /submit/upload", s.echo)
	s.mux.HandleFunc("POST /api/json", s.echo)
	s.mux.HandleFunc("POST /api/text", s.echo)
	s.mux.HandleFunc("POST /api/binary", s.echo)
	s.mux.HandleFunc("POST /api/search", s.echo)
	s.mux.HandleFunc("PUT /api/item/{id}", s.echo)
	s.mux.HandleFunc("DELETE /api/item/{id}", s.echo)
	s.mux.HandleFunc("GET /redirect/start", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/redirect/middle", http.StatusMovedPermanently)
	})
	s.mux.HandleFunc("GET /redirect/middle", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/redirect/end", http.StatusFound)
	})
	s.mux.HandleFunc("GET /redirect/end", s.page(redirectEndHTML))
	s.mux.HandleFunc("GET /big", s.big)
	s.mux.HandleFunc("GET /login", s.page(loginHTML))
	s.mux.HandleFunc("POST /login", s.login)
	s.mux.HandleFunc("GET /account", s.account)
	s.mux.HandleFunc("GET /hang", s.hang)
	s.mux.HandleFunc("GET /slow.png", s.slow)
	s.addFeed()
	return s
}

// addVideo serves the video file at /media/video.webm as servers serve media: with
// Range (206 Partial Content), and a page that shows it at /video.
func (s *site) addVideo(name string) error {
	data, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	modified := time.Now()
	s.mux.HandleFunc("GET /media/video.webm", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "video/webm")
		http.ServeContent(w, r, "video.webm", modified, bytes.NewReader(data))
	})
	s.mux.HandleFunc("GET /video", s.page(videoHTML))
	s.mux.HandleFunc("GET /watch", s.page(watchHTML))
	return nil
}

// login answers a sign-in form as web applications do: two cookies, then a page.
func (s *site) login(w http.ResponseWriter, r *http.Request) {
	user := r.FormValue("user")
	if user == "" || r.FormValue("secret") == "" {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusForbidden)
		io.WriteString(w, loginFailedHTML)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: "demo_session", Value: "s-" + strconv.Itoa(len(user)) + "-42", Path: "/", HttpOnly: true})
	http.SetCookie(w, &http.Cookie{Name: "demo_user", Value: url.QueryEscape(user), Path: "/"})
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	io.WriteString(w, loggedInHTML)
}

// account shows whether the browser sent the session cookie.
func (s *site) account(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if c, err := r.Cookie("demo_session"); err == nil {
		io.WriteString(w, strings.Replace(accountHTML, "{session}", c.Value, 1))
		return
	}
	io.WriteString(w, strings.Replace(accountHTML, "{session}", "none", 1))
}

// hang sends a line five times a second until the client leaves (at most ten
// minutes): a response that never ends, and never stops arriving.
func (s *site) hang(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	end := time.After(10 * time.Minute)
	for {
		io.WriteString(w, strings.Repeat("still coming...\n", 64))
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		select {
		case <-r.Context().Done():
			return
		case <-end:
			return
		case <-tick.C:
		}
	}
}

// slow sends the 1x1 PNG's head and first bytes at once, and the rest after the delay
// its ms parameter asks for (at most 10 minutes), or nothing more if the client leaves
// first: an image still on its way when its page is left.
func (s *site) slow(w http.ResponseWriter, r *http.Request) {
	ms, _ := strconv.Atoi(r.URL.Query().Get("ms"))
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Content-Length", strconv.Itoa(len(pixelPNG)))
	w.Header().Set("Cache-Control", "no-store")
	w.Write(pixelPNG[:8])
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	select {
	case <-time.After(time.Duration(min(max(ms, 0), 600000)) * time.Millisecond):
		w.Write(pixelPNG[8:])
	case <-r.Context().Done():
	}
}

// ServeHTTP logs the request and the response body, then serves it. /__log (the log
// itself) and /__urldb.zip (the demo URL database) are for the tools and not logged.
func (s *site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/__urldb.zip" {
		serveDatabase(w, r)
		return
	}
	if r.URL.Path == "/__log" {
		s.mu.Lock()
		defer s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(s.log)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		http.Error(w, "reading body: "+err.Error(), http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	// Readable from any origin, as public datasets often are: the extension's URL
	// checks can then read it without a host permission.
	w.Header().Set("Access-Control-Allow-Origin", "*")
	rec := &recorder{ResponseWriter: w, hash: sha256.New(), status: http.StatusOK}
	if _, pattern := s.mux.Handler(r); pattern == "" {
		rec.Header().Set("Content-Type", "text/html; charset=utf-8")
		rec.WriteHeader(http.StatusNotFound)
		io.WriteString(rec, notFoundHTML)
	} else {
		s.mux.ServeHTTP(rec, r)
	}
	s.mu.Lock()
	s.log = append(s.log, exchange{
		Method:       r.Method,
		URL:          r.URL.RequestURI(),
		Header:       r.Header,
		BodyBase64:   base64.StdEncoding.EncodeToString(body),
		Status:       rec.status,
		ResponseSize: rec.size,
		ResponseHash: hex.EncodeToString(rec.hash.Sum(nil)),
		Time:         time.Now().UTC(),
	})
	s.mu.Unlock()
}

// recorder passes a response through and hashes its body.
type recorder struct {
	http.ResponseWriter
	hash   hash.Hash
	status int
	size   int64
}

func (r *recorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

// Flush passes a flush on, for responses sent a piece at a time.
func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (r *recorder) Write(p []byte) (int, error) {
	r.hash.Write(p)
	r.size += int64(len(p))
	return r.ResponseWriter.Write(p)
}

func (s *site) page(html string) http.HandlerFunc {
	return s.static("text/html; charset=utf-8", html)
}

func (s *site) static(contentType, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Header().Set("Cache-Control", "no-store")
		io.WriteString(w, body)
	}
}

// echo answers a request with a JSON summary of what was received.
func (s *site) echo(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	sum := sha256.Sum256(body)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(map[string]any{
		"method":       r.Method,
		"path":         r.URL.Path,
		"content_type": r.Header.Get("Content-Type"),
		"length":       len(body),
		"sha256":       hex.EncodeToString(sum[:]),
	})
}

// big streams bigSize bytes: half text, half pseudo-random, generated on the fly.
func (s *site) big(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.FormatInt(s.bigSize, 10))
	w.Header().Set("Cache-Control", "no-store")
	const chunk = 1 << 20
	line := []byte(strings.Repeat("webkeep demo large response line of text. ", 24) + "\n")
	for i, left := 0, s.bigSize; left > 0; i++ {
		var p []byte
		if i%2 == 0 {
			p = bytes.Repeat(line, chunk/len(line)+1)[:chunk]
		} else {
			p = noise(uint64(i), chunk)
		}
		if int64(len(p)) > left {
			p = p[:left]
		}
		if _, err := w.Write(p); err != nil {
			return
		}
		left -= int64(len(p))
	}
}

// noise returns n deterministic pseudo-random bytes.
func noise(seed uint64, n int) []byte {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(rng.Uint32())
	}
	return p
}
