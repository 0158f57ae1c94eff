package search

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// A Result is a document that matches a query.
type Result struct {
	ID      DocID
	Session string
	URL     string
	Time    time.Time
	Method  string
	Status  int
	Mime    string
	Ref     string
	Title   string
	// Score is the document's BM25 score (0 for a query of filters only).
	Score float64
	// Snippet is a window of the text around the first match, the matched
	// words between « and »; "…" marks text left out at either end.
	Snippet string
}

// Results are the matches of a query, best first.
type Results struct {
	// Total is the number of documents that match: exact for a query of one
	// word without exclusions or filters, for a search without a limit, and
	// whenever the search read every block that may hold a match; otherwise
	// (Estimated) an estimate from the matches in the blocks it read and the
	// number of documents that hold its rarest word in the blocks it did not.
	Total int
	// Estimated says Total is an estimate.
	Estimated bool
	// Hits are the best of them, at most the limit asked for.
	Hits []Result
}

// Search returns the documents that match q, ranked: every clause that is not
// excluded holds (a phrase's tokens at consecutive positions, in the title or
// in the text), no excluded clause holds, and the filters hold. Documents are
// ranked by BM25 (a title's tokens weigh titleWeight times a text's), then by
// time, newest first; a query of filters only ranks by time. limit <= 0 means
// every match.
func (ix *Index) Search(q Query, limit int) (Results, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if err := ix.flush(); err != nil {
		return Results{}, err
	}
	var must, mustNot []Clause
	for _, c := range q.Clauses {
		if c.Exclude {
			mustNot = append(mustNot, c)
		} else {
			must = append(must, c)
		}
	}

	fs := newFilterSet(q.Filters)
	sc := scorer{avgdl: 1}
	if ix.meta.docs > 0 {
		sc.avgdl = float64(ix.meta.length) / float64(ix.meta.docs)
	}
	if c := ix.opts.Corpus; c != nil && c.Docs > 0 {
		sc.avgdl = float64(c.Length) / float64(c.Docs)
	}
	var res Results
	var cands []candidate
	var err error
	if pruned(must, mustNot, limit) {
		if cands, res.Total, res.Estimated, err = ix.prunedSearch(must, mustNot, fs, sc, limit); err != nil {
			return Results{}, err
		}
	} else {
		if cands, err = ix.matchAll(must, mustNot); err != nil {
			return Results{}, err
		}
		if cands, err = ix.score(cands, fs, sc, nil); err != nil {
			return Results{}, err
		}
		res.Total = len(cands)
		cands = best(cands, limit)
	}
	keys := make([]string, 0, 2*len(cands))
	for _, c := range cands {
		keys = append(keys, keyDoc+docKey(c.id))
	}
	if ix.opts.Text == nil {
		for _, c := range cands {
			keys = append(keys, keyText+docKey(c.id))
		}
	}
	values, err := getMany(ix.store, keys)
	if err != nil {
		return Results{}, fmt.Errorf("search: documents: %w", err)
	}
	for i, c := range cands {
		v := values[i]
		if v == nil {
			return Results{}, fmt.Errorf("search: document %d: %w", c.id, ErrNotFound)
		}
		rec, err := decodeRecord(v, false)
		if err != nil {
			return Results{}, fmt.Errorf("search: document %d: %w", c.id, err)
		}
		r := Result{ID: c.id, Session: rec.session, URL: rec.url, Time: rec.time, Method: rec.method,
			Status: rec.status, Mime: rec.mime, Ref: rec.ref, Title: rec.title, Score: c.score}
		var text string
		if ix.opts.Text != nil {
			if text, err = ix.opts.Text(&r); err != nil {
				return Results{}, fmt.Errorf("search: text of %s: %w", r.URL, err)
			}
		} else if v := values[len(cands)+i]; v != nil {
			if text, err = decompressText(v); err != nil {
				return Results{}, err
			}
		}
		r.Snippet = Snippet(text, must, snippetBytes)
		res.Hits = append(res.Hits, r)
	}
	return res, nil
}

// A candidate is a document that holds every clause a query must hold.
type candidate struct {
	id     DocID
	starts [][]uint32 // per clause of must
	idf    []float64
	score  float64
	bound  float64 // a pruned search's bound of score (prune.go)
	rec    record
}

// rankOrder orders candidates as results are: by score, highest first, then
// by time, newest first, then by id, highest first.
func rankOrder(a, b candidate) int {
	if a.score != b.score {
		if a.score > b.score {
			return -1
		}
		return 1
	}
	if c := b.rec.time.Compare(a.rec.time); c != 0 {
		return c
	}
	if a.id > b.id {
		return -1
	}
	if a.id < b.id {
		return 1
	}
	return 0
}

// best returns the limit best candidates in rank order (all of them when
// limit <= 0), selecting them with a heap of limit rather than sorting every
// candidate. It reorders cands.
func best(cands []candidate, limit int) []candidate {
	if limit <= 0 || len(cands) <= limit {
		slices.SortFunc(cands, rankOrder)
		return cands
	}
	// h is a heap whose root is the worst candidate kept.
	h := cands[:limit]
	worse := func(i, j int) bool { return rankOrder(h[i], h[j]) > 0 }
	down := func(i int) {
		for {
			w := i
			if l := 2*i + 1; l < len(h) && worse(l, w) {
				w = l
			}
			if r := 2*i + 2; r < len(h) && worse(r, w) {
				w = r
			}
			if w == i {
				return
			}
			h[i], h[w] = h[w], h[i]
			i = w
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		down(i)
	}
	for _, c := range cands[limit:] {
		if rankOrder(c, h[0]) < 0 {
			h[0] = c
			down(0)
		}
	}
	slices.SortFunc(h, rankOrder)
	return h
}

// snippetBytes is about how long a snippet is.
const snippetBytes = 240

// clauseMatch is where a clause holds: the documents, in order, and the
// positions its first token is at in each; df is the document frequency of
// each of its tokens.
type clauseMatch struct {
	docs   []DocID
	starts [][]uint32
	df     []int
}

// matchClause finds the documents that hold the tokens of c at consecutive
// positions.
func (ix *Index) matchClause(c Clause) (clauseMatch, error) {
	lists := make([]postings, len(c.Tokens))
	for i, t := range c.Tokens {
		p, err := ix.load(t)
		if err != nil {
			return clauseMatch{}, err
		}
		lists[i] = p
	}
	return matchLists(c, lists), nil
}

// matchLists finds the documents of lists, the postings of the tokens of c,
// that hold them at consecutive positions.
func matchLists(c Clause, lists []postings) clauseMatch {
	var m clauseMatch
	for _, p := range lists {
		m.df = append(m.df, len(p.docs))
	}
	first := lists[0]
	if len(lists) == 1 {
		// A single token holds wherever its term is: its positions are the
		// clause's starts as they are.
		m.docs = first.docs
		m.starts = make([][]uint32, len(first.docs))
		for i := range first.docs {
			m.starts[i] = first.positions(i)
		}
		return m
	}
	cursor := make([]int, len(lists))
	pos := make([][]uint32, len(lists))
docs:
	for i, d := range first.docs {
		pos[0] = first.positions(i)
		for k := 1; k < len(lists); k++ {
			j, found := slices.BinarySearch(lists[k].docs[cursor[k]:], d)
			cursor[k] += j
			if !found {
				continue docs
			}
			pos[k] = lists[k].positions(cursor[k])
		}
		starts := phraseStarts(nil, c, pos)
		if len(starts) > 0 {
			m.docs = append(m.docs, d)
			m.starts = append(m.starts, starts)
		}
	}
	return m
}

// phraseStarts appends to dst the positions of pos[0] at which the tokens of
// c follow one another: pos[k], the positions of its k-th token in a
// document, holds each offset as the clause's tokens are. The positions are
// in order, and are walked once each.
func phraseStarts(dst []uint32, c Clause, pos [][]uint32) []uint32 {
	n := len(dst)
	dst = append(dst, pos[0]...)
	for k := 1; k < len(pos) && len(dst) > n; k++ {
		off := uint32(c.Tokens[k].Pos - c.Tokens[0].Pos)
		at, j := n, 0
		for _, p := range dst[n:] {
			for j < len(pos[k]) && pos[k][j] < p+off {
				j++
			}
			if j < len(pos[k]) && pos[k][j] == p+off {
				dst[at] = p
				at++
			}
		}
		dst = dst[:at]
	}
	return dst
}

// load reads the posting list of a token: of its term, or for a prefix token
// of every term that begins with it, merged.
func (ix *Index) load(t Token) (postings, error) {
	prefix := termKey(t.Term)
	if t.Prefix {
		prefix = keyTerm + t.Term
	}
	var lists []postings
	var cur postings
	curTerm := ""
	var bad error
	err := ix.store.Scan(prefix, func(key string, value []byte) bool {
		term, _, _ := strings.Cut(key[len(keyTerm):], "\x00")
		if term != curTerm && len(cur.docs) > 0 {
			lists = append(lists, cur)
			cur = postings{}
		}
		curTerm = term
		if err := cur.decodeBlock(value); err != nil {
			bad = fmt.Errorf("key %q: %w", key, err)
			return false
		}
		return true
	})
	if err == nil {
		err = bad
	}
	if err != nil {
		return postings{}, fmt.Errorf("search: term %q: %w", t.Term, err)
	}
	if len(lists) == 0 {
		return cur, nil
	}
	lists = append(lists, cur)
	return union(lists), nil
}

// union merges posting lists: each document once, its positions merged.
func union(lists []postings) postings {
	byDoc := map[DocID][]uint32{}
	for _, l := range lists {
		for i, d := range l.docs {
			byDoc[d] = append(byDoc[d], l.positions(i)...)
		}
	}
	docs := make([]DocID, 0, len(byDoc))
	for d := range byDoc {
		docs = append(docs, d)
	}
	slices.Sort(docs)
	var p postings
	for _, d := range docs {
		pos := byDoc[d]
		slices.Sort(pos)
		p.add(d, slices.Compact(pos))
	}
	return p
}

// filterSet is a query's filters, grouped by key.
type filterSet struct {
	include, exclude map[string][]Filter
	needStrings      bool
}

func newFilterSet(filters []Filter) filterSet {
	fs := filterSet{include: map[string][]Filter{}, exclude: map[string][]Filter{}}
	for _, f := range filters {
		if f.Exclude {
			fs.exclude[f.Key] = append(fs.exclude[f.Key], f)
		} else {
			fs.include[f.Key] = append(fs.include[f.Key], f)
		}
		switch f.Key {
		case FilterSite, FilterMethod, FilterSession, FilterType:
			fs.needStrings = true
		}
	}
	return fs
}

// match says a record passes: for each key, one of its filters holds, and no
// excluding filter does. from and to are bounds, all of which hold.
func (fs filterSet) match(r *record) bool {
	for key, fl := range fs.include {
		switch key {
		case FilterFrom, FilterTo:
			for _, f := range fl {
				if !f.holds(r) {
					return false
				}
			}
			continue
		}
		if !slices.ContainsFunc(fl, func(f Filter) bool { return f.holds(r) }) {
			return false
		}
	}
	for _, fl := range fs.exclude {
		if slices.ContainsFunc(fl, func(f Filter) bool { return f.holds(r) }) {
			return false
		}
	}
	return true
}

// holds says the filter holds for a record.
func (f Filter) holds(r *record) bool {
	switch f.Key {
	case FilterSite:
		host := hostOf(r.url)
		return host == f.Value || strings.HasSuffix(host, "."+f.Value)
	case FilterMethod:
		return strings.EqualFold(r.method, f.Value)
	case FilterStatus:
		return f.lo <= r.status && r.status <= f.hi
	case FilterFrom:
		return !r.time.IsZero() && !r.time.Before(f.t)
	case FilterTo:
		return !r.time.IsZero() && r.time.Before(f.t)
	case FilterSession:
		return r.session == f.Value
	case FilterType:
		return strings.HasPrefix(strings.ToLower(r.mime), strings.ToLower(f.Value))
	}
	return false
}

// hostOf returns the host of a URL, lower case, without port or user.
func hostOf(u string) string {
	if _, rest, ok := strings.Cut(u, "://"); ok {
		u = rest
	}
	if i := strings.IndexAny(u, "/?#"); i >= 0 {
		u = u[:i]
	}
	if i := strings.LastIndexByte(u, '@'); i >= 0 {
		u = u[i+1:]
	}
	if strings.HasPrefix(u, "[") {
		if i := strings.IndexByte(u, ']'); i >= 0 {
			return strings.ToLower(u[:i+1])
		}
	}
	if i := strings.LastIndexByte(u, ':'); i >= 0 {
		u = u[:i]
	}
	return strings.TrimSuffix(strings.ToLower(u), ".")
}

// Snippet returns a window of about size bytes of text around the first token
// that a clause's tokens match, matched tokens between « and »; the start of
// the text when none matches. Line breaks become spaces.
func Snippet(text string, clauses []Clause, size int) string {
	if text == "" {
		return ""
	}
	toks := Tokenize(text)
	matched := func(t Token) bool {
		for _, c := range clauses {
			for _, q := range c.Tokens {
				if t.Term == q.Term || q.Prefix && strings.HasPrefix(t.Term, q.Term) {
					return true
				}
			}
		}
		return false
	}
	marks := make([]bool, len(toks))
	first := -1
	for i, t := range toks {
		if matched(t) {
			marks[i] = true
			if first < 0 {
				first = i
			}
		}
	}
	// The window: from a token a quarter of size before the first match, to the
	// last token that ends within size of it.
	begin, end := 0, len(text)
	if len(toks) > 0 {
		from := 0
		if first >= 0 {
			from = first
			for from > 0 && toks[first].Start-toks[from-1].Start <= size/4 {
				from--
			}
		}
		begin = toks[from].Start
		last := from
		for last+1 < len(toks) && toks[last+1].End-begin <= size {
			last++
		}
		end = toks[last].End
		if last == len(toks)-1 {
			end = len(text)
		}
		if from == 0 {
			begin = 0
		}
	} else if len(text) > size {
		return oneLine(truncateUTF8(text, size)) + "…"
	}
	var b strings.Builder
	if begin > 0 {
		b.WriteString("…")
	}
	at := begin
	for i := 0; i < len(toks); i++ {
		if !marks[i] || toks[i].Start < begin || toks[i].End > end {
			continue
		}
		// Overlapping and touching matches (bigrams) are marked as one.
		s, e := toks[i].Start, toks[i].End
		for i+1 < len(toks) && marks[i+1] && toks[i+1].Start <= e && toks[i+1].End <= end {
			i++
			e = max(e, toks[i].End)
		}
		if s < at {
			s = at
		}
		b.WriteString(text[at:s])
		b.WriteString("«" + text[s:e] + "»")
		at = e
	}
	b.WriteString(text[at:end])
	if end < len(text) {
		b.WriteString("…")
	}
	return oneLine(b.String())
}

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }

func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n]
}
