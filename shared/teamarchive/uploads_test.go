package teamarchive

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

const testPartSize = 1024

// newPartsServer is a test server whose uploads go in parts of testPartSize bytes,
// with a clock the test moves, and tokens for alice and bob.
func newPartsServer(t testing.TB) (*Server, *MemBucket, *time.Time) {
	t.Helper()
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	s, b := newTestServer(t, Config{PartSize: testPartSize, Tokens: ParseTokens(testToken + ",bob:bob-secret-0123456789")})
	b.MinPartSize = testPartSize
	b.Now = func() time.Time { return now }
	s.cfg.Now = b.Now
	return s, b, &now
}

type uploadAnswerJSON struct {
	Name     string `json:"name"`
	Upload   string `json:"upload"`
	PartSize int64  `json:"partSize"`
	Parts    []struct {
		Number int    `json:"number"`
		Size   int64  `json:"size"`
		ETag   string `json:"etag"`
	} `json:"parts"`
	Received int64 `json:"received"`
}

func decode[T any](t testing.TB, w *httptest.ResponseRecorder) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(w.Body.Bytes(), &v); err != nil {
		t.Fatalf("answer %q: %v", w.Body.String(), err)
	}
	return v
}

func createUpload(t testing.TB, s http.Handler, name string) uploadAnswerJSON {
	t.Helper()
	w := do(t, s, req{method: "POST", path: "/api/uploads/" + name, token: "-"})
	wantStatus(t, w, http.StatusCreated)
	return decode[uploadAnswerJSON](t, w)
}

// part returns part n (from 1) of data in parts of testPartSize bytes.
func part(data []byte, n int) []byte {
	return data[(n-1)*testPartSize : min(len(data), n*testPartSize)]
}

func putPart(t testing.TB, s http.Handler, u uploadAnswerJSON, n int, body []byte) *httptest.ResponseRecorder {
	t.Helper()
	return do(t, s, req{method: "PUT", path: fmt.Sprintf("/api/uploads/%s/%s/%d", u.Name, u.Upload, n), token: "-", body: body})
}

func complete(t testing.TB, s http.Handler, u uploadAnswerJSON, body string) *httptest.ResponseRecorder {
	t.Helper()
	var b []byte
	if body != "" {
		b = []byte(body)
	}
	return do(t, s, req{method: "POST", path: "/api/uploads/" + u.Name + "/" + u.Upload, token: "-", body: b})
}

func md5Hex(b []byte) string {
	sum := md5.Sum(b)
	return hex.EncodeToString(sum[:])
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// wantOnlyBundle checks that the bucket holds the bundle's three objects and no
// upload, record or part.
func wantOnlyBundle(t testing.TB, b *MemBucket, name string) {
	t.Helper()
	keys := bundleKeys(b)
	if len(keys) != 3 || !strings.HasPrefix(keys[0], "cdx/"+name+"/") || !strings.HasPrefix(keys[1], "data/"+name+"/") || keys[2] != "index/"+name {
		t.Errorf("keys %v, want the bundle's data, index and entry only", keys)
	}
	if n := b.Uploads(); n != 0 {
		t.Errorf("%d multipart uploads left", n)
	}
}

func TestUploadInParts(t *testing.T) {
	bundle := readTestdata(t, "sample-bundle.zip")
	nparts := (len(bundle) + testPartSize - 1) / testPartSize
	orders := map[string][]int{"in order": {1, 2, 3, 4, 5}, "out of order": {4, 2, 5, 1, 3}, "reversed": {5, 4, 3, 2, 1}}
	for name, order := range orders {
		t.Run(name, func(t *testing.T) {
			if len(order) != nparts {
				t.Fatalf("%d parts, order has %d", nparts, len(order))
			}
			s, b, _ := newPartsServer(t)
			u := createUpload(t, s, "parts.zip")
			if u.PartSize != testPartSize || u.Upload == "" || len(u.Parts) != 0 {
				t.Fatalf("created %+v", u)
			}
			// Pending: not listed, not downloadable.
			for _, n := range order {
				w := putPart(t, s, u, n, part(bundle, n))
				wantStatus(t, w, http.StatusOK)
				if got := decode[struct{ ETag string }](t, w).ETag; got != md5Hex(part(bundle, n)) {
					t.Errorf("part %d: etag %s", n, got)
				}
			}
			if w := do(t, s, req{method: "GET", path: "/api/bundles", token: "-"}); !strings.Contains(w.Body.String(), `"bundles":[]`) {
				t.Errorf("pending upload listed: %s", w.Body.String())
			}
			wantStatus(t, do(t, s, req{method: "GET", path: "/api/bundles/parts.zip", token: "-"}), http.StatusNotFound)

			w := do(t, s, req{method: "GET", path: "/api/uploads/parts.zip/" + u.Upload, token: "-"})
			wantStatus(t, w, http.StatusOK)
			got := decode[uploadAnswerJSON](t, w)
			if len(got.Parts) != nparts || got.Received != int64(len(bundle)) {
				t.Fatalf("parts received: %+v", got)
			}
			for i, p := range got.Parts {
				if p.Number != i+1 || p.ETag != md5Hex(part(bundle, i+1)) {
					t.Errorf("part %d: %+v", i+1, p)
				}
			}

			w = complete(t, s, u, fmt.Sprintf(`{"parts": %d, "size": %d, "sha256": %q}`, nparts, len(bundle), sha256Hex(bundle)))
			wantStatus(t, w, http.StatusCreated)
			info := decode[BundleInfo](t, w)
			if info.Size != int64(len(bundle)) || info.Records != 6 || info.SHA256 != sha256Hex(bundle) || info.Uploader != "alice" || info.Kind != KindBundle {
				t.Errorf("completed %+v", info)
			}
			w = do(t, s, req{method: "GET", path: "/api/bundles/parts.zip", token: "-"})
			wantStatus(t, w, http.StatusOK)
			if !bytes.Equal(w.Body.Bytes(), bundle) {
				t.Errorf("downloaded %d bytes, not the %d uploaded", w.Body.Len(), len(bundle))
			}
			if w := do(t, s, req{method: "GET", path: "/api/cdx?url=sub.example.com&matchType=host", token: "-"}); !strings.HasPrefix(w.Body.String(), "com,example,sub)/x 20240402030405 ") || !strings.Contains(w.Body.String(), `"source": "parts.zip"`) {
				t.Errorf("cdx of the bundle: %s", w.Body.String())
			}
			wantOnlyBundle(t, b, "parts.zip")
			wantStatus(t, complete(t, s, u, ""), http.StatusNotFound)
		})
	}
}

func TestUploadResume(t *testing.T) {
	bundle := readTestdata(t, "sample-bundle.zip")
	s, b, _ := newPartsServer(t)
	u := createUpload(t, s, "resumed.zip")
	for n := 1; n <= 2; n++ {
		wantStatus(t, putPart(t, s, u, n, part(bundle, n)), http.StatusOK)
	}
	// The connection drops in the middle of part 3.
	for _, body := range []io.Reader{&failingReader{data: part(bundle, 3), n: 100}, bytes.NewReader(part(bundle, 3)[:100])} {
		hr := httptest.NewRequest("PUT", "/api/uploads/resumed.zip/"+u.Upload+"/3", body)
		hr.ContentLength = testPartSize
		hr.Header.Set("Authorization", "Bearer alice-secret-0123456789")
		w := httptest.NewRecorder()
		s.ServeHTTP(w, hr)
		wantStatus(t, w, http.StatusBadRequest)
		if !strings.Contains(w.Body.String(), "part 3 interrupted after 100 of 1024 bytes") {
			t.Errorf("answer %s", w.Body.String())
		}
	}
	// The client asks what arrived and sends the rest.
	w := do(t, s, req{method: "GET", path: "/api/uploads/resumed.zip/" + u.Upload, token: "-"})
	got := decode[uploadAnswerJSON](t, w)
	if len(got.Parts) != 2 || got.Received != 2*testPartSize {
		t.Fatalf("after the cut: %s", w.Body.String())
	}
	// Completing too early is refused when the client says how many parts it sent.
	if w := complete(t, s, u, `{"parts": 5}`); w.Code != 400 || !strings.Contains(w.Body.String(), "5 parts sent, 2 received (1-2)") {
		t.Errorf("early completion: %d %s", w.Code, w.Body.String())
	}
	for n := 3; n <= 5; n++ {
		wantStatus(t, putPart(t, s, u, n, part(bundle, n)), http.StatusOK)
	}
	// A part sent twice (the answer was lost) replaces itself.
	wantStatus(t, putPart(t, s, u, 4, part(bundle, 4)), http.StatusOK)
	w = complete(t, s, u, `{"parts": 5}`)
	wantStatus(t, w, http.StatusCreated)
	if info := decode[BundleInfo](t, w); info.SHA256 != sha256Hex(bundle) {
		t.Errorf("sha256 %s, want %s", info.SHA256, sha256Hex(bundle))
	}
	wantOnlyBundle(t, b, "resumed.zip")
}

func TestUploadChangedPartIsHashedAgain(t *testing.T) {
	bundle := readTestdata(t, "sample-bundle.zip")
	s, _, _ := newPartsServer(t)
	u := createUpload(t, s, "changed.zip")
	other := bytes.Repeat([]byte("z"), testPartSize)
	for n := 1; n <= 5; n++ {
		wantStatus(t, putPart(t, s, u, n, part(bundle, n)), http.StatusOK)
	}
	// Part 2 sent again with other bytes: the hash states parts 3 to 5 chained from
	// the first part 2 are stale, and the bundle's SHA-256 is that of what is stored.
	wantStatus(t, putPart(t, s, u, 2, other), http.StatusOK)
	stored := slices.Concat(part(bundle, 1), other, bundle[2*testPartSize:])
	w := complete(t, s, u, "")
	wantStatus(t, w, http.StatusCreated) // the damage is inside the WARC, which is not read
	if info := decode[BundleInfo](t, w); info.SHA256 != sha256Hex(stored) {
		t.Errorf("sha256 %s, want %s", info.SHA256, sha256Hex(stored))
	}
	// And back: parts 3 to 5 chained on the changed part 2, part 2 sent as it was.
	wantStatus(t, do(t, s, req{method: "DELETE", path: "/api/bundles/changed.zip", token: "-"}), http.StatusNoContent)
	u = createUpload(t, s, "changed.zip")
	for n := 1; n <= 5; n++ {
		wantStatus(t, putPart(t, s, u, n, part(stored, n)), http.StatusOK)
	}
	wantStatus(t, putPart(t, s, u, 2, part(bundle, 2)), http.StatusOK)
	w = complete(t, s, u, fmt.Sprintf(`{"sha256": %q}`, sha256Hex(bundle)))
	wantStatus(t, w, http.StatusCreated)
	if info := decode[BundleInfo](t, w); info.SHA256 != sha256Hex(bundle) {
		t.Errorf("sha256 %s, want %s", info.SHA256, sha256Hex(bundle))
	}
}

func TestUploadRejects(t *testing.T) {
	bundle := readTestdata(t, "sample-bundle.zip")
	s, b, _ := newPartsServer(t)
	u := createUpload(t, s, "r.zip")
	base := "/api/uploads/r.zip/" + u.Upload
	bob := "bob-secret-0123456789"
	for _, tc := range []struct {
		r      req
		status int
		says   string
	}{
		{req{method: "POST", path: "/api/uploads/x.zip"}, 401, "authorization required"},
		{req{method: "POST", path: "/api/uploads/x.zip", token: "wrong"}, 401, "invalid token"},
		{req{method: "PUT", path: base + "/1", body: part(bundle, 1)}, 401, "authorization required"},
		{req{method: "GET", path: base}, 401, "authorization required"},
		{req{method: "DELETE", path: base, token: "wrong"}, 401, "invalid token"},
		{req{method: "PUT", path: base + "/1", token: bob, body: part(bundle, 1)}, 403, "belongs to alice"},
		{req{method: "POST", path: base, token: bob}, 403, "belongs to alice"},
		{req{method: "DELETE", path: base, token: bob}, 403, "belongs to alice"},
		{req{method: "POST", path: "/api/uploads/..%2f..%2fdata", token: "-"}, 400, "invalid name"},
		{req{method: "POST", path: "/api/uploads/../index", token: "-"}, 400, "invalid name"},
		{req{method: "POST", path: "/api/uploads/.hidden", token: "-"}, 400, "invalid name"},
		{req{method: "PUT", path: "/api/uploads/r.zip/..%2f" + u.Upload + "/1", token: "-", body: part(bundle, 1)}, 400, "invalid name"},
		{req{method: "PUT", path: "/api/uploads/r.zip/" + u.Upload + "%2f1/1", token: "-", body: part(bundle, 1)}, 400, "invalid name"},
		{req{method: "PUT", path: base + "/0", token: "-", body: part(bundle, 1)}, 400, "want 1 to 10000"},
		{req{method: "PUT", path: base + "/10001", token: "-", body: part(bundle, 1)}, 400, "want 1 to 10000"},
		{req{method: "PUT", path: base + "/01", token: "-", body: part(bundle, 1)}, 400, "want 1 to 10000"},
		{req{method: "PUT", path: base + "/1/2", token: "-", body: part(bundle, 1)}, 404, "no such endpoint"},
		{req{method: "PUT", path: base + "/1", token: "-"}, 400, "part 1 is empty"},
		{req{method: "PUT", path: base + "/1", token: "-", body: make([]byte, testPartSize+1)}, 413, "exceeds the part size of 1024 bytes"},
		{req{method: "PUT", path: "/api/uploads/r.zip/20250102T030405.000000000Z-0000000000000000/1", token: "-", body: part(bundle, 1)}, 404, "no upload"},
		{req{method: "PUT", path: base, token: "-"}, 405, "not allowed"},
		{req{method: "POST", path: base + "/1", token: "-"}, 405, "not allowed"},
		{req{method: "POST", path: base, token: "-", body: []byte("{")}, 400, "completion body"},
		{req{method: "POST", path: base, token: "-"}, 400, "no parts yet"},
	} {
		w := do(t, s, tc.r)
		if w.Code != tc.status || !strings.Contains(w.Body.String(), tc.says) {
			t.Errorf("%s %s: %d %s, want %d %q", tc.r.method, tc.r.path, w.Code, w.Body.String(), tc.status, tc.says)
		}
	}

	// A part smaller than the part size is only allowed last; a gap is named.
	wantStatus(t, putPart(t, s, u, 1, part(bundle, 1)[:600]), http.StatusOK)
	wantStatus(t, putPart(t, s, u, 2, part(bundle, 2)), http.StatusOK)
	wantStatus(t, putPart(t, s, u, 4, part(bundle, 4)), http.StatusOK)
	for _, tc := range []struct{ body, says string }{
		{"", "part 3 is missing (parts received: 1-2,4)"},
	} {
		w := complete(t, s, u, tc.body)
		if w.Code != 400 || !strings.Contains(w.Body.String(), tc.says) {
			t.Errorf("complete: %d %s, want %q", w.Code, w.Body.String(), tc.says)
		}
	}
	wantStatus(t, do(t, s, req{method: "DELETE", path: base + "/4", token: "-"}), http.StatusMethodNotAllowed)
	wantStatus(t, putPart(t, s, u, 3, part(bundle, 3)), http.StatusOK)
	wantStatus(t, putPart(t, s, u, 5, part(bundle, 5)), http.StatusOK)
	for _, tc := range []struct{ body, says string }{
		{"", "part 1 is 600 bytes: every part but the last must be exactly 1024 bytes"},
	} {
		w := complete(t, s, u, tc.body)
		if w.Code != 400 || !strings.Contains(w.Body.String(), tc.says) {
			t.Errorf("complete: %d %s, want %q", w.Code, w.Body.String(), tc.says)
		}
	}
	wantStatus(t, putPart(t, s, u, 1, part(bundle, 1)), http.StatusOK)
	for _, tc := range []struct{ body, says string }{
		{`{"parts": 6}`, "6 parts sent, 5 received (1-5)"},
		{`{"size": 10}`, "10 bytes sent, 4904 received"},
	} {
		w := complete(t, s, u, tc.body)
		if w.Code != 400 || !strings.Contains(w.Body.String(), tc.says) {
			t.Errorf("complete: %d %s, want %q", w.Code, w.Body.String(), tc.says)
		}
	}
	// A SHA-256 that differs from what arrived ends the upload: nothing is kept.
	w := complete(t, s, u, `{"sha256": "`+strings.Repeat("0", 64)+`"}`)
	if w.Code != 400 || !strings.Contains(w.Body.String(), "the client sent 0000") {
		t.Errorf("complete with a wrong sha256: %d %s", w.Code, w.Body.String())
	}
	if keys := b.Keys(); len(keys) != 0 || b.Uploads() != 0 {
		t.Errorf("after a failed completion: keys %v, %d uploads", keys, b.Uploads())
	}
}

func TestUploadPartTooSmallForR2(t *testing.T) {
	// The server's part size below what the bucket accepts: the bucket's refusal
	// is an error of the server, and the upload can still be aborted.
	s, b, _ := newPartsServer(t)
	b.MinPartSize = 0 // R2's 5 MiB
	bundle := readTestdata(t, "sample-bundle.zip")
	u := createUpload(t, s, "small.zip")
	for n := 1; n <= 5; n++ {
		wantStatus(t, putPart(t, s, u, n, part(bundle, n)), http.StatusOK)
	}
	w := complete(t, s, u, "")
	if w.Code != 500 || !strings.Contains(w.Body.String(), "part 1 is 1024 bytes, less than the 5242880") {
		t.Errorf("complete: %d %s", w.Code, w.Body.String())
	}
	wantStatus(t, do(t, s, req{method: "DELETE", path: "/api/uploads/small.zip/" + u.Upload, token: "-"}), http.StatusNoContent)
	if keys := b.Keys(); len(keys) != 0 || b.Uploads() != 0 {
		t.Errorf("after abort: keys %v, %d uploads", keys, b.Uploads())
	}
}

func TestUploadAbort(t *testing.T) {
	bundle := readTestdata(t, "sample-bundle.zip")
	s, b, _ := newPartsServer(t)
	u := createUpload(t, s, "aborted.zip")
	wantStatus(t, putPart(t, s, u, 1, part(bundle, 1)), http.StatusOK)
	wantStatus(t, do(t, s, req{method: "DELETE", path: "/api/uploads/aborted.zip/" + u.Upload, token: "-"}), http.StatusNoContent)
	if keys := b.Keys(); len(keys) != 0 || b.Uploads() != 0 {
		t.Errorf("after abort: keys %v, %d uploads", keys, b.Uploads())
	}
	w := putPart(t, s, u, 2, part(bundle, 2))
	if w.Code != 404 || !strings.Contains(w.Body.String(), "start again") {
		t.Errorf("part after abort: %d %s", w.Code, w.Body.String())
	}
	wantStatus(t, complete(t, s, u, ""), http.StatusNotFound)
}

func TestUploadExistingName(t *testing.T) {
	bundle := readTestdata(t, "sample-bundle.zip")
	s, b, _ := newPartsServer(t)
	wantStatus(t, do(t, s, req{method: "PUT", path: "/api/bundles/e.zip", token: "-", body: bundle}), http.StatusCreated)
	w := do(t, s, req{method: "POST", path: "/api/uploads/e.zip", token: "-"})
	if w.Code != 409 || !strings.Contains(w.Body.String(), "?overwrite=1") {
		t.Errorf("create over an existing bundle: %d %s", w.Code, w.Body.String())
	}
	w = do(t, s, req{method: "POST", path: "/api/uploads/e.zip?overwrite=1", token: "-"})
	wantStatus(t, w, http.StatusCreated)
	u := decode[uploadAnswerJSON](t, w)
	for n := 1; n <= 5; n++ {
		wantStatus(t, putPart(t, s, u, n, part(bundle, n)), http.StatusOK)
	}
	wantStatus(t, complete(t, s, u, ""), http.StatusOK)
	wantOnlyBundle(t, b, "e.zip")
}

// TestUploadSweep: uploads left unfinished past the TTL are removed by the next
// creation (or DELETE /api/uploads), whether in parts or a single PUT whose Worker
// stopped; a younger one and a listed bundle are kept.
func TestUploadSweep(t *testing.T) {
	bundle := readTestdata(t, "sample-bundle.zip")
	s, b, now := newPartsServer(t)
	old := createUpload(t, s, "old.zip")
	wantStatus(t, putPart(t, s, old, 1, part(bundle, 1)), http.StatusOK)

	// A single PUT whose Worker stops before listing: its listing put never returns.
	hung := &hangingBucket{MemBucket: b, key: "index/hung.zip", entered: make(chan struct{}), release: make(chan struct{})}
	dying := NewServer(Config{Bucket: hung, Tokens: s.cfg.Tokens, Now: b.Now})
	done := make(chan struct{})
	go func() {
		defer close(done)
		do(t, dying, req{method: "PUT", path: "/api/bundles/hung.zip", token: "-", body: bundle})
	}()
	<-hung.entered
	if keys := b.Keys(); !slices.ContainsFunc(keys, func(k string) bool { return strings.HasPrefix(k, "data/hung.zip/") }) {
		t.Fatalf("the stopped upload wrote %v", keys)
	}

	*now = now.Add(DefaultUploadTTL / 2)
	young := createUpload(t, s, "young.zip") // sweeps nothing: nothing is old enough
	if w := do(t, s, req{method: "GET", path: "/api/uploads", token: "-"}); strings.Count(w.Body.String(), `"upload"`) != 3 {
		t.Errorf("uploads in progress: %s", w.Body.String())
	}
	*now = now.Add(DefaultUploadTTL/2 + time.Minute)
	w := do(t, s, req{method: "DELETE", path: "/api/uploads", token: "-"})
	wantStatus(t, w, http.StatusOK)
	if !strings.Contains(w.Body.String(), `"removed":2`) {
		t.Errorf("sweep: %s", w.Body.String())
	}
	if b.Uploads() != 1 {
		t.Errorf("%d multipart uploads, want the young one only", b.Uploads())
	}
	keys := bundleKeys(b)
	if len(keys) != 1 || keys[0] != "uploads/young.zip/"+young.Upload {
		t.Errorf("after the sweep: %v", keys)
	}
	wantStatus(t, putPart(t, s, old, 2, part(bundle, 2)), http.StatusNotFound)
	wantStatus(t, do(t, s, req{method: "DELETE", path: "/api/uploads"}), http.StatusUnauthorized)
	close(hung.release)
	<-done
}

// hangingBucket never returns from a Put of key, as a Worker stopped in the middle.
type hangingBucket struct {
	*MemBucket
	key              string
	entered, release chan struct{}
	once             sync.Once
}

func (h *hangingBucket) Put(ctx context.Context, key string, body io.Reader, size int64, opts PutOptions) (*Object, error) {
	if key == h.key {
		h.once.Do(func() { close(h.entered) })
		<-h.release
		return nil, errors.New("the Worker was stopped")
	}
	return h.MemBucket.Put(ctx, key, body, size, opts)
}
