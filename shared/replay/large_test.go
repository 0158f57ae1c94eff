package replay

import (
	"bytes"
	"fmt"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/webkeep/webkeep/shared/httpmsg"
	"github.com/webkeep/webkeep/shared/httpmsg/nethttp"
	"github.com/webkeep/webkeep/shared/warc"
)

// TestNavigationTypes: what Chromium does with a navigation's answer by its media
// type (blink's mime_util.cc, and its PDF viewer), which a body too large for one
// answer is replayed as: saved, shown as text, or shown otherwise.
func TestNavigationTypes(t *testing.T) {
	tests := []struct {
		mediaType     string
		attachment    bool
		download, txt bool
	}{
		{"text/plain", false, false, true},
		{"text/plain", true, true, true}, // an attachment is saved whatever its type
		{"text/xml", false, false, true},
		{"text/javascript", false, false, true},
		{"text/markdown", false, false, true},
		{"application/json", false, false, true},
		{"application/ld+json", false, false, true},
		{"application/javascript", false, false, true},
		{"application/x-javascript", false, false, true},
		{"application/xml", false, false, true},
		{"application/rss+xml", false, false, true},
		{"text/html", false, false, false},
		{"application/xhtml+xml", false, false, false},
		{"image/svg+xml", false, false, false},
		{"image/png", false, false, false},
		{"image/avif", false, false, false},
		{"application/pdf", false, false, false},
		{"multipart/related", false, false, false},
		{"video/webm", false, false, false},
		{"audio/mpeg", false, false, false},
		{"", false, false, false}, // sniffed
		{"text/csv", false, true, false},
		{"text/tab-separated-values", false, true, false},
		{"text/calendar", false, true, false},
		{"text/vcard", false, true, false},
		{"text/rtf", false, true, false},
		{"image/tiff", false, true, false},
		{"application/soap+xml", false, true, false},
		{"application/zip", false, true, false},
		{"application/octet-stream", false, true, false},
	}
	for _, tt := range tests {
		h := httpmsg.Header{}
		if tt.attachment {
			h.Set("Content-Disposition", `attachment; filename="x"`)
		}
		if got := download(h, tt.mediaType); got != tt.download {
			t.Errorf("download(%q, attachment %v) = %v, want %v", tt.mediaType, tt.attachment, got, tt.download)
		}
		if got := shownAsText(tt.mediaType); got != tt.txt {
			t.Errorf("shownAsText(%q) = %v, want %v", tt.mediaType, got, tt.txt)
		}
	}
}

// TestServePDF: the tab's own navigation to a PDF gets it, marked for the replay bar
// to attach its debugger again (Chromium's PDF viewer takes it off the tab), without
// Accept-Ranges (the viewer's range requests would come while no debugger is on); a
// frame's request, or any not a script's, gets the "not replayed" page, withheld; the
// tab's navigation to one too large to carry gets the page that reads it as a stream
// into a Blob the tab is taken to (viewerPage); a script's fetch() of it gets it, and
// so does a navigation to one the browser saves (an attachment).
func TestServePDF(t *testing.T) {
	const body = "%PDF-1.4 small"
	resp := func(header string) string {
		return "HTTP/1.1 200 OK\r\nContent-Type: application/pdf\r\nAccept-Ranges: bytes\r\n" + header + "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
	}
	ix, file := archive(t, warc.V11, []exchange{
		{at: "20240101000001", method: "GET", url: "http://example.com/report.pdf", resp: resp("")},
		{at: "20240101000002", method: "GET", url: "http://example.com/saved.pdf", resp: resp("Content-Disposition: attachment\r\n")},
	})
	f := NewFile(bytes.NewReader(file), int64(len(file)))
	for _, tt := range []struct {
		url, resourceType string
		tab               bool
		max               int64
		status            int
		withheld, shown   bool
		viewed            bool // given the page that reads it into a Blob (viewerPage)
		why               string
	}{
		{"http://example.com/report.pdf", "Document", true, 0, 200, false, true, false, ""},
		{"http://example.com/report.pdf", "Document", true, 8, 200, false, false, true, "PDF viewer from a copy the page keeps"},
		{"http://example.com/report.pdf", "Document", false, 0, 404, true, false, false, "a PDF in a frame"},
		{"http://example.com/report.pdf", "Other", true, 0, 404, true, false, false, "a PDF in a frame"}, // any request not a script's (an <embed>'s)
		{"http://example.com/report.pdf", "Fetch", false, 0, 200, false, false, false, ""},
		{"http://example.com/report.pdf", "XHR", true, 0, 200, false, false, false, ""},
		{"http://example.com/saved.pdf", "Document", false, 0, 200, false, false, false, ""},
	} {
		name := fmt.Sprintf("%s %s (tab %v, max %d)", tt.resourceType, tt.url, tt.tab, tt.max)
		r, err := (&PausedRequest{Method: "GET", URL: tt.url, ResourceType: tt.resourceType, Tab: tt.tab, Headers: map[string]string{}}).Request()
		if err != nil {
			t.Fatal(err)
		}
		ix.MaxBody = tt.max
		rec := httptest.NewRecorder()
		a, err := ix.Serve(nethttp.ResponseWriter(rec), r, "", f)
		if err != nil || a.Status != tt.status || a.Withheld != tt.withheld || a.TakesDebugger != tt.shown || a.ShowsPDF != tt.viewed {
			t.Errorf("%s: status %d withheld %v takes the debugger %v shows the PDF %v, %v", name, a.Status, a.Withheld, a.TakesDebugger, a.ShowsPDF, err)
		}
		if tt.withheld && (!strings.Contains(a.Why, tt.why) || !strings.Contains(rec.Body.String(), "Not replayed")) {
			t.Errorf("%s: why %q, page %q", name, a.Why, rec.Body)
		}
		// A frame's page links the PDF for the whole tab, which shows it.
		link := `<a id="webkeep-show-pdf" href="` + tt.url + `" target="_top">`
		if linked := strings.Contains(rec.Body.String(), link); linked != (tt.why == "a PDF in a frame") {
			t.Errorf("%s: link to show it in the tab %v, page %q", name, linked, rec.Body)
		}
		switch {
		case tt.viewed && (!strings.Contains(a.Why, tt.why) || !strings.Contains(rec.Body.String(), `("pdf")`)):
			t.Errorf("%s: why %q, page %q", name, a.Why, rec.Body)
		case !tt.withheld && !tt.viewed && rec.Body.String() != body:
			t.Errorf("%s: body %q", name, rec.Body)
		}
		ranges := slices.ContainsFunc(a.Headers, func(h HeaderField) bool { return h.Name == "Accept-Ranges" })
		if !tt.withheld && !tt.viewed && ranges == tt.shown {
			t.Errorf("%s: Accept-Ranges given %v (headers %v)", name, ranges, a.Headers)
		}
	}
	ix.MaxBody = 0
	// Nor is it in a page's batch, which answers the navigation before the core.
	_, answers := ix.Batch("http://example.com/report.pdf", "", f, func(string) bool { return false })
	if len(answers) != 1 || answers[0].URL != "http://example.com/saved.pdf" {
		t.Errorf("the PDF's batch holds %+v, not the one saved alone", answers)
	}
}
