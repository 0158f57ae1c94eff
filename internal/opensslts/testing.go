package opensslts

import (
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/httpmsg/nethttp"
	"github.com/webkeep/webkeep/shared/tsa"
)

// ForTest starts a Server in a temporary directory of t, closed when t ends.
// Without openssl the test is skipped, except under CI (CI=true), where `make
// test` installs it and its absence fails the test.
func ForTest(t testing.TB) *Server {
	t.Helper()
	if !Available() {
		if os.Getenv("CI") == "true" {
			t.Fatal("openssl is not installed (scripts/setup.sh installs it for make test)")
		}
		t.Skip("openssl is not installed")
	}
	s, err := Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Client returns a tsa.Client of the Server over net/http.
func (s *Server) Client() *tsa.Client {
	return &tsa.Client{URL: s.URL, HTTP: nethttp.Client{Client: &http.Client{Timeout: 30 * time.Second}}}
}
