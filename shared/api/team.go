package api

import "net/url"

// TeamCapture is one capture of a URL in the team archive, from the archive's CDX
// index: an element of GET /api/team/captures.
type TeamCapture struct {
	URL       string `json:"url"`
	Timestamp string `json:"timestamp"` // 14 digits, UTC
	// Status is the HTTP status of a response; empty for a revisit, whose CDX line
	// does not carry it (Mime is then "warc/revisit").
	Status string `json:"status,omitempty"`
	Mime   string `json:"mime"`
	Method string `json:"method,omitempty"` // when not GET
	Digest string `json:"digest,omitempty"`
	Length int64  `json:"length"`
	// Source is the bundle the capture is in, Upload the upload that stored it.
	Source string `json:"source"`
	Upload string `json:"upload,omitempty"`
	// Replay is the extension's page that replays the capture from the team
	// archive (TeamReplayLink).
	Replay string `json:"replay"`
}

// TeamReplayLink returns the extension's page that replays pageURL from the team
// archive, as it was captured nearest to ts (1 to 14 digits; "" for the latest):
// replay.html with team=1, which the replay page reads as "answer from the team
// archive" rather than from a session.
func TeamReplayLink(pageURL, ts string) string {
	v := url.Values{"team": {"1"}, "url": {pageURL}}
	if ts != "" {
		v.Set("ts", ts)
	}
	return "replay.html?" + v.Encode()
}

// TeamBatchCaptureHeader names the capture whose batch the team archive made (GET
// /api/replay/batch), as a query string: source (the bundle), upload, file (its WARC)
// and timestamp. A bundle's upload never changes, so neither does a batch of it.
const TeamBatchCaptureHeader = "X-Webkeep-Batch-Capture"
