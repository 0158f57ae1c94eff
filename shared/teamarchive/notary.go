package teamarchive

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/webkeep/webkeep/shared/notary"
)

// The notary log (shared/notary): every bundle listed is appended to it, as the
// leaf "webkeep-bundle <name> <upload> <sha256> <size>", and the upload's answer
// carries its receipt. It lives in the store notary.StoreName of Config.Stores.
//
//	GET /api/notary/head                      the latest tree head, a signed note
//	GET /api/notary/head/timestamp            the latest head, stamped now by the
//	                                          timestamp authority (Config.Timestamper)
//	GET /api/notary/key                       the verifier key of the heads
//	GET /api/notary/proof?index=&size=        inclusion proof of a leaf (size: the
//	                                          current tree when absent)
//	GET /api/notary/consistency?old=&new=     consistency proof of two trees
//	GET /api/notary/leaf/{index}              the leaf record, its exact bytes

// notaryTimeout bounds the append of a listed bundle, which goes on when the
// client has gone: the bundle is listed.
const notaryTimeout = 30 * time.Second

// notaryLog is the Server's notary log and what was wrong with its key.
type notaryLog struct {
	log    *notary.Log
	keyErr error // the key given is unusable: heads go unsigned
}

func newNotaryLog(cfg Config) notaryLog {
	store := cfg.Stores.Open(notary.StoreName)
	l, err := notary.New(store, cfg.NotaryKey)
	if err != nil {
		cfg.Logf("teamarchive: notary: the key (WEBKEEP_NOTARY_KEY) is unusable, tree heads go unsigned: %v", err)
		l, _ = notary.New(store, "")
	}
	return notaryLog{log: l, keyErr: err}
}

// A NotaryReceipt is what the archive answers about a leaf of its notary log:
// where it is, the tree (its size and base64 root hash), the inclusion proof of
// the leaf in that tree (base64 hashes, as tlog.ProveRecord gives them) and the
// tree's head: a note signed with the log's key, or its text alone when Signed is
// false.
type NotaryReceipt struct {
	Index    int64    `json:"index"`
	TreeSize int64    `json:"treeSize"`
	TreeHash string   `json:"treeHash"`
	Proof    []string `json:"proof"`
	Head     string   `json:"head"`
	Signed   bool     `json:"signed"`
	Leaf     string   `json:"leaf"`
	// HeadTimestamp is the base64 DER RFC 3161 TimeStampResp of Head's bytes,
	// when the archive has a timestamp authority (Config.Timestamper):
	// proof that the tree, and the leaf in it, existed at its time.
	HeadTimestamp string `json:"headTimestamp,omitempty"`
	// HeadTimestampError says why the head is not stamped though it should be.
	HeadTimestampError string `json:"headTimestampError,omitempty"`
}

// notaryFailure is the answer's "notary" when the bundle could not be logged.
type notaryFailure struct {
	Error string `json:"error"`
}

// notarize appends a listed bundle to the notary log and returns the receipt, or
// the failure, which is logged too: the bundle stays listed either way.
func (s *Server) notarize(ctx context.Context, e *bundleEntry) any {
	leaf := notary.Leaf{Name: e.Name, Upload: uploadOf(e.DataKey), SHA256: e.SHA256, Size: e.Size}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), notaryTimeout)
	defer cancel()
	rec, err := s.appendLeaf(ctx, leaf)
	if err != nil {
		s.cfg.Logf("teamarchive: notary: %s is stored and listed, but not logged: %v", leaf, err)
		return notaryFailure{Error: "the bundle is stored but not logged: " + err.Error()}
	}
	return rec
}

func (s *Server) appendLeaf(ctx context.Context, leaf notary.Leaf) (*NotaryReceipt, error) {
	if err := leaf.Check(); err != nil {
		return nil, err
	}
	l := s.notary.log
	idx, tree, err := l.Append(ctx, leaf.Bytes())
	if err != nil {
		return nil, err
	}
	rec, err := s.receipt(ctx, idx, tree, leaf.Bytes())
	if err != nil {
		return nil, err
	}
	s.stampHead(ctx, rec)
	return rec, nil
}

// receipt proves leaf idx in tree and signs the tree's head.
func (s *Server) receipt(ctx context.Context, idx int64, tree tlog.Tree, leaf []byte) (*NotaryReceipt, error) {
	l := s.notary.log
	p, err := l.InclusionProof(ctx, idx, tree.N)
	if err != nil {
		return nil, err
	}
	head, err := l.SignHead(tree)
	if err != nil {
		return nil, err
	}
	return &NotaryReceipt{Index: idx, TreeSize: tree.N, TreeHash: tree.Hash.String(), Proof: notary.EncodeProof(p),
		Head: string(head), Signed: l.Signed(), Leaf: string(leaf)}, nil
}

// stampHead has the archive's timestamp authority, if it has one, stamp the
// receipt's tree head.
func (s *Server) stampHead(ctx context.Context, rec *NotaryReceipt) {
	ts := s.cfg.Timestamper
	if ts == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, stampTimeout)
	defer cancel()
	st, err := ts.Stamp(ctx, []byte(rec.Head))
	if err != nil {
		s.cfg.Logf("teamarchive: notary: the head of tree %d is not stamped: %v", rec.TreeSize, err)
		rec.HeadTimestampError = "the tree head is not stamped: " + err.Error()
		return
	}
	rec.HeadTimestamp = base64.StdEncoding.EncodeToString(st.Response)
}

// stampTimeout bounds a timestamp authority's answer.
const stampTimeout = 30 * time.Second

// routeNotary serves /api/notary/...: path is what follows "/api/notary".
func (s *Server) routeNotary(w http.ResponseWriter, r *http.Request, path string) error {
	if err := methods(r, http.MethodGet, http.MethodHead); err != nil {
		return err
	}
	if _, err := s.authorize(w, r, false); err != nil {
		return err
	}
	var err error
	switch {
	case path == "/head":
		err = s.getNotaryHead(w, r)
	case path == "/head/timestamp":
		err = s.getNotaryHeadTimestamp(w, r)
	case path == "/key":
		err = s.getNotaryKey(w)
	case path == "/proof":
		err = s.getNotaryProof(w, r)
	case path == "/consistency":
		err = s.getNotaryConsistency(w, r)
	case strings.HasPrefix(path, "/leaf/"):
		err = s.getNotaryLeaf(w, r, strings.TrimPrefix(path, "/leaf/"))
	default:
		return httpErr(http.StatusNotFound, "no such endpoint: %s (the notary log answers head, head/timestamp, key, proof, consistency and leaf/{index})", clip(r.URL.EscapedPath()))
	}
	switch {
	case errors.Is(err, notary.ErrRange):
		return &apiError{status: http.StatusBadRequest, err: err}
	case errors.Is(err, notary.ErrNotFound):
		return &apiError{status: http.StatusNotFound, err: err}
	}
	return err
}

func writeText(w http.ResponseWriter, body string) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	w.Write([]byte(body))
}

func (s *Server) getNotaryHead(w http.ResponseWriter, r *http.Request) error {
	head, tree, err := s.notary.log.SignedHead(r.Context())
	if err != nil {
		return err
	}
	w.Header().Set("X-Notary-Tree-Size", strconv.FormatInt(tree.N, 10))
	w.Header().Set("X-Notary-Signed", strconv.FormatBool(s.notary.log.Signed()))
	writeText(w, string(head))
	return nil
}

// getNotaryHeadTimestamp has the archive's timestamp authority stamp the current
// head, and answers the head and its stamp: {"head", "treeSize", "headTimestamp"}.
func (s *Server) getNotaryHeadTimestamp(w http.ResponseWriter, r *http.Request) error {
	if s.cfg.Timestamper == nil {
		return httpErr(http.StatusNotFound, "no timestamp authority is configured (WEBKEEP_TSA_URL): tree heads are not stamped")
	}
	head, tree, err := s.notary.log.SignedHead(r.Context())
	if err != nil {
		return err
	}
	rec := &NotaryReceipt{TreeSize: tree.N, TreeHash: tree.Hash.String(), Head: string(head), Signed: s.notary.log.Signed()}
	s.stampHead(r.Context(), rec)
	if rec.HeadTimestampError != "" {
		return httpErr(http.StatusBadGateway, "%s", rec.HeadTimestampError)
	}
	writeJSON(w, http.StatusOK, map[string]any{"head": rec.Head, "treeSize": rec.TreeSize, "treeHash": rec.TreeHash, "signed": rec.Signed, "headTimestamp": rec.HeadTimestamp})
	return nil
}

func (s *Server) getNotaryKey(w http.ResponseWriter) error {
	if s.notary.keyErr != nil {
		return fmt.Errorf("the notary key (WEBKEEP_NOTARY_KEY) is unusable, tree heads go unsigned: %w", s.notary.keyErr)
	}
	if !s.notary.log.Signed() {
		return httpErr(http.StatusNotFound, "no notary key configured (WEBKEEP_NOTARY_KEY): tree heads are unsigned")
	}
	writeText(w, s.notary.log.VerifierKey()+"\n")
	return nil
}

// sizeParam reads a tree size or index from the query: def when absent (def < 0:
// required).
func sizeParam(r *http.Request, name string, def int64) (int64, error) {
	v := r.URL.Query().Get(name)
	if v == "" && def >= 0 {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || strconv.FormatInt(n, 10) != v {
		return 0, httpErr(http.StatusBadRequest, "%s=%q: want a number, 0 or more", name, clip(v))
	}
	return n, nil
}

func (s *Server) getNotaryProof(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	l := s.notary.log
	idx, err := sizeParam(r, "index", -1)
	if err != nil {
		return err
	}
	tree, err := l.Tree(ctx)
	if err != nil {
		return err
	}
	size, err := sizeParam(r, "size", tree.N)
	if err != nil {
		return err
	}
	if size > tree.N {
		return fmt.Errorf("%w: size=%d, the log has %d leaves", notary.ErrRange, size, tree.N)
	}
	if idx >= size {
		return fmt.Errorf("%w: index=%d outside the tree of %d leaves", notary.ErrRange, idx, size)
	}
	if size != tree.N {
		if tree, err = l.TreeAt(ctx, size); err != nil {
			return err
		}
	}
	leaf, err := l.Leaf(ctx, idx)
	if err != nil {
		return err
	}
	rec, err := s.receipt(ctx, idx, tree, leaf)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, rec)
	return nil
}

func (s *Server) getNotaryConsistency(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	l := s.notary.log
	older, err := sizeParam(r, "old", -1)
	if err != nil {
		return err
	}
	tree, err := l.Tree(ctx)
	if err != nil {
		return err
	}
	newer, err := sizeParam(r, "new", tree.N)
	if err != nil {
		return err
	}
	if newer > tree.N || older > newer {
		return fmt.Errorf("%w: old=%d, new=%d: want old <= new <= %d, the log's size", notary.ErrRange, older, newer, tree.N)
	}
	oldTree, err := l.TreeAt(ctx, older)
	if err != nil {
		return err
	}
	if newer != tree.N {
		if tree, err = l.TreeAt(ctx, newer); err != nil {
			return err
		}
	}
	p, err := l.ConsistencyProof(ctx, older, newer)
	if err != nil {
		return err
	}
	oldHead, err := l.SignHead(oldTree)
	if err != nil {
		return err
	}
	newHead, err := l.SignHead(tree)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, struct {
		Old     int64    `json:"old"`
		New     int64    `json:"new"`
		OldHash string   `json:"oldHash"`
		NewHash string   `json:"newHash"`
		Proof   []string `json:"proof"`
		OldHead string   `json:"oldHead"`
		NewHead string   `json:"newHead"`
		Signed  bool     `json:"signed"`
	}{older, newer, oldTree.Hash.String(), tree.Hash.String(), notary.EncodeProof(p), string(oldHead), string(newHead), l.Signed()})
	return nil
}

func (s *Server) getNotaryLeaf(w http.ResponseWriter, r *http.Request, index string) error {
	idx, err := strconv.ParseInt(index, 10, 64)
	if err != nil || idx < 0 || strconv.FormatInt(idx, 10) != index {
		return httpErr(http.StatusBadRequest, "leaf %q: want its index, a number, 0 or more", clip(index))
	}
	leaf, err := s.notary.log.Leaf(r.Context(), idx)
	if err != nil {
		return err
	}
	writeText(w, string(leaf))
	return nil
}
