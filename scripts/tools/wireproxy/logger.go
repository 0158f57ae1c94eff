package main

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Exchange is one request and its answer as they crossed the proxy: a line of the log.
type Exchange struct {
	Seq    int     `json:"seq"`
	Start  float64 `json:"start"` // Unix time in milliseconds when the request arrived
	End    float64 `json:"end"`   // when the answer was written, or given up
	Method string  `json:"method"`
	URL    string  `json:"url"` // the request target: path and query

	RequestSize   int64  `json:"request_size"`
	RequestSHA256 string `json:"request_sha256"`

	// Status is 0 when the proxy wrote no answer (the client went before it came).
	Status  int         `json:"status"`
	Headers [][2]string `json:"headers"` // the response's header fields as sent

	// The response body as written to the client, and decoded when it was sent with a
	// Content-Encoding of gzip or deflate (otherwise the same bytes).
	ResponseSize  int64  `json:"response_size"`
	ResponseSHA   string `json:"response_sha256"`
	DecodedSize   int64  `json:"decoded_size"`
	DecodedSHA256 string `json:"decoded_sha256"`

	// Complete says the client took the whole answer; Error says what went wrong if not.
	Complete bool   `json:"complete"`
	Error    string `json:"error,omitempty"`
}

// logger wraps a handler and writes an Exchange for every request it serves.
type logger struct {
	next http.Handler
	mu   sync.Mutex
	seq  int
	out  io.Writer
}

func newLogger(next http.Handler, out io.Writer) *logger {
	return &logger{next: next, out: out}
}

func millis(t time.Time) float64 { return float64(t.UnixNano()) / 1e6 }

func (l *logger) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ex := &Exchange{Start: millis(time.Now()), Method: r.Method, URL: r.RequestURI}
	reqHash := sha256.New()
	body := &countingReader{r: r.Body, w: reqHash}
	r.Body = body
	rec := &recordingWriter{ResponseWriter: w}
	defer func() {
		p := recover()
		ex.End = millis(time.Now())
		ex.RequestSize, ex.RequestSHA256 = body.n, hex.EncodeToString(reqHash.Sum(nil))
		ex.Status, ex.Headers = rec.status, rec.headers
		ex.ResponseSize = int64(rec.body.Len())
		ex.ResponseSHA = sum(rec.body.Bytes())
		decoded, err := decode(rec.contentEncoding, rec.body.Bytes())
		if err != nil {
			ex.Error = join(ex.Error, fmt.Sprintf("decoding the body: %v", err))
		}
		ex.DecodedSize, ex.DecodedSHA256 = int64(len(decoded)), sum(decoded)
		switch {
		case p == http.ErrAbortHandler:
			ex.Error = join(ex.Error, fmt.Sprintf("the client went away after %d bytes of the body", rec.body.Len()))
		case p != nil:
			ex.Error = join(ex.Error, fmt.Sprint(p))
		case rec.err != nil:
			ex.Error = join(ex.Error, rec.err.Error())
		case r.Context().Err() != nil:
			ex.Error = join(ex.Error, "the client went away")
		default:
			ex.Complete = ex.Status != 0
		}
		l.write(ex)
		if p != nil {
			panic(p)
		}
	}()
	l.next.ServeHTTP(rec, r)
}

// write appends ex to the log as one line, numbered in the order exchanges end.
func (l *logger) write(ex *Exchange) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	ex.Seq = l.seq
	line, err := json.Marshal(ex)
	if err == nil {
		_, err = l.out.Write(append(line, '\n'))
	}
	if err != nil {
		fmt.Printf("wireproxy: writing the log: %v\n", err)
	}
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// decode undoes a gzip or deflate Content-Encoding; other encodings (and none) are
// returned as they are.
func decode(encoding string, b []byte) ([]byte, error) {
	var r io.Reader
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return b, err
		}
		r = zr
	case "deflate":
		r = flate.NewReader(bytes.NewReader(b))
	default:
		return b, nil
	}
	out, err := io.ReadAll(r)
	if err != nil {
		return b, err
	}
	return out, nil
}

// countingReader passes a request body on, counting and hashing what was read.
type countingReader struct {
	r io.ReadCloser
	w io.Writer
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	c.w.Write(p[:n])
	return n, err
}

func (c *countingReader) Close() error { return c.r.Close() }

// recordingWriter keeps the status, the header fields and the body bytes written to the
// client (those the connection took).
type recordingWriter struct {
	http.ResponseWriter
	status          int
	headers         [][2]string
	contentEncoding string
	body            bytes.Buffer
	err             error
}

func (w *recordingWriter) WriteHeader(code int) {
	if w.status == 0 && code >= 200 {
		w.status = code
		for name, values := range w.Header() {
			for _, v := range values {
				w.headers = append(w.headers, [2]string{name, v})
			}
		}
		w.contentEncoding = w.Header().Get("Content-Encoding")
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *recordingWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	n, err := w.ResponseWriter.Write(p)
	w.body.Write(p[:n])
	if err != nil && w.err == nil {
		w.err = fmt.Errorf("the client went away after %d bytes of the body: %w", w.body.Len(), err)
	}
	return n, err
}

// Flush lets the reverse proxy stream an answer as it comes.
func (w *recordingWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the connection's own writer.
func (w *recordingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
