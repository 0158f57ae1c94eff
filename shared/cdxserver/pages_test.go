package cdxserver

import (
	"bytes"
	"errors"
	"testing"
)

// TestNumPages reproduces the page counts of pywb 2.6.7's
// pywb/warcserver/index/test/test_zipnum.py (test_blocks_*): the blocks and
// pageSize of its expected answers, and the pages.
func TestNumPages(t *testing.T) {
	for _, tc := range []struct {
		name                    string
		blocks, pageSize, pages int
		json                    string
	}{
		{"test_blocks_def_page_size", 1, 0, 1, `{"pages": 1, "pageSize": 10, "blocks": 1}`},
		{"test_blocks_def_size_2", 38, 0, 4, `{"pages": 4, "pageSize": 10, "blocks": 38}`},
		{"test_blocks_set_page_size", 38, 4, 10, `{"pages": 10, "pageSize": 4, "blocks": 38}`},
		{"test_blocks_secondary_match", 0, 4, 0, `{"pages": 0, "pageSize": 4, "blocks": 0}`},
		{"test_blocks_no_match", 0, 0, 0, `{"pages": 0, "pageSize": 10, "blocks": 0}`},
		{"one page exactly", 10, 10, 1, `{"pages": 1, "pageSize": 10, "blocks": 10}`},
		{"one more", 11, 10, 2, `{"pages": 2, "pageSize": 10, "blocks": 11}`},
	} {
		if got := NumPages(tc.blocks, tc.pageSize); got != tc.pages {
			t.Errorf("%s: NumPages(%d, %d) = %d, want %d", tc.name, tc.blocks, tc.pageSize, got, tc.pages)
		}
		size := tc.pageSize
		if size == 0 {
			size = DefaultPageSize
		}
		var b bytes.Buffer
		if err := WriteNumPages(&b, tc.pages, size, tc.blocks); err != nil || b.String() != tc.json {
			t.Errorf("%s: WriteNumPages = %s, %v; want %s", tc.name, b.String(), err, tc.json)
		}
	}
}

// TestCheckPage follows test_zipnum.py's "invalid page" doctest: page 10 of
// 10 pages is "Page 10 invalid: First Page is 0, Last Page is 9".
func TestCheckPage(t *testing.T) {
	q := &Query{Page: 10}
	err := q.CheckPage(10)
	if !errors.Is(err, ErrQuery) || err.Error() != "cdxserver: invalid CDX query: page 10 invalid: first page is 0, last page is 9" {
		t.Errorf("page 10 of 10: %v", err)
	}
	for _, tc := range []struct{ page, pages int }{{9, 10}, {0, 1}} {
		if err := (&Query{Page: tc.page}).CheckPage(tc.pages); err != nil {
			t.Errorf("page %d of %d: %v", tc.page, tc.pages, err)
		}
	}
	if err := (&Query{}).CheckPage(0); !errors.Is(err, ErrQuery) {
		t.Errorf("page 0 of 0: %v", err)
	}
}
