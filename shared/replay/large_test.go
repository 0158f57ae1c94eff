package replay

import (
	"testing"

	"github.com/webkeep/webkeep/shared/httpmsg"
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
