package teamarchive

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/webkeep/webkeep/shared/mergedindex"
	"github.com/webkeep/webkeep/shared/notary"
)

// uploadWithReceipt is an upload's answer with its notary receipt.
type uploadWithReceipt struct {
	BundleInfo
	Notary struct {
		NotaryReceipt
		Error string `json:"error"`
	} `json:"notary"`
}

type consistencyJSON struct {
	Old, New         int64
	OldHash, NewHash string
	Proof            []string
	OldHead, NewHead string
	Signed           bool
}

func newNotaryServer(t testing.TB, cfg Config) (*Server, *MemBucket, string) {
	t.Helper()
	skey, vkey, err := notary.GenerateKey("archive.test/notary")
	if err != nil {
		t.Fatal(err)
	}
	cfg.NotaryKey = skey
	s, b := newTestServer(t, cfg)
	return s, b, vkey
}

// checkReceipt verifies a receipt as a client holding the verifier key would: the
// head opens with the key, and the proof puts leaf at the index of its tree.
func checkReceipt(t testing.TB, vkey string, rec NotaryReceipt, leaf string) notary.Head {
	t.Helper()
	if rec.Leaf != leaf {
		t.Fatalf("receipt of leaf %q, want %q", rec.Leaf, leaf)
	}
	head, err := notary.OpenHead([]byte(rec.Head), vkey)
	if err != nil {
		t.Fatalf("receipt's head: %v\n%s", err, rec.Head)
	}
	if head.Tree.N != rec.TreeSize || head.Tree.Hash.String() != rec.TreeHash || !rec.Signed {
		t.Fatalf("receipt's head %+v for tree %d %s (signed %v)", head, rec.TreeSize, rec.TreeHash, rec.Signed)
	}
	p, err := notary.DecodeProof(rec.Proof)
	if err != nil {
		t.Fatal(err)
	}
	if err := notary.VerifyInclusion(head, []byte(leaf), rec.Index, p); err != nil {
		t.Fatalf("receipt's proof: %v", err)
	}
	// tlog's own check, too.
	if err := tlog.CheckRecord(p, head.Tree.N, head.Tree.Hash, rec.Index, tlog.RecordHash([]byte(leaf))); err != nil {
		t.Fatalf("tlog.CheckRecord: %v", err)
	}
	return head
}

func leafOf(t testing.TB, data []byte, name, upload string) string {
	t.Helper()
	l, err := notary.BundleLeaf(bytes.NewReader(data), name, upload)
	if err != nil {
		t.Fatal(err)
	}
	return l.String()
}

func uploadOfReceipt(t testing.TB, rec NotaryReceipt) string {
	t.Helper()
	l, err := notary.ParseLeaf(rec.Leaf)
	if err != nil {
		t.Fatal(err)
	}
	return l.Upload
}

// TestNotaryReplacedBundle: a bundle stored, then replaced by other bytes under
// the same name, then changed in the bucket behind the archive's back. Each upload
// is a leaf with its own SHA-256; the first leaf's receipt still verifies, and so
// does a new proof of it; the replacement's bytes, or the changed bytes, checked
// against the first leaf do not.
func TestNotaryReplacedBundle(t *testing.T) {
	s, b, vkey := newNotaryServer(t, Config{})
	original := readTestdata(t, "sample-bundle.zip")
	w := do(t, s, req{method: "PUT", path: "/api/bundles/team.zip", token: "-", body: original})
	wantStatus(t, w, http.StatusCreated)
	first := decode[uploadWithReceipt](t, w)
	if first.Notary.Error != "" || first.Notary.Index != 0 || first.Notary.TreeSize != 1 {
		t.Fatalf("first upload's receipt: %+v", first.Notary)
	}
	upload1 := uploadOfReceipt(t, first.Notary.NotaryReceipt)
	head1 := checkReceipt(t, vkey, first.Notary.NotaryReceipt, leafOf(t, original, "team.zip", upload1))

	replacement := sampleBundle(t, sampleWARC(t, 2023, "other.warc.gz"), true)
	w = do(t, s, req{method: "PUT", path: "/api/bundles/team.zip?overwrite=1", token: "-", body: replacement})
	wantStatus(t, w, http.StatusOK)
	second := decode[uploadWithReceipt](t, w)
	upload2 := uploadOfReceipt(t, second.Notary.NotaryReceipt)
	if second.Notary.Index != 1 || upload2 == upload1 {
		t.Fatalf("replacement's receipt: %+v", second.Notary)
	}
	head2 := checkReceipt(t, vkey, second.Notary.NotaryReceipt, leafOf(t, replacement, "team.zip", upload2))

	// The first leaf is still in the log, in the new tree too.
	w = do(t, s, req{method: "GET", path: "/api/notary/proof?index=0", token: "-"})
	wantStatus(t, w, http.StatusOK)
	again := decode[NotaryReceipt](t, w)
	if again.TreeSize != 2 || again.Leaf != first.Notary.Leaf {
		t.Fatalf("proof of leaf 0: %+v", again)
	}
	checkReceipt(t, vkey, again, first.Notary.Leaf)
	// And in the first tree.
	w = do(t, s, req{method: "GET", path: "/api/notary/proof?index=0&size=1", token: "-"})
	wantStatus(t, w, http.StatusOK)
	if rec := decode[NotaryReceipt](t, w); rec.TreeHash != first.Notary.TreeHash || rec.Head != first.Notary.Head {
		t.Errorf("proof of leaf 0 in the tree of 1: %+v", rec)
	}

	// What the archive serves now is the replacement: as the first upload's leaf,
	// it does not verify.
	w = do(t, s, req{method: "GET", path: "/api/bundles/team.zip", token: "-"})
	wantStatus(t, w, http.StatusOK)
	p1, _ := notary.DecodeProof(first.Notary.Proof)
	served := leafOf(t, w.Body.Bytes(), "team.zip", upload1)
	if err := notary.VerifyInclusion(head1, []byte(served), 0, p1); !errors.Is(err, notary.ErrProof) {
		t.Errorf("the replacement verified as the first upload: %v", err)
	}
	if err := notary.VerifyInclusion(head1, []byte(first.Notary.Leaf), 0, p1); err != nil {
		t.Errorf("the first leaf: %v", err)
	}

	// Bytes changed in the bucket: a download gives another SHA-256.
	e, _, err := s.lookup(context.Background(), "team.zip")
	if err != nil {
		t.Fatal(err)
	}
	tampered := bytes.Clone(replacement)
	tampered[len(tampered)/2] ^= 1
	if _, err := b.Put(context.Background(), e.DataKey, bytes.NewReader(tampered), int64(len(tampered)), PutOptions{}); err != nil {
		t.Fatal(err)
	}
	w = do(t, s, req{method: "GET", path: "/api/bundles/team.zip", token: "-"})
	if !bytes.Equal(w.Body.Bytes(), tampered) {
		t.Fatal("the download is not the changed bytes")
	}
	p2, _ := notary.DecodeProof(second.Notary.Proof)
	if err := notary.VerifyInclusion(head2, []byte(leafOf(t, w.Body.Bytes(), "team.zip", upload2)), 1, p2); !errors.Is(err, notary.ErrProof) {
		t.Errorf("changed bytes verified: %v", err)
	}

	// The two heads are consistent, and the leaves read back.
	w = do(t, s, req{method: "GET", path: "/api/notary/consistency?old=1&new=2", token: "-"})
	wantStatus(t, w, http.StatusOK)
	c := decode[consistencyJSON](t, w)
	cp, err := notary.DecodeProof(c.Proof)
	if err != nil {
		t.Fatal(err)
	}
	if c.OldHead != first.Notary.Head || c.NewHead != second.Notary.Head {
		t.Errorf("consistency answer's heads:\n%s\n%s", c.OldHead, c.NewHead)
	}
	if err := notary.VerifyConsistency(head1, head2, cp); err != nil {
		t.Errorf("consistency 1-2: %v", err)
	}
	for i, want := range []string{first.Notary.Leaf, second.Notary.Leaf} {
		w := do(t, s, req{method: "GET", path: fmt.Sprintf("/api/notary/leaf/%d", i), token: "-"})
		wantStatus(t, w, http.StatusOK)
		if w.Body.String() != want {
			t.Errorf("leaf %d: %q, want %q", i, w.Body, want)
		}
	}
	w = do(t, s, req{method: "GET", path: "/api/notary/head", token: "-"})
	wantStatus(t, w, http.StatusOK)
	if w.Body.String() != second.Notary.Head || w.Header().Get("X-Notary-Tree-Size") != "2" {
		t.Errorf("head:\n%s", w.Body)
	}
	w = do(t, s, req{method: "GET", path: "/api/notary/key", token: "-"})
	wantStatus(t, w, http.StatusOK)
	if w.Body.String() != vkey+"\n" {
		t.Errorf("key %q, want %q", w.Body, vkey)
	}
}

// TestNotaryUploadInParts: a bundle completed from parts is logged as a PUT is.
func TestNotaryUploadInParts(t *testing.T) {
	s, _, _ := newPartsServer(t)
	skey, vkey, _ := notary.GenerateKey("parts.test/notary")
	s.notary = newNotaryLog(Config{Stores: s.cfg.Stores, NotaryKey: skey, Logf: t.Logf})
	bundle := readTestdata(t, "sample-bundle.zip")
	u := createUpload(t, s, "parts.zip")
	for n := 1; (n-1)*testPartSize < len(bundle); n++ {
		wantStatus(t, putPart(t, s, u, n, part(bundle, n)), http.StatusOK)
	}
	w := complete(t, s, u, "")
	wantStatus(t, w, http.StatusCreated)
	a := decode[uploadWithReceipt](t, w)
	if a.Notary.Error != "" || a.SHA256 != sha256Hex(bundle) {
		t.Fatalf("answer %s", w.Body)
	}
	checkReceipt(t, vkey, a.Notary.NotaryReceipt, leafOf(t, bundle, "parts.zip", u.Upload))
}

// TestNotaryUnsigned: without a key the log runs, its heads unsigned and said so.
func TestNotaryUnsigned(t *testing.T) {
	s, _ := newTestServer(t, Config{})
	bundle := readTestdata(t, "sample-bundle.zip")
	w := do(t, s, req{method: "PUT", path: "/api/bundles/a.zip", token: "-", body: bundle})
	wantStatus(t, w, http.StatusCreated)
	a := decode[uploadWithReceipt](t, w)
	if a.Notary.Signed || a.Notary.Error != "" || a.Notary.TreeSize != 1 ||
		!strings.HasPrefix(a.Notary.Head, notary.DefaultOrigin+"\n1\n") || strings.Contains(a.Notary.Head, "—") {
		t.Fatalf("unsigned receipt %+v", a.Notary)
	}
	head, err := notary.ParseHead([]byte(a.Notary.Head))
	if err != nil {
		t.Fatal(err)
	}
	p, _ := notary.DecodeProof(a.Notary.Proof)
	if err := notary.VerifyInclusion(head, []byte(a.Notary.Leaf), 0, p); err != nil {
		t.Error(err)
	}
	w = do(t, s, req{method: "GET", path: "/api/notary/key", token: "-"})
	wantStatus(t, w, http.StatusNotFound)
	w = do(t, s, req{method: "GET", path: "/api/notary/head", token: "-"})
	wantStatus(t, w, http.StatusOK)
	if w.Header().Get("X-Notary-Signed") != "false" || w.Body.String() != a.Notary.Head {
		t.Errorf("unsigned head %q", w.Body)
	}

	// A key that is no key: logged, heads unsigned, the key route says why.
	var logged []string
	s, _ = newTestServer(t, Config{NotaryKey: "PRIVATE+KEY+nonsense", Logf: func(f string, args ...any) { logged = append(logged, fmt.Sprintf(f, args...)) }})
	w = do(t, s, req{method: "PUT", path: "/api/bundles/a.zip", token: "-", body: bundle})
	wantStatus(t, w, http.StatusCreated)
	if a := decode[uploadWithReceipt](t, w); a.Notary.Signed || a.Notary.Error != "" {
		t.Errorf("receipt with a bad key: %+v", a.Notary)
	}
	w = do(t, s, req{method: "GET", path: "/api/notary/key", token: "-"})
	wantStatus(t, w, http.StatusInternalServerError)
	if len(logged) == 0 || !strings.Contains(logged[0], "WEBKEEP_NOTARY_KEY") {
		t.Errorf("logged %q", logged)
	}
}

// brokenNotary is Stores whose notary store fails every call.
type brokenNotary struct{ mergedindex.Stores }

type brokenStore struct{}

func (brokenStore) Do(context.Context, *mergedindex.Batch) (*mergedindex.Result, error) {
	return nil, fmt.Errorf("%w: the notary's Durable Object is down", mergedindex.ErrStore)
}

func (b brokenNotary) Open(name string) mergedindex.Store {
	if name == notary.StoreName {
		return brokenStore{}
	}
	return b.Stores.Open(name)
}

// TestNotaryFailure: a bundle whose append fails is stored, listed and queryable;
// the answer and the log say it is not logged.
func TestNotaryFailure(t *testing.T) {
	var mu sync.Mutex
	var logged []string
	s, _ := newTestServer(t, Config{Stores: brokenNotary{&mergedindex.MemStores{}}, Logf: func(f string, args ...any) {
		mu.Lock()
		logged = append(logged, fmt.Sprintf(f, args...))
		mu.Unlock()
	}})
	bundle := readTestdata(t, "sample-bundle.zip")
	w := do(t, s, req{method: "PUT", path: "/api/bundles/kept.zip", token: "-", body: bundle})
	wantStatus(t, w, http.StatusCreated)
	a := decode[uploadWithReceipt](t, w)
	if !strings.Contains(a.Notary.Error, "not logged") || !strings.Contains(a.Notary.Error, "Durable Object is down") || a.Notary.Head != "" {
		t.Errorf("answer %s", w.Body)
	}
	if a.SHA256 != sha256Hex(bundle) {
		t.Errorf("answer %s", w.Body)
	}
	w = do(t, s, req{method: "GET", path: "/api/bundles/kept.zip", token: "-"})
	wantStatus(t, w, http.StatusOK)
	if !bytes.Equal(w.Body.Bytes(), bundle) {
		t.Error("the bundle is not served whole")
	}
	w = do(t, s, req{method: "GET", path: "/api/cdx?url=example.com&matchType=domain", token: "-"})
	wantStatus(t, w, http.StatusOK)
	if w.Body.Len() == 0 {
		t.Error("the bundle is not queryable")
	}
	if len(logged) != 1 || !strings.Contains(logged[0], "kept.zip") || !strings.Contains(logged[0], "not logged") {
		t.Errorf("logged %q", logged)
	}
	w = do(t, s, req{method: "GET", path: "/api/notary/head", token: "-"})
	wantStatus(t, w, http.StatusInternalServerError)
}

// TestNotaryConcurrentUploads: 50 uploads at once are logged once each, and the
// log's leaves are exactly the bundles listed.
func TestNotaryConcurrentUploads(t *testing.T) {
	s, _, vkey := newNotaryServer(t, Config{})
	const n = 50
	answers := make([]uploadWithReceipt, n)
	bodies := make([][]byte, n)
	for i := range n {
		bodies[i] = sampleWARC(t, 2000+i, fmt.Sprintf("c%02d.warc.gz", i))
	}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			w := do(t, s, req{method: "PUT", path: fmt.Sprintf("/api/bundles/c%02d.warc.gz", i), token: "-", body: bodies[i]})
			if w.Code != http.StatusCreated {
				t.Errorf("upload %d: %d %s", i, w.Code, w.Body)
				return
			}
			answers[i] = decode[uploadWithReceipt](t, w)
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	seen := map[int64]bool{}
	for i, a := range answers {
		if a.Notary.Error != "" || seen[a.Notary.Index] {
			t.Fatalf("upload %d: receipt %+v", i, a.Notary)
		}
		seen[a.Notary.Index] = true
		checkReceipt(t, vkey, a.Notary.NotaryReceipt, leafOf(t, bodies[i], a.Name, uploadOfReceipt(t, a.Notary.NotaryReceipt)))
	}
	w := do(t, s, req{method: "GET", path: "/api/notary/head", token: "-"})
	head, err := notary.OpenHead(w.Body.Bytes(), vkey)
	if err != nil || head.Tree.N != n {
		t.Fatalf("head %+v, %v", head, err)
	}
	for i := range int64(n) {
		w := do(t, s, req{method: "GET", path: fmt.Sprintf("/api/notary/proof?index=%d", i), token: "-"})
		wantStatus(t, w, http.StatusOK)
		rec := decode[NotaryReceipt](t, w)
		p, _ := notary.DecodeProof(rec.Proof)
		if err := notary.VerifyInclusion(head, []byte(rec.Leaf), i, p); err != nil {
			t.Errorf("leaf %d in the head of %d: %v", i, n, err)
		}
	}
}

// TestNotaryRoutes: the routes' answers to what is outside the log or malformed.
func TestNotaryRoutes(t *testing.T) {
	s, _, _ := newNotaryServer(t, Config{})
	for i := range 3 {
		w := do(t, s, req{method: "PUT", path: fmt.Sprintf("/api/bundles/r%d.warc.gz", i), token: "-", body: sampleWARC(t, 2010+i, "r.warc.gz")})
		wantStatus(t, w, http.StatusCreated)
	}
	for _, tc := range []struct {
		method, path, token string
		status              int
	}{
		{"GET", "/api/notary/head", "-", 200},
		{"HEAD", "/api/notary/head", "-", 200},
		{"GET", "/api/notary/head", "", 401},
		{"POST", "/api/notary/head", "-", 405},
		{"GET", "/api/notary/nope", "-", 404},
		{"GET", "/api/notary/", "-", 404},
		{"GET", "/api/notary/proof?index=2", "-", 200},
		{"GET", "/api/notary/proof?index=2&size=3", "-", 200},
		{"GET", "/api/notary/proof?index=0&size=1", "-", 200},
		{"GET", "/api/notary/proof", "-", 400},
		{"GET", "/api/notary/proof?index=3", "-", 400},
		{"GET", "/api/notary/proof?index=1&size=1", "-", 400},
		{"GET", "/api/notary/proof?index=0&size=4", "-", 400},
		{"GET", "/api/notary/proof?index=-1", "-", 400},
		{"GET", "/api/notary/proof?index=01", "-", 400},
		{"GET", "/api/notary/proof?index=x", "-", 400},
		{"GET", "/api/notary/consistency?old=1", "-", 200},
		{"GET", "/api/notary/consistency?old=0&new=3", "-", 200},
		{"GET", "/api/notary/consistency?old=3&new=3", "-", 200},
		{"GET", "/api/notary/consistency", "-", 400},
		{"GET", "/api/notary/consistency?old=2&new=1", "-", 400},
		{"GET", "/api/notary/consistency?old=1&new=4", "-", 400},
		{"GET", "/api/notary/leaf/2", "-", 200},
		{"GET", "/api/notary/leaf/3", "-", 404},
		{"GET", "/api/notary/leaf/-1", "-", 400},
		{"GET", "/api/notary/leaf/a", "-", 400},
		{"GET", "/api/notary/leaf/", "-", 400},
	} {
		w := do(t, s, req{method: tc.method, path: tc.path, token: tc.token})
		if w.Code != tc.status {
			t.Errorf("%s %s: %d, want %d: %s", tc.method, tc.path, w.Code, tc.status, w.Body)
		}
	}
	s.cfg.PublicReads = true
	wantStatus(t, do(t, s, req{method: "GET", path: "/api/notary/head"}), http.StatusOK)
	wantStatus(t, do(t, s, req{method: "GET", path: "/api/notary/key"}), http.StatusOK)
}
