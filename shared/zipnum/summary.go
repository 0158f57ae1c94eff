package zipnum

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/webkeep/webkeep/shared/cdx"
)

// A SummaryLine is one line of a summary (pywb's .idx/.summary, Common Crawl's
// cluster.idx): "<FirstKey>\t<Part>\t<Offset>\t<Length>[\t<Number>]".
type SummaryLine struct {
	BlockInfo        // Lines is 0: summaries do not record it
	Part      string // name of the blocks file, resolved by pywb's .loc file
	// Number is the 1-based position of the line in the whole summary, across
	// parts (pywb's "lineno", which it uses to count pages); 0 when absent.
	Number int
}

// String returns the summary line, without its newline; Number is left out
// when it is 0.
func (l SummaryLine) String() string {
	s := fmt.Sprintf("%s\t%s\t%d\t%d", l.FirstKey, l.Part, l.Offset, l.Length)
	if l.Number > 0 {
		s += "\t" + strconv.Itoa(l.Number)
	}
	return s
}

// check reports what makes l unwritable or unreadable, naming the field.
func (l SummaryLine) check() error {
	switch {
	case l.FirstKey == "" || strings.ContainsAny(l.FirstKey, "\t\r\n"):
		return fmt.Errorf("%w: field 1 (key) %.60q is empty or holds a tab or newline", ErrSummary, l.FirstKey)
	case l.Part == "" || strings.ContainsAny(l.Part, "\t\r\n"):
		return fmt.Errorf("%w: field 2 (part) %.60q is empty or holds a tab or newline", ErrSummary, l.Part)
	case l.Offset < 0:
		return fmt.Errorf("%w: field 3 (offset) %d is negative", ErrSummary, l.Offset)
	case l.Length <= 0:
		return fmt.Errorf("%w: field 4 (length) %d is not positive", ErrSummary, l.Length)
	case l.Number < 0:
		return fmt.Errorf("%w: field 5 (number) %d is negative", ErrSummary, l.Number)
	}
	return nil
}

// WriteSummary writes one summary line for each of blocks, all in the blocks
// file named part, numbered from 1. To number the lines of several parts
// continuously, write SummaryLine.String for each instead. Errors name the
// block (from 0) and wrap ErrSummary or ErrOrder.
func WriteSummary(w io.Writer, part string, blocks []BlockInfo) error {
	bw := bufio.NewWriter(w)
	for i, b := range blocks {
		l := SummaryLine{BlockInfo: b, Part: part, Number: i + 1}
		if err := l.check(); err != nil {
			return fmt.Errorf("zipnum: block %d: %w", i, err)
		}
		if i > 0 && b.FirstKey < blocks[i-1].FirstKey {
			return fmt.Errorf("zipnum: block %d: %w: key %.60q", i, ErrOrder, b.FirstKey)
		}
		bw.WriteString(l.String())
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// ReadSummary reads a summary: lines of 4 or 5 tab-separated fields, sorted by
// their key (a final newline and CRLF line ends are accepted). Errors name the
// line number and the field and wrap ErrSummary, or ErrOrder for a key that
// sorts before the previous line's.
func ReadSummary(r io.Reader) ([]SummaryLine, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), cdx.MaxLineLength)
	var lines []SummaryLine
	for n := 1; sc.Scan(); n++ {
		l, err := parseSummaryLine(sc.Text())
		if err == nil && n > 1 && l.FirstKey < lines[n-2].FirstKey {
			err = fmt.Errorf("%w: key %.60q sorts before the previous line's", ErrOrder, l.FirstKey)
		}
		if err != nil {
			return nil, fmt.Errorf("zipnum: summary line %d: %w", n, err)
		}
		lines = append(lines, l)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			err = fmt.Errorf("%w: %w", ErrSummary, err)
		}
		return nil, fmt.Errorf("zipnum: summary line %d: %w", len(lines)+1, err)
	}
	return lines, nil
}

// parseSummaryLine parses one summary line without its line end.
func parseSummaryLine(s string) (SummaryLine, error) {
	f := strings.Split(s, "\t")
	if len(f) != 4 && len(f) != 5 {
		return SummaryLine{}, fmt.Errorf("%w: %d tab-separated fields, want 4 or 5", ErrSummary, len(f))
	}
	l := SummaryLine{BlockInfo: BlockInfo{FirstKey: f[0]}, Part: f[1]}
	var err error
	if l.Offset, err = strconv.ParseInt(f[2], 10, 64); err != nil || f[2][0] == '+' {
		return l, fmt.Errorf("%w: field 3 (offset) %.30q is not an integer", ErrSummary, f[2])
	}
	if l.Length, err = strconv.ParseInt(f[3], 10, 64); err != nil || f[3][0] == '+' {
		return l, fmt.Errorf("%w: field 4 (length) %.30q is not an integer", ErrSummary, f[3])
	}
	if len(f) == 5 {
		if l.Number, err = strconv.Atoi(f[4]); err != nil || f[4][0] == '+' || l.Number == 0 {
			return l, fmt.Errorf("%w: field 5 (number) %.30q is not a positive integer", ErrSummary, f[4])
		}
	}
	return l, l.check()
}

// BlocksFor returns the half-open range [first, last) of blocks, sorted by
// FirstKey, that can hold lines in the key range [start, end); see Search.
func BlocksFor(blocks []BlockInfo, start, end string) (first, last int) {
	return Search(len(blocks), func(i int) string { return blocks[i].FirstKey }, start, end)
}

// Search returns the half-open range [first, last) of the n blocks whose first
// keys firstKey(i) returns, sorted, that can hold a line L with start <= L < end
// in byte order; an empty end means no upper bound. Each first key must be a
// prefix of its block's first line, as the Writer's and pywb's are.
//
// As in pywb, the range begins one block before the first whose key is >=
// start, since lines equal to or after start may end the previous block; it
// reaches further back past keys that are prefixes of start, whose first lines
// may themselves sort after start. For an empty key range it returns first ==
// last.
func Search(n int, firstKey func(i int) string, start, end string) (first, last int) {
	// j: the last block whose first line surely sorts before start, so that
	// blocks before j hold only lines < start.
	j := sort.Search(n, func(i int) bool { return firstKey(i) >= start }) - 1
	for j >= 0 && strings.HasPrefix(start, firstKey(j)) {
		k := firstKey(j)
		j = sort.Search(j, func(i int) bool { return firstKey(i) >= k }) - 1
	}
	first = max(j, 0)
	last = n
	if end != "" {
		last = sort.Search(n, func(i int) bool { return firstKey(i) >= end })
	}
	if last <= first || (end != "" && start >= end) {
		return first, first
	}
	return first, last
}
