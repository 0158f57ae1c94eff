package teamarchive

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/shared/cdxserver"
	"github.com/webkeep/webkeep/shared/mergedindex"
	"github.com/webkeep/webkeep/shared/teamsearch"
	"github.com/webkeep/webkeep/shared/wacz"
)

// Defaults of Config.
const (
	DefaultMaxBundleSize     = 100 << 20 // Cloudflare's request body limit on the Free and Pro plans
	DefaultMaxDomainFileSize = 4 << 20
	DefaultMaxQueryLimit     = 10000
)

// Config configures a Server.
type Config struct {
	// Bucket holds everything; required.
	Bucket Bucket
	// Tokens are the accepted bearer tokens (see ParseTokens). None: no writes.
	Tokens []Token
	// PublicReads lets requests without a token list, download, query the CDX
	// index and read the URL database. Off by default.
	PublicReads bool
	// MaxBundleSize bounds an upload in bytes; zero means DefaultMaxBundleSize.
	MaxBundleSize int64
	// MaxDomainFileSize bounds a URL database file; zero means DefaultMaxDomainFileSize.
	MaxDomainFileSize int64
	// PartSize is the size of every part of an upload in parts but the last; zero
	// means DefaultPartSize. R2 wants at least MinPartSize.
	PartSize int64
	// MaxUploadSize bounds an upload in parts in bytes; zero means DefaultMaxUploadSize.
	MaxUploadSize int64
	// UploadTTL is the age past which an unfinished upload counts as abandoned and is
	// removed by the next sweep; zero means DefaultUploadTTL.
	UploadTTL time.Duration
	// MaxQueryLimit caps a CDX query's limit=; zero means DefaultMaxQueryLimit.
	MaxQueryLimit int
	// Stores holds the merged CDX index's shards (Durable Objects in the Worker);
	// nil keeps them in memory, for tests and local use.
	Stores mergedindex.Stores
	// Due is told of a shard of the merged index due for compaction (the Worker
	// queues it for Compact); nil compacts it at the end of the request.
	Due func(shard string)
	// IndexLinesPerBlock, IndexDeltaLimit and IndexSplitLines tune the merged
	// index (mergedindex.Config); zero means its defaults.
	IndexLinesPerBlock, IndexDeltaLimit, IndexSplitLines int
	// IndexLease bounds a compaction (mergedindex.Config.LeaseTime); zero means
	// its default.
	IndexLease time.Duration
	// NotaryKey is the signer key of the notary log's tree heads (a note signer
	// key, as notary.GenerateKey makes it; see notary.go); "" leaves them
	// unsigned. The log lives in the store notary.StoreName of Stores.
	NotaryKey string
	// Signer, when set, is the team's signing key: POST /api/sign signs the hash
	// of a WACZ's datapackage.json with it (signing.go). The Worker's is the
	// secret WEBKEEP_SIGNING_KEY.
	Signer wacz.Signer
	// SigningCert is the PEM certificate chain of Signer's key, leaf first: the
	// team then signs in wacz-auth's domain-name form. Empty: anonymous form.
	SigningCert []byte
	// SigningKeyError is why the signing key configured could not be read: the
	// archive then signs nothing, and GET /api/signing says why.
	SigningKeyError error
	// Timestamper, when set, is an RFC 3161 timestamp authority that stamps the
	// team's signatures and the notary log's tree heads.
	Timestamper wacz.Timestamper
	// Now gives upload times and ids; time.Now when nil.
	Now func() time.Time
	// Logf, when set, receives failures that are the server's, not the client's.
	Logf func(format string, args ...any)
}

// A Server is the team archive's HTTP API (see the package documentation).
type Server struct {
	cfg Config
	ix  *mergedindex.Index
	due dueShards
	// search is the full-text index of the bundles' pages (search.go).
	search *teamsearch.Index
	// notary is the notary log of the bundles listed (notary.go).
	notary notaryLog
	// signing is the team's signing key (signing.go).
	signing teamSigning
}

// NewServer returns a Server for cfg, with defaults filled in.
func NewServer(cfg Config) *Server {
	if cfg.MaxBundleSize <= 0 {
		cfg.MaxBundleSize = DefaultMaxBundleSize
	}
	if cfg.MaxDomainFileSize <= 0 {
		cfg.MaxDomainFileSize = DefaultMaxDomainFileSize
	}
	if cfg.PartSize <= 0 {
		cfg.PartSize = DefaultPartSize
	}
	if cfg.MaxUploadSize <= 0 {
		cfg.MaxUploadSize = DefaultMaxUploadSize
	}
	if cfg.UploadTTL <= 0 {
		cfg.UploadTTL = DefaultUploadTTL
	}
	if cfg.MaxQueryLimit <= 0 {
		cfg.MaxQueryLimit = DefaultMaxQueryLimit
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	if cfg.Stores == nil {
		cfg.Stores = &mergedindex.MemStores{}
	}
	s := &Server{cfg: cfg}
	s.ix = mergedindex.New(s.indexConfig())
	s.search = teamsearch.New(s.searchConfig())
	s.notary = newNotaryLog(cfg)
	s.signing = newTeamSigning(cfg)
	return s
}

// An apiError is an error with the HTTP status it answers with.
type apiError struct {
	status int
	err    error
}

func (e *apiError) Error() string { return e.err.Error() }
func (e *apiError) Unwrap() error { return e.err }

func httpErr(status int, format string, args ...any) error {
	return &apiError{status: status, err: fmt.Errorf(format, args...)}
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Body == nil {
		r.Body = http.NoBody // syumai/workers leaves it nil for GET
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	// What the extension reads of an answer: a browser hides other fields of a
	// cross-origin answer from it (a replay's batch names its capture and its steps).
	h.Set("Access-Control-Expose-Headers", "ETag, Content-Range, Content-Length, Accept-Ranges, "+api.TeamBatchCaptureHeader+", Server-Timing, X-Index-Reads, X-Search-Reads")
	if r.Method == http.MethodOptions {
		// A CORS preflight: browsers (the extension among them) ask before sending
		// a token. Tokens travel in Authorization, never in cookies, so any origin
		// may ask; what it may do is still decided by the token.
		h.Set("Access-Control-Allow-Methods", "GET, HEAD, POST, PUT, DELETE, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, If-Match, If-None-Match, Range")
		h.Set("Access-Control-Max-Age", "86400")
		w.WriteHeader(http.StatusNoContent)
		return
	}
	defer func() {
		// syumai/workers calls the handler outside net/http: a panic would end the
		// Go instance and leave the request hanging.
		if v := recover(); v != nil {
			s.cfg.Logf("teamarchive: panic serving %s %s: %v", r.Method, r.URL.Path, v)
			writeError(w, &apiError{status: http.StatusInternalServerError, err: errors.New("internal error")})
		}
	}()
	if err := s.route(w, r); err != nil {
		var ae *apiError
		if !errors.As(err, &ae) {
			ae = &apiError{status: statusOf(err), err: err}
		}
		if ae.status >= 500 {
			s.cfg.Logf("teamarchive: %s %s: %v", r.Method, r.URL.Path, err)
		}
		writeError(w, ae)
	}
	if s.cfg.Due == nil {
		s.compactDue()
	}
}

// statusOf maps the errors of the packages below to HTTP statuses.
func statusOf(err error) int {
	switch {
	case errors.Is(err, ErrName), errors.Is(err, cdxserver.ErrQuery):
		return http.StatusBadRequest
	case errors.Is(err, ErrNotExist), errors.Is(err, ErrNoUpload):
		return http.StatusNotFound
	case errors.Is(err, ErrPrecondition):
		return http.StatusPreconditionFailed
	case errors.Is(err, context.Canceled):
		return 499 // the client went away; nobody reads this
	}
	return http.StatusInternalServerError
}

func writeError(w http.ResponseWriter, e *apiError) {
	w.Header().Del("Content-Length")
	if e.status != http.StatusRequestedRangeNotSatisfiable {
		w.Header().Del("Content-Range")
	}
	if e.status != http.StatusPreconditionFailed && e.status != http.StatusPreconditionRequired {
		w.Header().Del("ETag") // those two tell the writer the current version
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(e.status)
	json.NewEncoder(w).Encode(map[string]string{"error": e.err.Error()})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func (s *Server) route(w http.ResponseWriter, r *http.Request) error {
	if r.Method == http.MethodOptions {
		h := w.Header()
		h.Set("Access-Control-Allow-Methods", "GET, HEAD, POST, PUT, DELETE, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, If-Match, If-None-Match, Range")
		h.Set("Access-Control-Max-Age", "86400")
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	// The escaped path: a name is checked as it was sent, so "%2e%2e" or "%2f" is
	// rejected instead of being decoded into something else.
	path := r.URL.EscapedPath()
	switch {
	case path == "/api/bundles" || path == "/api/bundles/":
		if err := methods(r, http.MethodGet, http.MethodHead); err != nil {
			return err
		}
		if _, err := s.authorize(w, r, false); err != nil {
			return err
		}
		return s.listBundles(w, r)
	case strings.HasPrefix(path, "/api/bundles/"):
		name, file, _ := strings.Cut(strings.TrimPrefix(path, "/api/bundles/"), "/")
		if err := ValidName(name); err != nil {
			return err
		}
		if file != "" {
			if err := methods(r, http.MethodGet, http.MethodHead); err != nil {
				return err
			}
			if err := ValidName(file); err != nil {
				return err
			}
			if _, err := s.authorize(w, r, false); err != nil {
				return err
			}
			return s.getBundleFile(w, r, name, file)
		}
		if err := methods(r, http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete); err != nil {
			return err
		}
		who, err := s.authorize(w, r, r.Method == http.MethodPut || r.Method == http.MethodDelete)
		if err != nil {
			return err
		}
		switch {
		case r.Method == http.MethodPut:
			return s.putBundle(w, r, name, who)
		case r.Method == http.MethodDelete:
			return s.deleteBundle(w, r, name)
		case r.URL.Query().Has("cdxj"):
			return s.getBundleIndex(w, r, name)
		}
		return s.getBundle(w, r, name)
	case path == "/api/uploads" || strings.HasPrefix(path, "/api/uploads/"):
		return s.routeUploads(w, r, strings.TrimPrefix(path, "/api/uploads"))
	case path == "/api/cdx":
		if err := methods(r, http.MethodGet, http.MethodHead); err != nil {
			return err
		}
		if _, err := s.authorize(w, r, false); err != nil {
			return err
		}
		return s.queryCDX(w, r)
	case path == "/api/replay/batch":
		if err := methods(r, http.MethodGet, http.MethodHead); err != nil {
			return err
		}
		if _, err := s.authorize(w, r, false); err != nil {
			return err
		}
		return s.replayBatch(w, r)
	case path == "/api/search":
		if err := methods(r, http.MethodGet, http.MethodHead); err != nil {
			return err
		}
		if _, err := s.authorize(w, r, false); err != nil {
			return err
		}
		return s.getSearch(w, r)
	case path == "/api/index":
		if err := methods(r, http.MethodGet, http.MethodHead); err != nil {
			return err
		}
		if _, err := s.authorize(w, r, false); err != nil {
			return err
		}
		return s.getIndex(w, r)
	case path == "/api/index/compact":
		if err := methods(r, http.MethodPost); err != nil {
			return err
		}
		if _, err := s.authorize(w, r, true); err != nil {
			return err
		}
		return s.postCompact(w, r)
	case path == "/api/digests":
		if err := methods(r, http.MethodPost); err != nil {
			return err
		}
		if _, err := s.authorize(w, r, false); err != nil {
			return err
		}
		return s.postDigests(w, r)
	case path == "/api/signing":
		if err := methods(r, http.MethodGet, http.MethodHead); err != nil {
			return err
		}
		if _, err := s.authorize(w, r, false); err != nil {
			return err
		}
		return s.getSigning(w)
	case path == "/api/sign":
		if err := methods(r, http.MethodPost); err != nil {
			return err
		}
		if _, err := s.authorize(w, r, true); err != nil {
			return err
		}
		return s.postSign(w, r)
	case strings.HasPrefix(path, "/api/notary/"):
		return s.routeNotary(w, r, strings.TrimPrefix(path, "/api/notary"))
	case path == "/api/urldb" || path == "/api/urldb/":
		if err := methods(r, http.MethodGet, http.MethodHead); err != nil {
			return err
		}
		if _, err := s.authorize(w, r, false); err != nil {
			return err
		}
		return s.getURLDB(w, r)
	case strings.HasPrefix(path, "/api/urldb/"):
		domain, err := ValidDomainFile(strings.TrimPrefix(path, "/api/urldb/"))
		if err != nil {
			return err
		}
		if err := methods(r, http.MethodGet, http.MethodHead, http.MethodPut); err != nil {
			return err
		}
		who, err := s.authorize(w, r, r.Method == http.MethodPut)
		if err != nil {
			return err
		}
		if r.Method == http.MethodPut {
			return s.putDomain(w, r, domain, who)
		}
		return s.getDomain(w, r, domain)
	}
	return httpErr(http.StatusNotFound, "no such endpoint: %s", clip(path))
}

func methods(r *http.Request, allowed ...string) error {
	for _, m := range allowed {
		if r.Method == m {
			return nil
		}
	}
	return httpErr(http.StatusMethodNotAllowed, "method %s not allowed here (allowed: %s)", clip(r.Method), strings.Join(allowed, ", "))
}

// authorize returns the uploader name of the request's token. A write always needs a
// valid token; a read needs one unless PublicReads is set (a token sent anyway must
// still be valid: a typo should not pass unnoticed).
func (s *Server) authorize(w http.ResponseWriter, r *http.Request, write bool) (string, error) {
	name, presented := authenticate(s.cfg.Tokens, r)
	switch {
	case name != "":
		return name, nil
	case !presented && !write && s.cfg.PublicReads:
		return "", nil
	case !presented:
		w.Header().Set("WWW-Authenticate", `Bearer realm="webkeep"`)
		return "", httpErr(http.StatusUnauthorized, "authorization required: send Authorization: Bearer <token>")
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="webkeep", error="invalid_token"`)
	return "", httpErr(http.StatusUnauthorized, "invalid token")
}
