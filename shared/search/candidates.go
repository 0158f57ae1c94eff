package search

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// matchAll returns the documents that hold every clause of must and none of
// mustNot, reading every block of their tokens; every document when must is
// empty.
func (ix *Index) matchAll(must, mustNot []Clause) ([]candidate, error) {
	var cands []candidate
	if len(must) > 0 {
		var matches []clauseMatch
		for _, c := range must {
			m, err := ix.matchClause(c)
			if err != nil {
				return nil, err
			}
			if len(m.docs) == 0 {
				return nil, nil
			}
			matches = append(matches, m)
		}
		cands = intersect(matches)
		idf := make([]float64, len(matches))
		for i, m := range matches {
			idf[i] = ix.idf(must[i], m.df)
		}
		for i := range cands {
			cands[i].idf = idf
		}
	} else {
		var bad error
		err := ix.store.Scan(keyDoc, func(key string, _ []byte) bool {
			id, err := parseDocKey(key[len(keyDoc):])
			if err != nil {
				bad = err
				return false
			}
			cands = append(cands, candidate{id: id})
			return true
		})
		if err == nil {
			err = bad
		}
		if err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
	}
	for _, c := range mustNot {
		m, err := ix.matchClause(c)
		if err != nil {
			return nil, err
		}
		cands = exclude(cands, m)
	}
	return cands, nil
}

// intersect returns the documents that every match holds, walking the
// shortest.
func intersect(matches []clauseMatch) []candidate {
	var cands []candidate
	order := make([]int, len(matches))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return len(matches[a].docs) - len(matches[b].docs) })
	cursor := make([]int, len(matches))
	shortest := matches[order[0]]
docs:
	for i, d := range shortest.docs {
		starts := make([][]uint32, len(matches))
		starts[order[0]] = shortest.starts[i]
		for _, k := range order[1:] {
			m := matches[k]
			j, found := slices.BinarySearch(m.docs[cursor[k]:], d)
			cursor[k] += j
			if !found {
				continue docs
			}
			starts[k] = m.starts[cursor[k]]
		}
		cands = append(cands, candidate{id: d, starts: starts})
	}
	return cands
}

// exclude removes from cands the documents m holds.
func exclude(cands []candidate, m clauseMatch) []candidate {
	return slices.DeleteFunc(cands, func(c candidate) bool {
		_, found := slices.BinarySearch(m.docs, c.id)
		return found
	})
}

// idf is the inverse document frequency of a clause whose tokens are in df
// documents each (the corpus's counts instead when Options.Corpus has them):
// the sum of its tokens'.
func (ix *Index) idf(c Clause, df []int) float64 {
	N := float64(ix.meta.docs)
	corpus := ix.opts.Corpus
	if corpus != nil {
		N = float64(corpus.Docs)
	}
	idf := 0.0
	for k, n := range df {
		if g, ok := corpus.df(c.Tokens[k]); ok {
			n = g
		}
		idf += math.Log(1 + (N-float64(n)+0.5)/(float64(n)+0.5))
	}
	return idf
}

// score keeps the candidates whose documents are there and pass the filters,
// with their numbers (and, when a filter needs them, strings) and their
// scores. It reorders cands. ranks, when not nil, keeps the rank table's
// values read (see rankOf).
func (ix *Index) score(cands []candidate, fs filterSet, sc scorer, ranks map[string][]byte) ([]candidate, error) {
	// Numbers in id order read the rank table's values in order.
	slices.SortFunc(cands, func(a, b candidate) int { return cmp.Compare(a.id, b.id) })
	// A document's numbers come from the rank table, its strings (which some
	// filters need) from its record, as do the numbers the table lacks.
	ids := make([]DocID, len(cands))
	for i, c := range cands {
		ids[i] = c.id
	}
	recs, found := make([]record, len(cands)), make([]bool, len(cands))
	if !fs.needStrings {
		var err error
		if recs, found, err = ix.rankOf(ids, ranks); err != nil {
			return nil, err
		}
	}
	var keys []string
	var at []int
	for i, ok := range found {
		if !ok {
			keys, at = append(keys, keyDoc+docKey(ids[i])), append(at, i)
		}
	}
	fields, err := getMany(ix.store, keys)
	if err != nil {
		return nil, fmt.Errorf("search: documents: %w", err)
	}
	for j, v := range fields {
		if v == nil {
			continue
		}
		i := at[j]
		if recs[i], err = decodeRecord(v, !fs.needStrings); err != nil {
			return nil, fmt.Errorf("search: document %d: %w", ids[i], err)
		}
		found[i] = true
	}
	kept := cands[:0]
	for i, c := range cands {
		if !found[i] {
			continue
		}
		c.rec = recs[i].clamped()
		if !fs.match(&c.rec) {
			continue
		}
		dl := float64(weightedLength(c.rec.length, c.rec.titleLen))
		for i, starts := range c.starts {
			c.score += sc.score(c.idf[i], float64(weightedFrequency(starts, c.rec.titleLen)), dl)
		}
		kept = append(kept, c)
	}
	return kept, nil
}
