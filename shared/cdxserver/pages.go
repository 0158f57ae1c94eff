package cdxserver

import (
	"fmt"
	"io"
)

// DefaultPageSize is the number of secondary index blocks of a page when the
// query has no pageSize=: pywb's ZipNumIndexSource.DEFAULT_MAX_BLOCKS.
const DefaultPageSize = 10

// NumPages returns the number of pages of a query whose range covers blocks
// secondary index blocks, at pageSize blocks a page (DefaultPageSize when
// pageSize <= 0), as pywb's compute_page_range counts them: none without
// blocks, else (blocks-1)/pageSize + 1.
func NumPages(blocks, pageSize int) int {
	if pageSize <= 0 {
		pageSize = DefaultPageSize
	}
	if blocks <= 0 {
		return 0
	}
	return (blocks-1)/pageSize + 1
}

// CheckPage returns an error wrapping ErrQuery, worded as pywb's, when the
// query's page is not one of pages.
func (q *Query) CheckPage(pages int) error {
	if q.Page < 0 || q.Page >= pages {
		return fmt.Errorf("%w: page %d invalid: first page is 0, last page is %d", ErrQuery, q.Page, pages-1)
	}
	return nil
}

// WriteNumPages writes the answer of showNumPages=true as pywb 2.6.7 writes it
// for every output form (zipnum.py AlwaysJsonResponse): one JSON object,
// without a newline, such as {"pages": 4, "pageSize": 10, "blocks": 38}.
func WriteNumPages(w io.Writer, pages, pageSize, blocks int) error {
	_, err := fmt.Fprintf(w, `{"pages": %d, "pageSize": %d, "blocks": %d}`, pages, pageSize, blocks)
	return err
}
