package capture

import (
	"bytes"
	"context"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/webkeep/webkeep/shared/cdx"
	"github.com/webkeep/webkeep/shared/wacz"
	"github.com/webkeep/webkeep/shared/warc"
)

// WriteWACZ writes the session as a WACZ 1.1.1 file for ReplayWeb.page: its WARC
// converted to WARC/1.1 (replay tools read no 0.9) and streamed into the zip, indexed
// as it passes, and its pages.
//
// The index is in the warcio.js dialect, the keys ReplayWeb.page computes when a
// replayed page sends a POST or PUT. Each page is listed at the time of the capture it
// was made from, and a page that answered a POST or PUT under that capture's key, so
// that opening it from ReplayWeb.page's page list shows what was recorded.
func (s *Session) WriteWACZ(w io.Writer) error {
	return s.WriteSignedWACZ(context.Background(), w, nil)
}

// WriteSignedWACZ is WriteWACZ, the WACZ signed by authority unless it is nil: its
// datapackage-digest.json holds the signedData of wacz-auth 0.1.0, which
// ReplayWeb.page and `webkeep wacz verify` check. ctx bounds the signing (a
// timestamp authority or the team archive asked over the network).
func (s *Session) WriteSignedWACZ(ctx context.Context, w io.Writer, authority wacz.Authority) error {
	info := s.Info()
	zw := wacz.NewWriter(w, wacz.Options{
		Title:     info.Name,
		Created:   info.Created,
		Software:  "webkeep",
		Authority: authority,
		Context:   ctx,
	})
	name := s.BaseName() + ".warc.gz"
	warcR, warcW := io.Pipe()
	indexR, indexW := io.Pipe()
	go func() {
		err := s.WriteWARC11(io.MultiWriter(warcW, indexW))
		warcW.CloseWithError(err)
		indexW.CloseWithError(err)
	}()
	type indexed struct {
		lines    [][]byte
		captures pageCaptures
		err      error
	}
	done := make(chan indexed, 1)
	go func() {
		var out indexed
		ix := &cdx.Indexer{Dialect: cdx.WarcioJS}
		out.captures = pageCaptures{}
		out.err = ix.Index(indexR, name, func(e *cdx.Entry) error {
			if !replayable[e.Type] {
				return nil
			}
			out.lines = append(out.lines, e.AppendLine(nil, cdx.WarcioJS))
			out.captures.add(e)
			return nil
		})
		io.Copy(io.Discard, indexR) // let the converter finish whatever happens
		done <- out
	}()
	err := zw.AddWARC(name, warcR)
	warcR.CloseWithError(err)
	idx := <-done
	if err != nil {
		return err
	}
	if idx.err != nil {
		return idx.err
	}
	slices.SortStableFunc(idx.lines, bytes.Compare)
	if err := zw.AddIndex(bytes.Join(idx.lines, nil)); err != nil {
		return err
	}
	pages, err := s.Pages()
	if err == nil {
		pages, err = s.titled(pages)
	}
	if err != nil {
		return err
	}
	wp := make([]wacz.Page, 0, len(pages))
	for _, p := range pages {
		if p.Restored {
			// Shown again from the back/forward cache: no capture of its own to open
			// (its earlier load, if recorded, is listed).
			continue
		}
		u, ts := idx.captures.of(p.URL, p.TS)
		wp = append(wp, wacz.Page{ID: p.ID, URL: u, TS: ts, Title: p.Title})
	}
	if err := zw.AddPages(wp); err != nil {
		return err
	}
	return zw.Close()
}

// replayable are the record types the WACZ index lists. ReplayWeb.page registers
// every line as a capture of its URL: a note (metadata) or a segment after the first
// (continuation) would shadow the response of its URL and time.
var replayable = map[string]bool{warc.TypeResponse: true, warc.TypeRevisit: true, warc.TypeResource: true}

// pageCaptures holds, by URL, the captures of an index that a page can be made from:
// responses and revisits.
type pageCaptures map[string][]pageCapture

type pageCapture struct {
	ts   time.Time
	page string // the URL ReplayWeb.page looks the capture up under
}

func (c pageCaptures) add(e *cdx.Entry) {
	ts, err := time.Parse("20060102150405", e.Timestamp)
	if err != nil {
		return
	}
	page := e.URL
	if e.Method == "POST" || e.Method == "PUT" {
		page = cdx.ReplayWebPageURL(e.URL, e.Method, e.RequestBody, e.Mime)
	}
	c[e.URL] = append(c[e.URL], pageCapture{ts: ts, page: page})
}

// of returns the URL and time under which a page visited at ts is listed: those of
// its capture, the last one of its URL made at most a second after ts (a record's
// time is that of its request, in whole seconds), or the first one after. A page
// with no capture keeps its own.
func (c pageCaptures) of(pageURL string, ts time.Time) (string, time.Time) {
	u, _, _ := strings.Cut(pageURL, "#")
	var best *pageCapture
	for i, pc := range c[u] {
		switch {
		case best == nil:
			best = &c[u][i]
		case !pc.ts.After(ts.Add(time.Second)):
			if best.ts.After(ts.Add(time.Second)) || pc.ts.After(best.ts) {
				best = &c[u][i]
			}
		case best.ts.After(ts.Add(time.Second)) && pc.ts.Before(best.ts):
			best = &c[u][i]
		}
	}
	if best == nil {
		return pageURL, ts
	}
	return best.page, best.ts
}
