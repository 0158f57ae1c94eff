package search

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Pairs of common words. A phrase of words that most documents hold ("to
// be", "of the") matches few of them, but its tokens' posting lists are
// the longest of the index, and a search must read them all: its bound, from
// its tokens' frequencies, does not tell the blocks that hold the phrase from
// the others. So the index keeps, besides each token, each pair of
// consecutive tokens that are both common, as one term (pairTerm) at the
// first one's position: a phrase of common words is then
// the phrase of its pairs, whose lists hold exactly the documents where the
// words follow one another, and whose frontiers bound its scores.
//
// A term becomes common when, as one of its blocks is sealed, it is held by
// at least one document in commonShare and by commonDocs of them at least;
// at most Options.CommonTerms terms do. Its pairs are indexed from the first document
// added after the flush that made it common, its since: a pair's list holds
// the documents from the later of its terms' since. The common terms and
// their since are the key "c": a count, then per term its length, its bytes
// and its since.

const (
	keyCommon   = "c"
	pairSep     = "\x01"
	commonShare = 10
	commonDocs  = 64
)

// isPair says term is a pair of terms.
func isPair(term string) bool { return strings.HasPrefix(term, pairSep) }

// pairTerm is the term of the pair of a and b: pairSep before each, so that
// pairs sort together, apart from the words (whose blocks a store that keeps
// neighbouring keys together, as the team archive's tables do, reads with
// fewer bytes of pairs among them).
func pairTerm(a, b string) string { return string(appendPairTerm(nil, a, b)) }

// appendPairTerm appends the term of the pair of a and b (pairTerm) to buf.
func appendPairTerm(buf []byte, a, b string) []byte {
	return append(append(append(append(buf, pairSep...), a...), pairSep...), b...)
}

// encodeCommon encodes the common terms and their since, in term order.
func encodeCommon(common map[string]DocID) []byte {
	terms := make([]string, 0, len(common))
	for t := range common {
		terms = append(terms, t)
	}
	slices.Sort(terms)
	b := binary.AppendUvarint(nil, uint64(len(terms)))
	for _, t := range terms {
		b = binary.AppendUvarint(b, uint64(len(t)))
		b = append(b, t...)
		b = binary.AppendUvarint(b, uint64(common[t]))
	}
	return b
}

// decodeCommon decodes the value of the key "c".
func decodeCommon(v []byte) (map[string]DocID, error) {
	r := reader{b: v}
	n := r.uvarint()
	if n > uint64(len(v)) {
		return nil, fmt.Errorf("%w: common terms: count %d", errCorrupt, n)
	}
	common := make(map[string]DocID, n)
	for range n {
		t := r.string()
		since := DocID(r.uvarint())
		if r.err != nil {
			break
		}
		if t == "" || strings.Contains(t, pairSep) || !utf8.ValidString(t) || since > maxDocID {
			return nil, fmt.Errorf("%w: common term %q since %d", errCorrupt, t, since)
		}
		common[t] = since
	}
	if r.err == nil && len(r.b) != 0 {
		r.fail()
	}
	if r.err != nil {
		return nil, fmt.Errorf("common terms: %w", r.err)
	}
	return common, nil
}

// addPairs adds to positions, a document's positions by term, the pairs of
// its consecutive tokens that were both common when document id was added:
// toks are its tokens in order, each at its position in the document.
func (ix *Index) addPairs(positions map[string][]uint32, id DocID, toks []Token) {
	if len(ix.common) == 0 {
		return
	}
	var buf []byte
	prev := false // the token before is common
	for i, t := range toks {
		since, ok := ix.common[t.Term]
		common := ok && since <= id
		if common && prev && t.Pos == toks[i-1].Pos+1 {
			buf = appendPairTerm(buf[:0], toks[i-1].Term, t.Term)
			p, ok := positions[string(buf)]
			if !ok {
				p = make([]uint32, 0, 4)
			}
			positions[string(buf)] = append(p, uint32(toks[i-1].Pos))
		}
		prev = common
	}
}

// documentTokens returns a document's tokens at their positions in it: its
// title's, then after a gap (so that no phrase spans them) its text's.
func documentTokens(title, text string) (toks []Token, titleLen, textLen int) {
	titleToks, textToks := Tokenize(title), Tokenize(text)
	toks = make([]Token, 0, len(titleToks)+len(textToks))
	toks = append(toks, titleToks...)
	for _, t := range textToks {
		t.Pos += len(titleToks) + 1
		toks = append(toks, t)
	}
	return toks, len(titleToks), len(textToks)
}

// noteCommon considers term for the common terms, as a block of it is
// sealed: df documents hold it, of docs in the index.
func (ix *Index) noteCommon(term string, df int, docs uint64) {
	if len(ix.common) >= ix.opts.CommonTerms {
		return // no room left, or none made common (CommonTerms < 0)
	}
	if _, ok := ix.common[term]; ok || isPair(term) || df < commonDocs || uint64(df)*commonShare < docs {
		return
	}
	if ix.promoted == nil {
		ix.promoted = map[string]int{}
	}
	ix.promoted[term] = df
}

// promote makes common the terms noted during a flush, the most frequent
// first while there is room, their pairs indexed from since; it returns the
// value of the key "c" to write, nil when no term became common.
func (ix *Index) promote(since DocID) []byte {
	room := ix.opts.CommonTerms - len(ix.common)
	if len(ix.promoted) == 0 || room <= 0 {
		clear(ix.promoted)
		return nil
	}
	terms := make([]string, 0, len(ix.promoted))
	for t := range ix.promoted {
		terms = append(terms, t)
	}
	slices.SortFunc(terms, func(a, b string) int {
		return cmp.Or(cmp.Compare(ix.promoted[b], ix.promoted[a]), cmp.Compare(a, b))
	})
	common := make(map[string]DocID, len(ix.common)+len(terms))
	for t, s := range ix.common {
		common[t] = s
	}
	for _, t := range terms[:min(len(terms), room)] {
		common[t] = since
	}
	clear(ix.promoted)
	ix.common = common
	return encodeCommon(common)
}

// pairClauses returns must with each phrase of common terms (all of whose
// tokens are) written as the phrase of its pairs, and the first document
// whose pairs the index holds for all of them; false when no clause is.
func (ix *Index) pairClauses(must []Clause) ([]Clause, DocID, bool) {
	out := slices.Clone(must)
	var since DocID
	changed := false
clauses:
	for i, c := range must {
		if len(c.Tokens) < 2 {
			continue
		}
		for k, t := range c.Tokens {
			s, ok := ix.common[t.Term]
			if !ok || t.Prefix || k > 0 && t.Pos != c.Tokens[k-1].Pos+1 {
				continue clauses
			}
			since = max(since, s)
		}
		pairs := make([]Token, len(c.Tokens)-1)
		for k := range pairs {
			a := c.Tokens[k]
			pairs[k] = Token{Term: pairTerm(a.Term, c.Tokens[k+1].Term), Start: a.Start, End: c.Tokens[k+1].End, Pos: a.Pos}
		}
		out[i].Tokens = pairs
		changed = true
	}
	return out, since, changed
}

// prunedSearch returns the limit best matches of a pruned search (topK): for
// a query with phrases of common words, the best of the documents whose pairs
// the index holds, searched by the phrases of their pairs, and of the
// documents before them, searched by the phrases' tokens.
func (ix *Index) prunedSearch(must, mustNot []Clause, fs filterSet, sc scorer, limit int) ([]candidate, int, bool, error) {
	pairs, since, ok := ix.pairClauses(must)
	if !ok {
		return ix.topK(must, mustNot, scope{}, fs, sc, limit)
	}
	late, lateTotal, lateEstimated, err := ix.topK(pairs, mustNot, scope{idfOf: must}, fs, sc, limit)
	if err != nil || since == 0 {
		return late, lateTotal, lateEstimated, err
	}
	early, earlyTotal, earlyEstimated, err := ix.topK(must, mustNot, scope{below: since}, fs, sc, limit)
	if err != nil {
		return nil, 0, false, err
	}
	return best(append(late, early...), limit), lateTotal + earlyTotal, lateEstimated || earlyEstimated, nil
}
