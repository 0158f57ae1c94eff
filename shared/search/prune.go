package search

import (
	"cmp"
	"container/heap"
	"fmt"
	"math"
	"slices"
)

// Dynamic pruning: a search for the best limit matches reads the summaries of
// its terms first, then their posting blocks by decreasing bound of what the
// documents they hold can score, and stops at the first whose bound is below
// the limit-th best score found.

// countBlocks is how many blocks a search that found its best matches still
// reads, when no more are left, to count the matches exactly.
const countBlocks = 16

// firstBatch is how many blocks of the leading term the first round of reads
// takes; each round takes four times as many as the one before (at most those
// that may still hold a result), so that a search that must read a thousand
// blocks reads them in six rounds; from the third on, a round takes all those
// that may still hold a result when they are half of the blocks left or
// more (the first two having found a threshold near the one it will end at).
const firstBatch = 4

// pruned says a search can be pruned: it has a limit and clauses that must
// hold, none with a prefix token (whose terms a scan finds).
func pruned(must, mustNot []Clause, limit int) bool {
	if limit <= 0 || len(must) == 0 {
		return false
	}
	for _, cs := range [][]Clause{must, mustNot} {
		for _, c := range cs {
			for _, t := range c.Tokens {
				if t.Prefix {
					return false
				}
			}
		}
	}
	return true
}

// A termBlocks is a term's blocks, in order of their documents (which do not
// overlap), and how many documents hold the term.
type termBlocks struct {
	blocks []*blockRef
	df     int
}

// overlapping returns the blocks that may hold documents from lo to hi.
func (tb *termBlocks) overlapping(lo, hi DocID) []*blockRef {
	i, _ := slices.BinarySearchFunc(tb.blocks, lo, func(b *blockRef, lo DocID) int {
		if b.h.last < lo {
			return -1
		}
		return 1
	})
	j := i
	for j < len(tb.blocks) && tb.blocks[j].h.first <= hi {
		j++
	}
	return tb.blocks[i:j]
}

// A leadBlock is a block of the query's rarest token, and the most a
// document in it can score.
type leadBlock struct {
	b     *blockRef
	bound float64
}

// A scope narrows a pruned search: idfOf, when not nil, holds the clauses
// whose tokens' document counts weigh each clause of must (the phrases a
// search of pairs stands for); below, when not 0, is the first document it
// does not search.
type scope struct {
	idfOf []Clause
	below DocID
}

// A pruning is the state of a pruned search.
type pruning struct {
	ix            *Index
	must, mustNot []Clause
	scope         scope
	fs            filterSet
	sc            scorer
	terms         map[string]*termBlocks
	idf           []float64 // of each clause of must
	ranks         map[string][]byte
	limit         int
	top           []candidate // the best found, in rank order
	// Candidates ranked that passed the filters, candidates left unranked,
	// their bound below the threshold, and entries of lead blocks in strides
	// passed, their bound below it.
	passed, unranked, skipped int
	examined                  int // entries of the lead blocks matched
	// The best lower bounds of the candidates' scores, before they are
	// scored, in a search without filters.
	lower lowerBounds
}

// lowerBounds is a min-heap of the best lower bounds of candidates' scores
// found: the limit-th best bounds the threshold from below before the
// candidates are scored, which needs their numbers from the store.
type lowerBounds []float64

func (h lowerBounds) Len() int           { return len(h) }
func (h lowerBounds) Less(i, j int) bool { return h[i] < h[j] }
func (h lowerBounds) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }

// Push implements heap.Interface.
func (h *lowerBounds) Push(x any) { *h = append(*h, x.(float64)) }

// Pop implements heap.Interface.
func (h *lowerBounds) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// add takes in a candidate's lower bound, keeping the limit best.
func (h *lowerBounds) add(x float64, limit int) {
	switch {
	case len(*h) < limit:
		heap.Push(h, x)
	case x > (*h)[0]:
		(*h)[0] = x
		heap.Fix(h, 0)
	}
}

// kth returns the least of the limit best, -Inf until there are limit.
func (h lowerBounds) kth(limit int) float64 {
	if limit == 0 || len(h) < limit {
		return math.Inf(-1)
	}
	return h[0]
}

// topK returns the limit best documents that hold the clauses of must and
// none of mustNot and pass fs, in rank order; the number of matches; and
// whether that number is an estimate.
func (ix *Index) topK(must, mustNot []Clause, sp scope, fs filterSet, sc scorer, limit int) ([]candidate, int, bool, error) {
	pr := &pruning{ix: ix, must: must, mustNot: mustNot, scope: sp, fs: fs, sc: sc, ranks: map[string][]byte{}}
	if err := pr.readSummaries(); err != nil {
		return nil, 0, false, err
	}
	lead := ""
	for _, c := range must {
		for _, t := range c.Tokens {
			if pr.terms[t.Term].df == 0 {
				return nil, 0, false, nil
			}
			if lead == "" || pr.terms[t.Term].df < pr.terms[lead].df {
				lead = t.Term
			}
		}
	}
	for i, c := range must {
		if sp.idfOf != nil {
			c = sp.idfOf[i]
		}
		df := make([]int, len(c.Tokens))
		for k, t := range c.Tokens {
			df[k] = pr.terms[t.Term].df
		}
		pr.idf = append(pr.idf, ix.idf(c, df))
	}
	// The terms read for their counts alone are not searched.
	searched := map[string]bool{}
	for _, c := range slices.Concat(must, mustNot) {
		for _, t := range c.Tokens {
			searched[t.Term] = true
		}
	}
	for term := range pr.terms {
		if !searched[term] {
			delete(pr.terms, term)
		}
	}
	var order []leadBlock
	for _, b := range pr.terms[lead].blocks {
		if sp.below != 0 && b.h.first >= sp.below {
			break
		}
		if bound, ok := pr.bound(b.h.first, b.h.last); ok {
			order = append(order, leadBlock{b, bound})
		}
	}
	slices.SortStableFunc(order, func(a, b leadBlock) int {
		if a.bound != b.bound {
			if a.bound > b.bound {
				return -1
			}
			return 1
		}
		return 0
	})

	pr.limit = limit
	next, batch := 0, firstBatch
	for next < len(order) && order[next].bound >= pr.threshold() {
		// The blocks left that may still hold a result: a round reads batch of
		// them at most.
		above := next + 1
		for above < len(order) && order[above].bound >= pr.threshold() {
			above++
		}
		end := next + min(batch, above-next)
		if batch >= 16*firstBatch && 2*(above-next) >= len(order)-next {
			// After two rounds, most of the blocks left may still hold a
			// result: they are read in one round, in as few calls as their
			// terms allow (read).
			end = above
		}
		if err := pr.match(order[next:end]); err != nil {
			return nil, 0, false, err
		}
		next, batch = end, 4*batch
	}

	// The count: exact when every block that may hold a match was read (a
	// few more are read for it) with no stride passed and no filter was left
	// unchecked, or when the query is one word without exclusions or filters;
	// an estimate otherwise, from the share of the entries examined that
	// matched.
	rest := order[next:]
	if len(must) == 1 && len(must[0].Tokens) == 1 && len(mustNot) == 0 && len(fs.include)+len(fs.exclude) == 0 && sp.below == 0 {
		return pr.top, pr.terms[lead].df, false, nil
	}
	if len(rest) > 0 && len(rest) <= countBlocks {
		if err := pr.match(rest); err != nil {
			return nil, 0, false, err
		}
		rest = nil
	}
	total := pr.count()
	left := pr.skipped
	for _, l := range rest {
		left += l.b.h.count
	}
	if left == 0 {
		return pr.top, total, false, nil
	}
	examined := pr.examined - pr.skipped
	if examined <= 0 {
		return pr.top, total, true, nil
	}
	return pr.top, total + int(math.Round(float64(left)*float64(total)/float64(examined))), true, nil
}

// threshold is the score a document must reach to enter the results: the
// limit-th best found, or the limit-th best lower bound of the candidates
// found when that is higher; -Inf until limit are found.
func (pr *pruning) threshold() float64 {
	th := pr.lower.kth(pr.limit)
	if len(pr.top) >= pr.limit {
		th = max(th, pr.top[len(pr.top)-1].score)
	}
	return th
}

// filtered says the search has filters: it ranks every candidate, so that its
// count of the blocks read is exact.
func (pr *pruning) filtered() bool { return len(pr.fs.include)+len(pr.fs.exclude) > 0 }

// count returns the number of matches in the blocks read: those ranked that
// passed the filters, and those not ranked (bounded below the threshold, in a
// search without filters).
func (pr *pruning) count() int { return pr.passed + pr.unranked }

// readSummaries reads the summaries and tail blocks of the query's terms.
func (pr *pruning) readSummaries() error {
	var names []string
	for _, cs := range [][]Clause{pr.must, pr.mustNot, pr.scope.idfOf} {
		for _, c := range cs {
			for _, t := range c.Tokens {
				names = append(names, t.Term)
			}
		}
	}
	var err error
	pr.terms, err = pr.ix.readTerms(names)
	return err
}

// readTerms reads the summaries and tail blocks of terms (in one call, but
// for the terms of a legacy index that have no summary).
func (ix *Index) readTerms(terms []string) (map[string]*termBlocks, error) {
	out := map[string]*termBlocks{}
	var names, keys []string
	for _, term := range terms {
		if _, ok := out[term]; !ok {
			out[term] = &termBlocks{}
			names = append(names, term)
			keys = append(keys, summaryKey(term), termKey(term)+tailSuffix)
		}
	}
	values, err := getMany(ix.store, keys)
	if err != nil {
		return nil, fmt.Errorf("search: summaries: %w", err)
	}
	for i, term := range names {
		tb := out[term]
		if v := values[2*i]; v != nil {
			tb.blocks, err = decodeSummary(term, v)
		} else {
			tb.blocks, err = ix.summary(term)
		}
		if err != nil {
			return nil, fmt.Errorf("search: term %q: %w", term, err)
		}
		if v := values[2*i+1]; v != nil {
			h, _, err := decodeHeader(v)
			if err != nil {
				return nil, fmt.Errorf("search: term %q: %w", term, err)
			}
			tb.blocks = append(tb.blocks, &blockRef{key: keys[2*i+1], h: h, value: v})
		}
		for _, b := range tb.blocks {
			tb.df += b.h.count
		}
	}
	return out, nil
}

// bound returns the most a document from lo to hi can score, and false when
// no document there can match: by the frontiers of its tokens' blocks there,
// or of their strides there in the blocks read.
func (pr *pruning) bound(lo, hi DocID) (float64, bool) {
	sum := 0.0
	for i, c := range pr.must {
		// A phrase is found no more often than any of its tokens.
		clause := math.Inf(1)
		for _, t := range c.Tokens {
			tok := math.Inf(-1)
			for _, b := range pr.terms[t.Term].overlapping(lo, hi) {
				tok = max(tok, pr.blockBound(b, lo, hi, pr.idf[i]))
			}
			clause = min(clause, tok)
		}
		if math.IsInf(clause, -1) {
			return 0, false
		}
		sum += clause
	}
	return sum, true
}

// blockBound returns the most a document of block b from lo to hi can score
// for a clause of inverse document frequency idf: by the frontiers of its
// strides there when b is read and has strides (a block written before them
// has none), else by its own.
func (pr *pruning) blockBound(b *blockRef, lo, hi DocID, idf float64) float64 {
	if b.value == nil {
		return pr.sc.bound(b.h.front, idf)
	}
	h, _, err := b.header()
	if err != nil || len(h.strides) == 0 {
		// A corrupt block is said so by the cursor that reads it.
		return pr.sc.bound(b.h.front, idf)
	}
	bound := math.Inf(-1)
	for k := range h.strides {
		if slo, shi := h.span(k); slo <= hi && shi >= lo {
			bound = max(bound, pr.sc.bound(h.strides[k].front, idf))
		}
	}
	return bound
}

// match reads the blocks the lead blocks need of every term (in one call),
// finds the matches in them, and ranks those whose bound reaches the
// threshold (all of them for a search with filters), best bound first: the
// first ones (a call for their numbers) until limit are found, then the
// others that still may enter the results (another).
func (pr *pruning) match(leads []leadBlock) error {
	if err := pr.read(leads); err != nil {
		return err
	}
	filtered := pr.filtered()
	th := pr.threshold()
	if filtered {
		th = math.Inf(-1)
	}
	var cands []candidate
	for _, l := range leads {
		pr.examined += l.b.h.count
		c, below, skipped, err := pr.matchRange(l.b, th)
		if err != nil {
			return err
		}
		cands = append(cands, c...)
		pr.unranked += below
		pr.skipped += skipped
	}
	// The candidates by bound, best first (sorting their indexes: a candidate
	// is large).
	order := make([]int32, len(cands))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if c := cmp.Compare(cands[b].bound, cands[a].bound); c != 0 {
			return c
		}
		return cmp.Compare(cands[a].id, cands[b].id)
	})
	var chunk []candidate
	i := 0
	for i < len(order) {
		th := pr.threshold()
		if filtered {
			th = math.Inf(-1)
		}
		end := i
		for end < len(order) && cands[order[end]].bound >= th {
			end++
		}
		if end == i {
			break
		}
		if len(pr.top) < pr.limit {
			end = min(end, i+2*pr.limit)
		}
		chunk = chunk[:0]
		for _, k := range order[i:end] {
			chunk = append(chunk, cands[k])
		}
		found, err := pr.ix.score(chunk, pr.fs, pr.sc, pr.ranks)
		if err != nil {
			return err
		}
		pr.passed += len(found)
		pr.top = best(append(pr.top, found...), pr.limit)
		i = end
	}
	pr.unranked += len(order) - i
	return nil
}

// scanBlocks is how many unread blocks of a term a round needs at least to
// read the term's blocks with one scan of its keys, when they are half of
// those it has not read or more: a store whose every key read costs a round
// trip (IndexedDB) reads a few hundred blocks faster in one scan than key by
// key.
const scanBlocks = 8

// read reads the blocks the lead blocks need of every term, those of a term
// of which they need many with one scan of its keys, the others in one call.
func (pr *pruning) read(leads []leadBlock) error {
	var keys []string
	var need []*blockRef
	queued := map[*blockRef]bool{}
	for term, tb := range pr.terms {
		var blocks []*blockRef
		for _, l := range leads {
			for _, b := range tb.overlapping(l.b.h.first, l.b.h.last) {
				if b.value == nil && !queued[b] {
					blocks = append(blocks, b)
					queued[b] = true
				}
			}
		}
		unread := 0
		for _, b := range tb.blocks {
			if b.value == nil {
				unread++
			}
		}
		if len(blocks) < scanBlocks || 2*len(blocks) < unread {
			for _, b := range blocks {
				keys, need = append(keys, b.key), append(need, b)
			}
			continue
		}
		if err := pr.scan(term, tb); err != nil {
			return err
		}
		for _, b := range blocks {
			if b.value == nil {
				return fmt.Errorf("search: posting block %q: %w", b.key, ErrNotFound)
			}
		}
	}
	values, err := getMany(pr.ix.store, keys)
	if err != nil {
		return fmt.Errorf("search: posting blocks: %w", err)
	}
	for i, v := range values {
		if v == nil {
			return fmt.Errorf("search: posting block %q: %w", keys[i], ErrNotFound)
		}
		need[i].value = v
	}
	return nil
}

// scan reads the blocks of term that tb has not read, scanning its keys.
func (pr *pruning) scan(term string, tb *termBlocks) error {
	byKey := make(map[string]*blockRef, len(tb.blocks))
	for _, b := range tb.blocks {
		if b.value == nil {
			byKey[b.key] = b
		}
	}
	err := pr.ix.store.Scan(termKey(term), func(key string, value []byte) bool {
		if b := byKey[key]; b != nil {
			b.value = value
		}
		return true
	})
	if err != nil {
		return fmt.Errorf("search: blocks of %q: %w", term, err)
	}
	return nil
}

// matchRange returns the documents of the lead block lb that hold the clauses
// of must and none of mustNot, from blocks read, whose bound reaches th; the
// number of the others; and the number of lb's entries it skipped, in strides
// whose bound is below th. A match's bound is what its frequencies (a
// position below the block's title bound counting as a title's) score at its
// stride's shortest length. It walks the lead block's documents and looks
// each up in the other tokens' postings, keeping no positions but those of
// the matches it returns.
func (pr *pruning) matchRange(lb *blockRef, th float64) ([]candidate, int, int, error) {
	lo, hi := lb.h.first, lb.h.last
	cursors := func(cs []Clause) [][]cursor {
		out := make([][]cursor, len(cs))
		for i, c := range cs {
			out[i] = make([]cursor, len(c.Tokens))
			for k, t := range c.Tokens {
				out[i][k].blocks = pr.terms[t.Term].overlapping(lo, hi)
			}
		}
		return out
	}
	must, mustNot := cursors(pr.must), cursors(pr.mustNot)
	var cands []candidate
	below, skipped := 0, 0
	// The current document's starts, per clause: a token's positions as its
	// cursor decoded them, a phrase's made in a buffer of its own.
	starts := make([][]uint32, len(pr.must))
	var excluded []uint32
	var lead cursor
	if !lead.load(lb) {
		return nil, 0, 0, lead.err
	}
	// The lead's current stride, which bounds a match's score from above (dl:
	// its shortest length) and, when its documents' lengths are known, from
	// below (as the longest of them would score with none of its positions
	// counted as a title's but those below its shortest title).
	dl := float64(lead.front.minDL())
	var cur stride
	filtered := pr.filtered()
docs:
	for {
		// At the start of a stride: the stride is passed when its bound is
		// below th.
		for k, ok := lead.strideStart(); ok; k, ok = lead.strideStart() {
			bound, some := pr.bound(lead.span(k))
			if some && bound >= th {
				cur = lead.strides[k]
				dl = float64(cur.front.minDL())
				break
			}
			if some {
				skipped += lead.strides[k].count
			}
			lead.pass(k)
		}
		if !lead.next() {
			break
		}
		d := lead.doc
		if pr.scope.below != 0 && d >= pr.scope.below {
			break
		}
		bound := 0.0
		for i, c := range pr.must {
			s, ok := clauseAt(c, must[i], d, starts[i][:0])
			if !ok {
				continue docs
			}
			starts[i] = s
			bound += pr.sc.score(pr.idf[i], float64(weightedFrequency(s, lb.h.title)), dl)
		}
		for i, c := range pr.mustNot {
			var ok bool
			if excluded, ok = clauseAt(c, mustNot[i], d, excluded[:0]); ok {
				continue docs
			}
		}
		bound *= 1 + 1e-9
		if bound < th {
			below++
			continue
		}
		if !filtered && cur.count > 0 && cur.longest != unknownLength {
			low := 0.0
			for i := range pr.must {
				low += pr.sc.score(pr.idf[i], float64(weightedFrequency(starts[i], cur.title)), float64(cur.longest))
			}
			pr.lower.add(low*(1-1e-9), pr.limit)
			th = max(th, pr.lower.kth(pr.limit))
		}
		cand := candidate{id: d, idf: pr.idf, bound: bound, starts: make([][]uint32, len(starts))}
		for i, s := range starts {
			cand.starts[i] = slices.Clone(s)
		}
		cands = append(cands, cand)
	}
	for _, c := range append(slices.Concat(must...), slices.Concat(mustNot...)...) {
		if c.err != nil {
			return nil, 0, 0, c.err
		}
	}
	if lead.err != nil {
		return nil, 0, 0, lead.err
	}
	return cands, below, skipped, nil
}

// clauseAt returns where clause c holds in document d, the cursors of its
// tokens walking their postings (d at or after their last document): the
// positions of its first token there, a token's as its postings hold them, a
// phrase's appended to buf. It returns false when c does not hold in d.
func clauseAt(c Clause, cursors []cursor, d DocID, buf []uint32) ([]uint32, bool) {
	if len(cursors) == 1 {
		pos, ok := cursors[0].find(d)
		return pos, ok && len(pos) > 0
	}
	var pos [][]uint32
	var fixed [4][]uint32
	if len(cursors) <= len(fixed) {
		pos = fixed[:len(cursors)]
	} else {
		pos = make([][]uint32, len(cursors))
	}
	for k := range cursors {
		p, ok := cursors[k].find(d)
		if !ok {
			return nil, false
		}
		pos[k] = p
	}
	buf = phraseStarts(buf, c, pos)
	return buf, len(buf) > 0
}

// A cursor walks a token's postings, block after block, from one document to
// a later one, reading the positions of none but those asked for, and
// passing the strides of a block that cannot hold what it looks for without
// decoding them.
type cursor struct {
	blocks []*blockRef // read, in order, and not yet begun
	r      reader      // the entries of the current block after the current one
	left   int         // how many there are
	ended  bool        // the current block's end is to be checked
	doc    DocID       // the current entry's document
	valid  bool        // there is a current entry
	n      int         // its number of positions
	read   bool        // its positions are in pos
	pos    []uint32
	err    error
	// The current block: its header, with its strides, its entries, and the
	// stride of the next entry.
	blockHeader
	body   []byte
	stride int
}

// next moves c to its next document, and returns false when it has none
// (c.err says whether a block was corrupt).
func (c *cursor) next() bool {
	if c.valid && !c.read {
		c.skip()
	}
	c.valid, c.read = false, false
	for c.left == 0 {
		if c.ended {
			c.ended = false
			if c.r.err != nil || len(c.r.b) != 0 || c.doc != c.last {
				return c.fail()
			}
		}
		if len(c.blocks) == 0 {
			return false
		}
		b := c.blocks[0]
		c.blocks = c.blocks[1:]
		if !c.load(b) {
			return false
		}
	}
	c.doc += DocID(c.r.uvarint())
	c.n = int(c.r.uvarint())
	c.left--
	if c.stride+1 < len(c.strides) && c.strides[c.stride+1].index == c.count-c.left {
		c.stride++
	}
	if c.r.err != nil || c.n > len(c.r.b) {
		return c.fail()
	}
	c.valid = true
	return true
}

// load begins block b (read): its first entry is the next.
func (c *cursor) load(b *blockRef) bool {
	h, body, err := b.header()
	if err != nil {
		c.err = err
		c.blocks, c.left, c.valid = nil, 0, false
		return false
	}
	c.blockHeader, c.body, c.stride = h, body, 0
	c.r, c.left, c.ended, c.doc, c.valid, c.read = reader{b: body}, h.count, true, h.first, false, false
	return true
}

// strideStart returns the stride of the current block whose first entry is
// the next, if there is one (and the block has strides: one written before
// them has none).
func (c *cursor) strideStart() (int, bool) {
	if len(c.strides) == 0 || c.left == 0 {
		return 0, false
	}
	return c.stride, c.strides[c.stride].index == c.count-c.left
}

// pass moves c past stride k of its block (the strides before it too): to
// the start of the next, or past the block's end.
func (c *cursor) pass(k int) {
	if k+1 < len(c.strides) {
		s := c.strides[k+1]
		c.r, c.left, c.doc, c.stride = reader{b: c.body[s.offset:]}, c.count-s.index, s.prev, k+1
	} else {
		// The block's end is not checked: its last entries were not read.
		c.left, c.ended = 0, false
	}
	c.valid, c.read = false, false
}

// seek moves c toward d, which is after c.doc, without decoding the entries
// it passes: past the rest of its block when d is beyond it, else to the
// start of the stride that may hold d when that is further on.
func (c *cursor) seek(d DocID) {
	switch {
	case c.left == 0:
	case d > c.last:
		c.pass(len(c.strides))
	case c.stride+1 < len(c.strides) && c.strides[c.stride+1].prev < d:
		// The last stride whose documents come after a document below d:
		// the one that may hold d.
		k := c.stride + 1
		for k+1 < len(c.strides) && c.strides[k+1].prev < d {
			k++
		}
		c.pass(k - 1)
	}
}

// fail notes a corrupt block and ends c.
func (c *cursor) fail() bool {
	c.err = fmt.Errorf("search: %w: posting block", errCorrupt)
	c.blocks, c.left, c.valid = nil, 0, false
	return false
}

// skip moves past the positions of the current entry without decoding them.
func (c *cursor) skip() {
	b := c.r.b
	for n := c.n; n > 0; n-- {
		i := 0
		for i < len(b) && b[i] >= 0x80 {
			i++
		}
		if i == len(b) {
			c.r.fail()
			return
		}
		b = b[i+1:]
	}
	c.r.b = b
}

// positions returns the positions of the current entry, which c keeps until
// it moves.
func (c *cursor) positions() []uint32 {
	if !c.read {
		c.pos = c.pos[:0]
		p := uint32(0)
		for range c.n {
			p += uint32(c.r.uvarint())
			c.pos = append(c.pos, p)
		}
		c.read = true
	}
	return c.pos
}

// find moves c to the first of its documents at or after d, and returns the
// positions of d, or false when c does not hold d.
func (c *cursor) find(d DocID) ([]uint32, bool) {
	for !c.valid || c.doc < d {
		c.seek(d)
		if !c.next() {
			return nil, false
		}
	}
	if c.doc != d {
		return nil, false
	}
	return c.positions(), true
}
