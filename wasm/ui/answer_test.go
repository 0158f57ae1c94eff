package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/webkeep/webkeep/shared/api"
)

func TestDecodeAnswer(t *testing.T) {
	var s api.SessionInfo
	if err := decodeAnswer("GET", "/api/sessions/a", 200, `{"id":"a","name":"n","records":3}`, &s); err != nil || s.Records != 3 {
		t.Errorf("200: %+v, %v", s, err)
	}
	if err := decodeAnswer("DELETE", "/api/sessions/a", 204, "", &s); err != nil {
		t.Errorf("204: %v", err)
	}
	if err := decodeAnswer("GET", "/api/status", 200, "<html>", &s); err == nil || !strings.Contains(err.Error(), "GET /api/status: unexpected answer") {
		t.Errorf("not JSON: %v", err)
	}
	for _, tc := range []struct {
		status int
		body   string
		want   string
	}{
		// docs/api.md: errors are {"error": "what went wrong and what to do"}.
		{409, `{"error":"session s is being recorded: stop recording first"}`, "session s is being recorded: stop recording first"},
		{404, `404 page not found`, "DELETE /api/x: not found: the item is gone, or this version of the core does not offer it; reload the page"},
		{500, ``, "DELETE /api/x: the core answered 500; reload the page and try again"},
	} {
		err := decodeAnswer("DELETE", "/api/x", tc.status, tc.body, nil)
		var ae *apiError
		if !errors.As(err, &ae) || ae.Status != tc.status || err.Error() != tc.want {
			t.Errorf("%d %q: %v, want %q", tc.status, tc.body, err, tc.want)
		}
	}
}
