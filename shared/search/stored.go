package search

import (
	"errors"
	"fmt"
)

// StoredText returns the text the index keeps of a document (its first
// Options.StoredText bytes): what a caller that searched with Options.Text
// returning "" reads afterwards for the snippets of the results it keeps. It
// returns "" for a document whose text is not kept.
func (ix *Index) StoredText(id DocID) (string, error) {
	v, err := ix.store.Get(keyText + docKey(id))
	if errors.Is(err, ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("search: text of %d: %w", id, err)
	}
	text, err := decompressText(v)
	if err != nil {
		return "", fmt.Errorf("search: text of %d: %w", id, err)
	}
	return text, nil
}

// Documents calls fn for each document the index has written, in id order,
// with its fields and the text it keeps of it (whole when it was no longer than
// Options.StoredText), until fn returns false: what merging indexes reads.
// Documents still pending are written first.
func (ix *Index) Documents(fn func(id DocID, d Document) bool) error {
	ix.mu.Lock()
	err := ix.flush()
	ix.mu.Unlock()
	if err != nil {
		return err
	}
	type entry struct {
		id  DocID
		rec record
	}
	// The records first (the store may not be used from within its Scan).
	var batch []entry
	var bad error
	next := keyDoc
	for {
		batch = batch[:0]
		err := ix.store.Scan(keyDoc, func(key string, value []byte) bool {
			if key < next {
				return true
			}
			id, err := parseDocKey(key[len(keyDoc):])
			if err == nil {
				var rec record
				if rec, err = decodeRecord(value, false); err == nil {
					batch = append(batch, entry{id, rec})
				}
			}
			if err != nil {
				bad = fmt.Errorf("search: key %q: %w", key, err)
				return false
			}
			return len(batch) < 256
		})
		if err == nil {
			err = bad
		}
		if err != nil {
			return err
		}
		for _, e := range batch {
			text, err := ix.StoredText(e.id)
			if err != nil {
				return err
			}
			d := Document{Session: e.rec.session, URL: e.rec.url, Time: e.rec.time, Method: e.rec.method,
				Status: e.rec.status, Mime: e.rec.mime, Ref: e.rec.ref, Title: e.rec.title, Text: text}
			if !fn(e.id, d) {
				return nil
			}
		}
		if len(batch) < 256 {
			return nil
		}
		next = keyDoc + docKey(batch[len(batch)-1].id+1)
	}
}

// A Corpus is what BM25 ranks by: how many documents there are, the sum of
// their lengths (a title's tokens counting three times), and how many hold
// each token of a query (by TokenKey). Indexes searched apart (the segments
// of one archive) rank as one when each is searched with Options.Corpus set
// to the sum of their Corpus for the query.
type Corpus struct {
	Docs   uint64
	Length uint64
	DF     map[string]int
}

// TokenKey is a token's key in Corpus.DF: its term, and "*" after it for a
// prefix token.
func TokenKey(t Token) string {
	if t.Prefix {
		return t.Term + "*"
	}
	return t.Term
}

// Add adds o's counts to c's.
func (c *Corpus) Add(o Corpus) {
	c.Docs += o.Docs
	c.Length += o.Length
	if c.DF == nil {
		c.DF = map[string]int{}
	}
	for k, n := range o.DF {
		c.DF[k] += n
	}
}

// df returns a token's document frequency in c; false when c is nil or does
// not count it.
func (c *Corpus) df(t Token) (int, bool) {
	if c == nil {
		return 0, false
	}
	n, ok := c.DF[TokenKey(t)]
	return n, ok
}

// Corpus returns the index's own counts for the tokens of q's clauses that
// must hold (documents held, removed ones no longer counted).
func (ix *Index) Corpus(q Query) (Corpus, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if err := ix.flush(); err != nil {
		return Corpus{}, err
	}
	c := Corpus{Docs: ix.meta.docs, Length: ix.meta.length, DF: map[string]int{}}
	// A term's count is in its summary and tail block; a prefix token's
	// terms are read.
	var terms []string
	for _, cl := range q.Clauses {
		for _, t := range cl.Tokens {
			if !cl.Exclude && !t.Prefix {
				terms = append(terms, t.Term)
			}
		}
	}
	counts, err := ix.readTerms(terms)
	if err != nil {
		return Corpus{}, err
	}
	for _, cl := range q.Clauses {
		if cl.Exclude {
			continue
		}
		for _, t := range cl.Tokens {
			if _, done := c.DF[TokenKey(t)]; done {
				continue
			}
			if !t.Prefix {
				c.DF[TokenKey(t)] = counts[t.Term].df
				continue
			}
			p, err := ix.load(t)
			if err != nil {
				return Corpus{}, err
			}
			c.DF[TokenKey(t)] = len(p.docs)
		}
	}
	return c, nil
}
