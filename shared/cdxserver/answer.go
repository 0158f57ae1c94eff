package cdxserver

import (
	"bytes"
	"fmt"
	"io"
	"iter"
	"slices"
	"sort"
	"strings"

	"github.com/webkeep/webkeep/internal/pyfmt"
	"github.com/webkeep/webkeep/shared/cdx"
)

// A Line is one CDXJ line ("urlkey timestamp {json}", without its newline) with
// the name of the bundle it came from. Source is added to the output as
// "source", as pywb's aggregator adds it; an empty Source is not added.
type Line struct {
	Text   []byte
	Source string
}

// Compare orders lines as Answer wants them in ascending order: by "urlkey
// timestamp", then by Source, then by the whole text.
func Compare(a, b Line) int {
	if c := bytes.Compare(sortKey(a.Text), sortKey(b.Text)); c != 0 {
		return c
	}
	if c := strings.Compare(a.Source, b.Source); c != 0 {
		return c
	}
	return bytes.Compare(a.Text, b.Text)
}

// sortKey returns the "urlkey timestamp" of a line.
func sortKey(t []byte) []byte {
	i := bytes.IndexByte(t, ' ')
	if i < 0 {
		return t
	}
	if j := bytes.IndexByte(t[i+1:], ' '); j >= 0 {
		return t[:i+1+j]
	}
	return t
}

// Answer reads lines in the order Descending asks (ascending by Compare, or
// descending), applies the query's range, from and to, filters, collapse,
// closest sorting and limit as pywb's process_cdx does, and writes the output.
// It stops reading once the limit is reached, except for closest=, which reads
// the whole range and keeps the Limit nearest lines. Memory is bounded by the
// limit: the lines kept are copied, so the iterator may reuse Line.Text.
// Nothing is written when reading fails. An error of lines is returned as it
// is; that of a malformed line names its Source and wraps cdx.ErrLine.
//
// Collapsing is that of the lines in ascending order, as in pywb, which sorts
// after collapsing: with sort=reverse, of each run of equal values the line
// first in ascending order is the one kept.
func (q *Query) Answer(w io.Writer, lines iter.Seq2[Line, error]) error {
	desc := q.Descending()
	collapse := q.collapsers()
	prev, seen := make([]string, len(collapse)), make([]bool, len(collapse))
	var (
		out, pending []byte // pending: the last line of a descending run
		pendingKey   string
		hasPending   bool
		n            int // lines in out
		near         []nearLine
		target       int64
	)
	if q.Closest != "" {
		target = timestampToSec(q.Closest)
	}
	full := func() bool { return q.Limit > 0 && n >= q.Limit }
	for l, err := range lines {
		if err != nil {
			return err
		}
		if len(bytes.TrimSpace(l.Text)) == 0 {
			continue
		}
		below, above := string(l.Text) < q.Start, string(l.Text) >= q.End
		if desc && below || !desc && above {
			break
		} else if below || above {
			continue
		}
		key, ts, js, err := cdx.SplitLine(l.Text)
		if err != nil {
			return fmt.Errorf("cdxserver: %s: %w", l.Source, err)
		}
		if q.From != "" && string(ts) < q.From || q.To != "" && string(ts) > q.To {
			continue
		}
		r := &record{line: l, key: key, ts: ts, js: js}
		if !q.pass(r) {
			continue
		}
		switch {
		case desc && len(collapse) == 1:
			if v := collapse[0](r); !hasPending || v != pendingKey {
				if hasPending {
					out, n = append(out, pending...), n+1
				}
				pendingKey, hasPending = v, true
			}
			pending = q.appendLine(pending[:0], r)
		case !keep(collapse, prev, seen, r):
		case q.Closest != "":
			d := timestampToSec(string(ts)) - target
			d = max(d, -d)
			// After the lines as near (pywb's bisect_right), so ties keep their order.
			i := sort.Search(len(near), func(i int) bool { return near[i].dist > d })
			if q.Limit > 0 && i >= q.Limit {
				continue
			}
			near = slices.Insert(near, i, nearLine{d, q.appendLine(nil, r)})
			if q.Limit > 0 && len(near) > q.Limit {
				near = near[:q.Limit]
			}
		default:
			out, n = q.appendLine(out, r), n+1
		}
		if full() {
			break
		}
	}
	if hasPending && !full() {
		out = append(out, pending...)
	}
	for _, l := range near {
		out = append(out, l.text...)
	}
	_, err := w.Write(out)
	return err
}

// A nearLine is an output line of closest= and its distance in seconds.
type nearLine struct {
	dist int64
	text []byte
}

// collapsers returns the value functions of the query's collapses: collapse=
// in order, then collapseTime (pywb's cdx_collapse_time_status: the first N
// digits of the timestamp and the status).
func (q *Query) collapsers() []func(*record) string {
	var fs []func(*record) string
	for _, c := range q.Collapse {
		fs = append(fs, c.value)
	}
	if n := q.CollapseTime; n > 0 {
		fs = append(fs, func(r *record) string {
			status, _ := r.get("status")
			return firstRunes(string(r.ts), n) + " " + status
		})
	}
	return fs
}

// keep applies the collapses in ascending order as the Internet Archive's
// CollapseFieldFilter chains them: the first whose value is unchanged drops the
// line, and each one before it remembers its new value.
func keep(collapse []func(*record) string, prev []string, seen []bool, r *record) bool {
	for i, value := range collapse {
		v := value(r)
		if seen[i] && v == prev[i] {
			return false
		}
		prev[i], seen[i] = v, true
	}
	return true
}

// pass reports whether a line passes every filter.
func (q *Query) pass(r *record) bool {
	for i := range q.Filters {
		if !q.Filters[i].match(r) {
			return false
		}
	}
	return true
}

// appendLine appends the output of a line and its newline. cdxj and json keep
// the line's JSON style: pywb's json.dumps ", " and ": ", or warcio.js's
// compact one. Without fields, the line's own JSON is kept, and json is pywb's
// CDXObject.to_json: urlkey and timestamp first, then the index fields.
func (q *Query) appendLine(dst []byte, r *record) []byte {
	sep, colon := ", ", ": "
	if !bytes.Contains(r.js, []byte(`": `)) {
		sep, colon = ",", ":"
	}
	switch {
	case q.Output == "text":
		return q.appendText(dst, r)
	case q.Fields != nil:
		return q.appendFields(dst, r, sep, colon)
	}
	inner := bytes.TrimSpace(r.js[1 : len(r.js)-1])
	if q.Output == "json" {
		dst = append(dst, `{"urlkey"`+colon...)
		dst = pyfmt.AppendJSONString(dst, string(r.key))
		dst = append(dst, sep+`"timestamp"`+colon...)
		dst = pyfmt.AppendJSONString(dst, string(r.ts))
		if len(inner) > 0 {
			dst = append(dst, sep...)
			dst = append(dst, inner...)
		}
	} else {
		dst = append(appendKeyTS(dst, r), ' ')
		dst = append(dst, bytes.TrimRight(r.js[:len(r.js)-1], " ")...)
		if len(inner) == 0 {
			sep = ""
		}
	}
	if r.line.Source != "" {
		dst = append(dst, sep+`"source"`+colon...)
		dst = pyfmt.AppendJSONString(dst, r.line.Source)
	}
	return append(dst, "}\n"...)
}

// appendFields appends the fields of fl= as pywb's to_json and to_cdxj do: in
// the order asked, once each, those the line has; cdxj leaves out urlkey and
// timestamp, which begin its line.
func (q *Query) appendFields(dst []byte, r *record, sep, colon string) []byte {
	asJSON := q.Output == "json"
	if !asJSON {
		dst = append(appendKeyTS(dst, r), ' ')
	}
	dst = append(dst, '{')
	first := true
	for i, name := range q.Fields {
		if slices.Contains(q.Fields[:i], name) {
			continue
		}
		var raw []byte
		switch name {
		case "urlkey", "timestamp":
			if asJSON {
				v, _ := r.get(name)
				raw = pyfmt.AppendJSONString(nil, v)
			}
		default:
			for _, f := range r.parse() {
				if f.name == name {
					raw = f.raw
				}
			}
		}
		if raw == nil {
			continue
		}
		if !first {
			dst = append(dst, sep...)
		}
		first = false
		dst = pyfmt.AppendJSONString(dst, name)
		dst = append(dst, colon...)
		dst = append(dst, raw...)
	}
	return append(dst, "}\n"...)
}

// appendText appends the line as pywb's CDXObject.to_text does: the line as it
// is when nothing was added to it, else the values of its fields (or of those
// of fl=, "-" for one it lacks) separated by spaces.
func (q *Query) appendText(dst []byte, r *record) []byte {
	if q.Fields == nil {
		if r.line.Source == "" {
			dst = append(dst, bytes.TrimRight(r.line.Text, " \t\r\n")...)
			return append(dst, '\n')
		}
		dst = appendKeyTS(dst, r)
		for _, f := range r.parse() {
			dst = append(dst, ' ')
			dst = append(dst, pyStr(f.raw)...)
		}
		return append(dst, '\n')
	}
	for i, name := range q.Fields {
		if i > 0 {
			dst = append(dst, ' ')
		}
		v, ok := r.get(name)
		if !ok {
			v = "-"
		}
		dst = append(dst, v...)
	}
	return append(dst, '\n')
}

func appendKeyTS(dst []byte, r *record) []byte {
	dst = append(append(dst, r.key...), ' ')
	return append(dst, r.ts...)
}
