package urldb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/webkeep/webkeep/shared/httpmsg"
)

// Defaults of a Checker.
const (
	DefaultConcurrency = 32
	DefaultPerHost     = 16
	DefaultTimeout     = 30 * time.Second
	DefaultUserAgent   = "webkeep-urldb/1 (wwturldb-compatible URL checker)"
)

// ErrArchive wraps the error of a Checker's Archive function, which stops Check.
var ErrArchive = errors.New("archiving failed")

// Exchange is one request and response fetched by a Checker, with the whole
// body, for archiving.
type Exchange struct {
	Request  *httpmsg.Request
	Response *httpmsg.Response // Body already read: see Body
	Body     []byte            // decoded body
	Date     time.Time         // when the request was sent
}

// Checker fetches URLs and checks them against their records, many at a time
// but at most PerHost at once on any one host.
type Checker struct {
	// Client does the requests; nil means one with no redirects followed, no
	// cookies, and connections kept per host (see HTTPClient). A net/http client's
	// CheckRedirect should return http.ErrUseLastResponse, as wwturldb does not follow
	// redirects.
	Client      Doer
	Concurrency int           // requests in flight in all; DefaultConcurrency if 0
	PerHost     int           // requests in flight per host; DefaultPerHost if 0
	Timeout     time.Duration // per URL, body included; DefaultTimeout if 0
	UserAgent   string        // DefaultUserAgent if empty
	Insecure    bool          // do not verify TLS certificates (default client only)
	// Archive, if set, receives every exchange with its body, one call at a
	// time; the bodies of all responses are then read in full.
	Archive func(*Exchange) error
	// Progress, if set, is called after each URL with the count done so far.
	Progress func(done, total int)
}

// Doer does HTTP requests: the browser's fetch in the extension's core
// (wasm/jsfetch), net/http's client natively (see HTTPClient).
type Doer = httpmsg.Doer

// Target is one URL to check for a record.
type Target struct {
	Domain *Domain
	Record *Record
	URL    string
}

// TargetOptions choose the URLs of a record beyond the one wwturldb checks.
type TargetOptions struct {
	CNAMEs      bool              // also every cname of the domain
	BothSchemes bool              // also the other of http and https
	Map         map[string]string // host -> host[:port] to send requests to instead (--map)
}

// Targets returns the URLs to check for the entries. Without options, that is
// the URL wwturldb checks: https if the domain has https, on the primary name.
func Targets(entries []Entry, opt TargetOptions) []Target {
	var out []Target
	for _, e := range entries {
		schemes := []string{"http"}
		if e.Domain.HTTPS() {
			schemes[0] = "https"
		}
		if opt.BothSchemes {
			schemes = append(schemes, map[string]string{"http": "https", "https": "http"}[schemes[0]])
		}
		hosts := []string{e.Domain.Name}
		if opt.CNAMEs {
			hosts = append(hosts, e.Domain.CNAMEs()...)
		}
		for _, host := range hosts {
			if alias, ok := opt.Map[host]; ok {
				host = alias
			}
			for _, scheme := range schemes {
				out = append(out, Target{e.Domain, e.Record, JoinURL(scheme, host, e.Record.Path)})
			}
		}
	}
	return out
}

// Fetch GETs a URL without following redirects, as wwturldb does, and returns
// the response; the body is read (and hashed) when readBody is set. With
// archive set, the body is always read and the exchange passed to it.
func Fetch(ctx context.Context, client Doer, rawURL, userAgent string, readBody bool, archive func(*Exchange) error) (Response, error) {
	req, err := httpmsg.NewRequest(ctx, httpmsg.MethodGet, rawURL, nil)
	if err != nil {
		return Response{}, err
	}
	if userAgent == "" {
		userAgent = DefaultUserAgent
	}
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Accept", "*/*")
	date := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return Response{}, err
	}
	defer resp.Body.Close()
	r := Response{Status: resp.StatusCode, Header: resp.Header, Length: -1}
	if archive != nil {
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			return Response{}, err
		}
		if err := r.ReadBody(bytes.NewReader(body)); err != nil {
			return Response{}, err
		}
		if err := archive(&Exchange{Request: req, Response: resp, Body: body, Date: date}); err != nil {
			return r, fmt.Errorf("%w: %s: %w", ErrArchive, rawURL, err)
		}
		return r, nil
	}
	if readBody {
		if err := r.ReadBody(resp.Body); err != nil {
			return Response{}, err
		}
	}
	return r, nil
}

// Check fetches every target and returns its verdict through emit, called in
// target order from the calling goroutine. A failed fetch is a verdict (code
// network or timeout), never an error; Check returns early only when ctx ends
// or archiving fails.
func (c *Checker) Check(ctx context.Context, targets []Target, emit func(Verdict)) error {
	client := c.HTTPClient()
	conc, perHost, timeout := c.Concurrency, c.PerHost, c.Timeout
	if conc <= 0 {
		conc = DefaultConcurrency
	}
	if perHost <= 0 {
		perHost = DefaultPerHost
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	archive := c.Archive
	if archive != nil {
		var mu sync.Mutex
		archive = func(ex *Exchange) error {
			mu.Lock()
			defer mu.Unlock()
			return c.Archive(ex)
		}
	}

	hosts := map[string]chan struct{}{}
	for _, t := range targets {
		h := hostOf(t.URL)
		if hosts[h] == nil {
			hosts[h] = make(chan struct{}, perHost)
		}
	}
	type result struct {
		i   int
		v   Verdict
		err error
	}
	jobs := make(chan int)
	results := make(chan result)
	var wg sync.WaitGroup
	for w := 0; w < min(conc, len(targets)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				t := targets[i]
				sem := hosts[hostOf(t.URL)]
				select {
				case sem <- struct{}{}:
				case <-ctx.Done():
					results <- result{i: i, err: ctx.Err()}
					continue
				}
				v, err := c.checkOne(ctx, client, t, timeout, archive)
				<-sem
				results <- result{i, v, err}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for i := range targets {
			select {
			case jobs <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()

	pending := map[int]Verdict{}
	next, done := 0, 0
	var firstErr error
	for res := range results {
		if res.err != nil {
			if firstErr == nil {
				firstErr = res.err
				cancel()
			}
			continue
		}
		done++
		if c.Progress != nil {
			c.Progress(done, len(targets))
		}
		pending[res.i] = res.v
		for {
			v, ok := pending[next]
			if !ok || firstErr != nil {
				break
			}
			delete(pending, next)
			emit(v)
			next++
		}
	}
	if firstErr == nil {
		firstErr = context.Cause(ctx)
		if next == len(targets) {
			firstErr = nil
		}
	}
	return firstErr
}

func (c *Checker) checkOne(ctx context.Context, client Doer, t Target, timeout time.Duration, archive func(*Exchange) error) (Verdict, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	resp, err := Fetch(ctx, client, t.URL, c.UserAgent, t.Record.Static(), archive)
	var v Verdict
	switch {
	case errors.Is(err, ErrArchive):
		return v, err
	case err != nil && ctx.Err() == context.DeadlineExceeded:
		v = Verdict{Path: t.Record.Path, Code: CodeTimeout, Problem: fmt.Sprintf("no response in %v", timeout)}
	case err != nil:
		if errors.Is(err, context.Canceled) {
			return v, err
		}
		v = Verdict{Path: t.Record.Path, Code: CodeNetwork, Problem: fetchProblem(err)}
	default:
		v = CheckResponse(t.Record, resp)
	}
	v.URL, v.Domain = t.URL, t.Domain.Name
	return v, nil
}

// fetchProblem says why a fetch failed without repeating the URL.
func fetchProblem(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return "fetch failed: " + err.Error()
}

func hostOf(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return rawURL
	}
	return strings.ToLower(u.Host)
}
