package capture

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/webkeep/webkeep/shared/httpmsg"
)

// fetchingHost is a host that makes the service's HTTP requests, as the extension's
// does with the browser's fetch: it records them and fails each.
type fetchingHost struct {
	*fakeHost
	urls []string
}

func (h *fetchingHost) Do(req *httpmsg.Request) (*httpmsg.Response, error) {
	h.urls = append(h.urls, req.Method+" "+req.URL.String())
	return nil, errors.New("the browser could not reach it")
}

func TestTheHostMakesTheServicesRequests(t *testing.T) {
	host := &fetchingHost{fakeHost: newFakeHost()}
	svc, err := NewService(NewMemStore(), host)
	if err != nil {
		t.Fatal(err)
	}
	set := svc.settings.get()
	set.TeamEndpoint, set.TeamToken = "https://team.example", "s3cret"
	if _, err := svc.settings.update(set); err != nil {
		t.Fatal(err)
	}
	_, err = svc.team.loadDatabase(context.Background())
	if err == nil || !strings.Contains(err.Error(), "the browser could not reach it") {
		t.Errorf("error %v, want the host's", err)
	}
	if want := []string{"GET https://team.example/api/urldb"}; strings.Join(host.urls, "|") != strings.Join(want, "|") {
		t.Errorf("the host was asked for %q, want %q", host.urls, want)
	}
	if svc.http.checkClient() != host || svc.http.client(true) != host {
		t.Error("Check all or the team archive does not use the host's client")
	}
}
