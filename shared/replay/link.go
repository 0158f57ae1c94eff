package replay

import "net/url"

// Link returns the extension's page that replays pageURL of a session as it was
// captured nearest to ts (14 digits; "" for the latest); without pageURL, the page
// that lists the session's pages to replay.
func Link(session, pageURL, ts string) string {
	v := url.Values{"session": {session}}
	if pageURL != "" {
		v.Set("url", pageURL)
	}
	if ts != "" {
		v.Set("ts", ts)
	}
	return "replay.html?" + v.Encode()
}
