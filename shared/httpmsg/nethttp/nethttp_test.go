package nethttp_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/webkeep/webkeep/shared/httpmsg"
	"github.com/webkeep/webkeep/shared/httpmsg/nethttp"
)

// TestABodyNotAllowedIsRefusedAsInTheWorker: a handler served by net/http gets
// httpmsg.ErrBodyNotAllowed for a body written to a 204 or 304, as it does served in
// the service worker (wasm/jsglue), and writes a 200's body.
func TestABodyNotAllowedIsRefusedAsInTheWorker(t *testing.T) {
	for _, status := range []int{204, 304, 200} {
		got := make(chan error, 1)
		srv := httptest.NewServer(nethttp.Handler(httpmsg.HandlerFunc(func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
			w.WriteHeader(status)
			_, err := io.WriteString(w, "body")
			got <- err
		})))
		resp, err := http.Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		srv.Close()
		err = <-got
		if want := httpmsg.StatusHasBody(status); want && err != nil || !want && err != httpmsg.ErrBodyNotAllowed {
			t.Errorf("a body written to a %d: %v", status, err)
		}
	}
}
