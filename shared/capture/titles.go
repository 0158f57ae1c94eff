package capture

import (
	"fmt"
	"io"

	"github.com/webkeep/webkeep/shared/recorder"
	"github.com/webkeep/webkeep/shared/replay"
	"github.com/webkeep/webkeep/shared/search"
)

// maxTitleRead bounds what is read of a page's capture to find its title.
const maxTitleRead = 256 << 10

// withTitles gives the pages of sess that have no title the title of their
// capture (see fillTitles), through the session's replay, which keeps the titles
// found until the session grows.
func (rs *replays) withTitles(sess *Session, pages []recorder.Page) []recorder.Page {
	rp, err := rs.of(sess)
	if err != nil {
		return pages
	}
	rp.titlesMu.Lock()
	defer rp.titlesMu.Unlock()
	if rp.titles == nil {
		rp.titles = map[string]string{}
	}
	fillTitles(rp.index, rp.file, pages, rp.titles)
	return pages
}

// titled is withTitles for a session alone (a WACZ being written), its index
// and WARC read for the purpose.
func (s *Session) titled(pages []recorder.Page) ([]recorder.Page, error) {
	lines, err := s.CDXLines()
	if err != nil {
		return nil, err
	}
	ix, err := replay.ReadIndex(lines)
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", s.info.ID, err)
	}
	keys, err := s.store.Keys(sessionKey(s.info.ID, streamWARC+"/"))
	if err != nil {
		return nil, err
	}
	f, err := openChunkedFile(s.store, keys, &byteCache[cachedChunk]{max: chunkCacheBytes})
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", s.info.ID, err)
	}
	fillTitles(ix, f, pages, map[string]string{})
	return pages, nil
}

// fillTitles gives each page that has no title the <title> of its capture, an
// HTML page's: the browser names a page before its title is known, and the
// recorder keeps what it named. found holds the titles already read, by "ts url";
// a page whose capture cannot be read, or is not HTML, keeps no title.
func fillTitles(ix *replay.Index, f replay.File, pages []recorder.Page, found map[string]string) {
	for i := range pages {
		p := &pages[i]
		if p.Title != "" || p.Restored {
			continue
		}
		ts := p.TS.UTC().Format("20060102150405")
		key := ts + " " + p.URL
		title, ok := found[key]
		if !ok {
			title = pageTitle(ix, f, p.URL, ts)
			found[key] = title
		}
		p.Title = title
	}
}

// pageTitle reads the title of the GET capture of url nearest ts.
func pageTitle(ix *replay.Index, f replay.File, url, ts string) string {
	m, ok := ix.Lookup(&replay.Request{Method: "GET", URL: url}, ts)
	if !ok || m.Approximate {
		return ""
	}
	resp, err := ix.Open(f, m.Capture)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	ct := resp.Header.Get("Content-Type")
	if search.KindOf(ct) != search.KindHTML || resp.Encoded() {
		return ""
	}
	d, _ := search.Extract(ct, io.LimitReader(resp.Body, maxTitleRead), 1)
	return d.Title
}
