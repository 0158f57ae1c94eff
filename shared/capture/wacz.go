package capture

import (
	"bytes"
	"io"
	"slices"

	"github.com/webkeep/webkeep/shared/cdx"
	"github.com/webkeep/webkeep/shared/wacz"
)

// WriteWACZ writes the session as a WACZ 1.1.1 file for ReplayWeb.page: its WARC
// converted to WARC/1.1 (replay tools read no 0.9) and streamed into the zip, indexed
// as it passes, and its pages.
//
// The index uses the pywb >= 2.8 dialect: ReplayWeb.page computes the keys it looks
// POSTs up by with warcio.js, which renders JSON bodies that way.
func (s *Session) WriteWACZ(w io.Writer) error {
	info := s.Info()
	zw := wacz.NewWriter(w, wacz.Options{
		Title:    info.Name,
		Created:  info.Created,
		Software: "webkeep",
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
		lines [][]byte
		err   error
	}
	done := make(chan indexed, 1)
	go func() {
		var out indexed
		ix := &cdx.Indexer{Dialect: cdx.WarcioJS}
		out.err = ix.Index(indexR, name, func(e *cdx.Entry) error {
			out.lines = append(out.lines, e.AppendLine(nil, cdx.WarcioJS))
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
	if err != nil {
		return err
	}
	wp := make([]wacz.Page, 0, len(pages))
	for _, p := range pages {
		wp = append(wp, wacz.Page{ID: p.ID, URL: p.URL, TS: p.TS, Title: p.Title})
	}
	if err := zw.AddPages(wp); err != nil {
		return err
	}
	return zw.Close()
}
