package teamarchive

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"github.com/webkeep/webkeep/shared/cdxserver"
	"net/http"
	"strings"
	"testing"

	"github.com/webkeep/webkeep/shared/urldb"
)

// TestServerURLDB: a round trip of real wwt_url_database files, and the ETag rules
// that keep two writers from overwriting each other.
func TestServerURLDB(t *testing.T) {
	s, _ := newTestServer(t, Config{MaxDomainFileSize: 64 << 10})
	binder := readTestdata(t, "urldb/binder.wwt-forum.org.yaml")
	web := readTestdata(t, "urldb/web.wwtassets.org.yaml")

	w := do(t, s, req{method: "PUT", path: "/api/urldb/binder.wwt-forum.org.yaml", token: "-", body: binder})
	wantStatus(t, w, http.StatusCreated)
	etag1 := w.Header().Get("ETag")
	if !strings.HasPrefix(etag1, `"`) || !strings.Contains(w.Body.String(), `"records":9`) {
		t.Errorf("created: ETag %q, %s", etag1, w.Body.String())
	}
	wantStatus(t, do(t, s, req{method: "PUT", path: "/api/urldb/web.wwtassets.org.yaml", token: "-", body: web, header: map[string]string{"If-None-Match": "*"}}), http.StatusCreated)

	// Read back byte for byte, conditional GET.
	w = do(t, s, req{method: "GET", path: "/api/urldb/binder.wwt-forum.org.yaml", token: "-"})
	wantStatus(t, w, http.StatusOK)
	if !bytes.Equal(w.Body.Bytes(), binder) || w.Header().Get("ETag") != etag1 {
		t.Errorf("read back differs or ETag %q != %q", w.Header().Get("ETag"), etag1)
	}
	wantStatus(t, do(t, s, req{method: "GET", path: "/api/urldb/binder.wwt-forum.org.yaml", token: "-", header: map[string]string{"If-None-Match": etag1}}), http.StatusNotModified)

	// Writer A and writer B both read etag1; A writes, B's write is refused.
	edited := append(bytes.Clone(binder), "---\n_path: /new\ncontent-type: text/html\n"...)
	w = do(t, s, req{method: "PUT", path: "/api/urldb/binder.wwt-forum.org.yaml", token: "-", body: edited, header: map[string]string{"If-Match": etag1}})
	wantStatus(t, w, http.StatusOK)
	etag2 := w.Header().Get("ETag")
	w = do(t, s, req{method: "PUT", path: "/api/urldb/binder.wwt-forum.org.yaml", token: "-", body: binder, header: map[string]string{"If-Match": etag1}})
	wantStatus(t, w, http.StatusPreconditionFailed)
	if w.Header().Get("ETag") != etag2 || etag2 == etag1 {
		t.Errorf("412 carries ETag %q, want the current %q", w.Header().Get("ETag"), etag2)
	}
	// Without a precondition an existing file is not replaced; If-None-Match * neither.
	wantStatus(t, do(t, s, req{method: "PUT", path: "/api/urldb/binder.wwt-forum.org.yaml", token: "-", body: binder}), http.StatusPreconditionRequired)
	wantStatus(t, do(t, s, req{method: "PUT", path: "/api/urldb/binder.wwt-forum.org.yaml", token: "-", body: binder, header: map[string]string{"If-None-Match": "*"}}), http.StatusPreconditionFailed)
	wantStatus(t, do(t, s, req{method: "PUT", path: "/api/urldb/binder.wwt-forum.org.yaml", token: "-", body: binder, header: map[string]string{"If-Match": "W/" + etag2}}), http.StatusBadRequest)

	// Validation with the same loader: errors name the file and the line.
	for _, tc := range []struct {
		body   string
		status int
		want   string
	}{
		{"---\nhttps: maybe\n---\n_path: /\n", http.StatusUnprocessableEntity, "binder.wwt-forum.org.yaml"},
		{"---\n{}\n---\n_path: /a\n", http.StatusUnprocessableEntity, "yaml:4: content-type: record /a has no content-type"},
		{"---\n[unclosed\n", http.StatusUnprocessableEntity, "yaml:1: did not find expected"},
		{strings.Repeat("#", 65<<10), http.StatusRequestEntityTooLarge, "limit"},
	} {
		w := do(t, s, req{method: "PUT", path: "/api/urldb/binder.wwt-forum.org.yaml", token: "-", body: []byte(tc.body), header: map[string]string{"If-Match": etag2}})
		if w.Code != tc.status || !strings.Contains(w.Body.String(), tc.want) {
			t.Errorf("%.30q: %d %s; want %d with %q", tc.body, w.Code, w.Body.String(), tc.status, tc.want)
		}
	}
	wantStatus(t, do(t, s, req{method: "PUT", path: "/api/urldb/..%2Fx.yaml", token: "-", body: binder}), http.StatusBadRequest)
	wantStatus(t, do(t, s, req{method: "PUT", path: "/api/urldb/x.yaml", body: binder}), http.StatusUnauthorized)

	// The whole database as a zip that urldb.LoadZip reads.
	w = do(t, s, req{method: "GET", path: "/api/urldb", token: "-"})
	wantStatus(t, w, http.StatusOK)
	dbTag := w.Header().Get("ETag")
	db, err := urldb.LoadZip(bytes.NewReader(w.Body.Bytes()), int64(w.Body.Len()))
	if err != nil {
		t.Fatal(err)
	}
	zr, _ := zip.NewReader(bytes.NewReader(w.Body.Bytes()), int64(w.Body.Len()))
	if len(zr.File) != 2 || zr.File[0].Name != "binder.wwt-forum.org.yaml" || db == nil {
		t.Errorf("zip holds %d files", len(zr.File))
	}
	wantStatus(t, do(t, s, req{method: "GET", path: "/api/urldb", token: "-", header: map[string]string{"If-None-Match": dbTag}}), http.StatusNotModified)
	w = do(t, s, req{method: "GET", path: "/api/urldb?format=json", token: "-"})
	var list struct{ Domains []DomainInfo }
	if err := json.Unmarshal(w.Body.Bytes(), &list); err != nil || len(list.Domains) != 2 || list.Domains[0].ETag != etag2 || list.Domains[0].Uploader != "alice" {
		t.Errorf("json listing %s (%v)", w.Body.String(), err)
	}
}

func TestStatusOf(t *testing.T) {
	for err, want := range map[error]int{
		ErrName: 400, cdxserver.ErrQuery: 400, ErrNotExist: 404, ErrPrecondition: 412, errors.New("x"): 500,
	} {
		if got := statusOf(err); got != want {
			t.Errorf("statusOf(%v) = %d, want %d", err, got, want)
		}
	}
}
