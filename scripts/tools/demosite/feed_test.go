package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// The feed serves feedTotal items in all, feedPage at a time, each with a srcset of
// every width, and ends with a page marked last.
func TestFeedPages(t *testing.T) {
	srv := httptest.NewServer(newSite(1 << 10))
	defer srv.Close()
	seen := map[int]bool{}
	for page := 1; ; page++ {
		resp, err := http.Get(srv.URL + "/feed/items?page=" + strconv.Itoa(page))
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Items []struct {
				N      int    `json:"n"`
				Srcset string `json:"srcset"`
			} `json:"items"`
			Last bool `json:"last"`
		}
		err = json.NewDecoder(resp.Body).Decode(&got)
		resp.Body.Close()
		if err != nil || len(got.Items) != feedPage {
			t.Fatalf("page %d: %v, %d items", page, err, len(got.Items))
		}
		for _, it := range got.Items {
			seen[it.N] = true
			if strings.Count(it.Srcset, "w,")+1 != len(feedWidths) {
				t.Errorf("item %d: srcset %q", it.N, it.Srcset)
			}
		}
		if got.Last {
			break
		}
		if page > feedTotal {
			t.Fatal("no last page")
		}
	}
	if len(seen) != feedTotal-feedPage || !seen[feedPage+1] || !seen[feedTotal] {
		t.Errorf("items loaded: %d", len(seen))
	}
	for path, want := range map[string]int{"/feed": http.StatusOK, "/more": http.StatusOK, "/feed/items?page=6": http.StatusNotFound, "/more/items?from=20": http.StatusNotFound} {
		r, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if r.StatusCode != want {
			t.Errorf("%s: %d, want %d", path, r.StatusCode, want)
		}
	}
}
