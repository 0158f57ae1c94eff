package search

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// A DocID names a document of an Index. IDs are given in increasing order and
// never reused.
type DocID uint64

// maxDocID bounds DocIDs to what eight base-32 digits of a key hold.
const maxDocID = 1<<40 - 1

// A Document is what an Index holds of one recorded answer.
type Document struct {
	Session string    // the recording session's id (no NUL byte)
	URL     string    // the URL requested
	Time    time.Time // when the answer was recorded
	Method  string    // the request's method
	Status  int       // the answer's status code
	Mime    string    // the answer's media type, without parameters
	// Ref locates the record, for the caller: the index keeps it and returns it
	// with results (a store key, a file and offset).
	Ref   string
	Title string // the page's title, from Extract
	Text  string // the page's text, from Extract
}

// Options tune an Index. The zero value is the default.
type Options struct {
	// StoredText is how many bytes of a document's text the index keeps,
	// compressed, for snippets: 0 means DefaultStoredText; a negative value
	// keeps none.
	StoredText int
	// Text, when set, returns the text of a result for its snippet, and the
	// index keeps none (StoredText is ignored): the caller reads the record
	// again (Result.Ref) and extracts it.
	Text func(r *Result) (string, error)
	// FlushDocs is how many added documents Add buffers before it writes them to
	// the store (0: DefaultFlushDocs).
	FlushDocs int
	// Corpus, when set, is what Search ranks by instead of the index's own
	// counts: the documents of several indexes searched apart (see Corpus).
	Corpus *Corpus
	// CommonTerms is how many terms at most the index makes common, indexing
	// the pairs they form (pairs.go): 0 means DefaultCommonTerms; a negative
	// value makes none common. Terms made common stay so.
	CommonTerms int
}

// Defaults of Options.
const (
	DefaultStoredText  = 64 << 10
	DefaultFlushDocs   = 512
	DefaultCommonTerms = 32
)

// Ranking parameters: BM25's k1 and b, and the weight of a title's tokens.
const (
	bm25K1      = 1.2
	bm25B       = 0.75
	titleWeight = 3
)

// blockSize is the size a posting block is sealed at.
const blockSize = 2 << 10

// An Index is a full-text index of documents in a Store: posting lists of
// their tokens, their fields, and (unless Options.Text is set) their text
// compressed for snippets. Its methods are safe for concurrent use; one Index
// at a time may write a store.
type Index struct {
	mu    sync.Mutex
	store Store
	opts  Options
	meta  meta

	// Documents added and not yet written.
	pending     map[string]*pendingList
	pendingDocs []pendingDoc
	scratch     map[string][]uint32

	// The common terms, whose pairs are indexed from their since (pairs.go),
	// and the terms a flush found common, by their document counts.
	common   map[string]DocID
	promoted map[string]int
}

// meta is the index's key "m": counters.
type meta struct {
	next   DocID  // the next id to give
	docs   uint64 // documents held
	length uint64 // the sum of their weighted lengths (tokens; title tokens count titleWeight)
	// legacy says the index was written by version 1, whose blocks have no
	// frontiers and whose terms have no summaries: a term without a summary
	// may have sealed blocks, which reading its blocks finds.
	legacy bool
}

// pendingList is a term's postings of the pending documents: each entry's
// number of positions and its positions as deltas, as a block holds them after
// the document's delta, one after the other in buf.
type pendingList struct {
	ents []pendingEntry
	buf  []byte
}

// pendingEntry is a pending document's posting of a term: where its bytes
// end in the list's buf, its point (weighted term frequency and length) and
// its title's length (bounded as in the rank table).
type pendingEntry struct {
	id    DocID
	end   int
	pt    point
	title uint16
}

// pendingDoc is what a pending document writes besides its postings.
type pendingDoc struct {
	id      DocID
	session string
	record  []byte
	terms   []byte // the forward list
	text    []byte // compressed text, nil for none
}

// Open returns the Index held in s (an empty one if s is empty). opts may be nil.
func Open(s Store, opts *Options) (*Index, error) {
	ix := &Index{store: s, pending: map[string]*pendingList{}, scratch: map[string][]uint32{}}
	if opts != nil {
		ix.opts = *opts
	}
	if ix.opts.StoredText == 0 {
		ix.opts.StoredText = DefaultStoredText
	}
	if ix.opts.FlushDocs <= 0 {
		ix.opts.FlushDocs = DefaultFlushDocs
	}
	if ix.opts.CommonTerms == 0 {
		ix.opts.CommonTerms = DefaultCommonTerms
	}
	// The counters and the common terms, in one call: absent in an empty index.
	values, err := getMany(s, []string{keyMeta, keyCommon})
	if err != nil {
		return nil, fmt.Errorf("search: open: %w", err)
	}
	if v := values[0]; v != nil {
		if ix.meta, err = decodeMeta(v); err != nil {
			return nil, fmt.Errorf("search: open: %w", err)
		}
	}
	if v := values[1]; v != nil {
		if ix.common, err = decodeCommon(v); err != nil {
			return nil, fmt.Errorf("search: open: %w", err)
		}
	}
	return ix, nil
}

// Len returns the number of documents in the index, pending ones included.
func (ix *Index) Len() int {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return int(ix.meta.docs) + len(ix.pendingDocs)
}

// Add adds a document and returns its id. Documents are buffered and written
// to the store every Options.FlushDocs documents, by Flush, or before a Search
// or Delete.
func (ix *Index) Add(d Document) (DocID, error) {
	if strings.IndexByte(d.Session, 0) >= 0 || !utf8.ValidString(d.Session) {
		return 0, fmt.Errorf("search: add: session id %q has a NUL byte or is not UTF-8", d.Session)
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.meta.next+DocID(len(ix.pendingDocs)) > maxDocID {
		return 0, errors.New("search: add: no document ids left")
	}
	id := ix.meta.next + DocID(len(ix.pendingDocs))

	toks, titleLen, textLen := documentTokens(d.Title, d.Text)
	// The length a search ranks by, from fields bounded as in the rank table.
	r := record{length: textLen, titleLen: titleLen}.clamped()
	dl := uint32(min(weightedLength(r.length, r.titleLen), math.MaxUint32))
	clear(ix.scratch)
	for _, t := range toks {
		ix.scratch[t.Term] = append(ix.scratch[t.Term], uint32(t.Pos))
	}
	ix.addPairs(ix.scratch, id, toks)
	terms := make([]string, 0, len(ix.scratch))
	for term, pos := range ix.scratch {
		pl := ix.pending[term]
		if pl == nil {
			term = strings.Clone(term)
			pl = &pendingList{}
			ix.pending[term] = pl
		}
		pl.buf = appendPositions(pl.buf, pos)
		tf := weightedFrequency(pos, titleLen)
		pl.ents = append(pl.ents, pendingEntry{id: id, end: len(pl.buf), pt: point{tf: uint32(tf), dl: dl}, title: uint16(r.titleLen)})
		terms = append(terms, term)
	}
	slices.Sort(terms)

	pd := pendingDoc{
		id:      id,
		session: d.Session,
		record:  encodeRecord(d, textLen, titleLen),
	}
	// A document whose whole text is kept needs no list of its terms: Delete
	// tokenizes the text again.
	whole := false
	if ix.opts.Text == nil && ix.opts.StoredText > 0 {
		text := d.Text
		whole = len(text) <= ix.opts.StoredText
		if !whole {
			cut := ix.opts.StoredText
			for cut > 0 && !utf8.RuneStart(text[cut]) {
				cut--
			}
			text = text[:cut]
		}
		pd.text = compressText(text)
	}
	if !whole {
		pd.terms = encodeTerms(terms)
	}
	ix.pendingDocs = append(ix.pendingDocs, pd)
	if len(ix.pendingDocs) >= ix.opts.FlushDocs {
		if err := ix.flush(); err != nil {
			return 0, err
		}
	}
	return id, nil
}

// weightedFrequency is a term's frequency for BM25 in a document whose title takes
// positions 0 to titleLen-1: each position in the title counts titleWeight times.
func weightedFrequency(positions []uint32, titleLen int) int {
	tf := 0
	for _, p := range positions {
		if int(p) < titleLen {
			tf += titleWeight
		} else {
			tf++
		}
	}
	return tf
}

// weightedLength is a document's length for BM25.
func weightedLength(textLen, titleLen int) uint64 {
	return uint64(textLen + titleWeight*titleLen)
}

// Flush writes the pending documents to the store.
func (ix *Index) Flush() error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.flush()
}

func (ix *Index) flush() error {
	if len(ix.pendingDocs) == 0 {
		return nil
	}
	if err := ix.flushPostings(); err != nil {
		return err
	}
	m := ix.meta
	ranked := make([]DocID, 0, len(ix.pendingDocs))
	ranks := make([]*record, 0, len(ix.pendingDocs))
	for _, pd := range ix.pendingDocs {
		id := docKey(pd.id)
		puts := []struct {
			key   string
			value []byte
		}{
			{keyDoc + id, pd.record},
			{keySession + pd.session + "\x00" + id, nil},
		}
		if pd.terms != nil {
			puts = append(puts, struct {
				key   string
				value []byte
			}{keyTerms + id, pd.terms})
		}
		if pd.text != nil {
			puts = append(puts, struct {
				key   string
				value []byte
			}{keyText + id, pd.text})
		}
		for _, p := range puts {
			if err := ix.store.Put(p.key, p.value); err != nil {
				return fmt.Errorf("search: flush: %w", err)
			}
		}
		r, err := decodeRecord(pd.record, true)
		if err != nil {
			return err
		}
		m.docs++
		m.length += weightedLength(r.length, r.titleLen)
		m.next = pd.id + 1
		ranked, ranks = append(ranked, pd.id), append(ranks, &r)
	}
	if err := ix.setRank(ranked, ranks); err != nil {
		return err
	}
	if c := ix.promote(m.next); c != nil {
		if err := ix.store.Put(keyCommon, c); err != nil {
			return fmt.Errorf("search: flush: %w", err)
		}
	}
	if err := ix.store.Put(keyMeta, m.encode()); err != nil {
		return fmt.Errorf("search: flush: %w", err)
	}
	ix.meta = m
	clear(ix.pending)
	ix.pendingDocs = ix.pendingDocs[:0]
	return nil
}

// flushPostings appends the pending postings of every term to its tail block.
// It reads the tails in one call, then in another the summaries of the terms
// whose tails may be sealed: a store whose every read is a round trip
// (IndexedDB) would otherwise make one per term, thousands a flush.
func (ix *Index) flushPostings() error {
	terms := slices.Sorted(maps.Keys(ix.pending))
	keys := make([]string, len(terms))
	for i, term := range terms {
		keys[i] = termKey(term) + tailSuffix
	}
	tails, err := getMany(ix.store, keys)
	if err != nil {
		return fmt.Errorf("search: flush: tail blocks: %w", err)
	}
	keys = keys[:0]
	for i, term := range terms {
		// At most a varint of 10 bytes and the positions for each document.
		if pl := ix.pending[term]; len(tails[i])+len(pl.buf)+10*len(pl.ents) >= blockSize {
			keys = append(keys, summaryKey(term))
		}
	}
	values, err := getMany(ix.store, keys)
	if err != nil {
		return fmt.Errorf("search: flush: summaries: %w", err)
	}
	summaries := make(map[string][]byte, len(keys))
	for i, k := range keys {
		summaries[k] = values[i]
	}
	for i, term := range terms {
		summary, read := summaries[summaryKey(term)]
		if err := ix.appendPostings(term, ix.pending[term], tails[i], summary, read); err != nil {
			return fmt.Errorf("search: flush: term %q: %w", term, err)
		}
	}
	return nil
}

// appendPostings appends a term's pending postings to its tail block, old (nil
// for none), sealing the block (writing it under the key of its first
// document, in the term's summary) each time it reaches blockSize. summary is
// the term's summary when read says it was read (nil for none).
func (ix *Index) appendPostings(term string, pl *pendingList, old, summary []byte, read bool) error {
	tail := termKey(term) + tailSuffix
	var cur blockHeader
	var body []byte
	if old != nil {
		var err error
		if cur, body, err = decodeHeader(old); err != nil {
			return err
		}
		body = slices.Clone(body)
	}
	var sealed []*blockRef
	start := 0
	for _, e := range pl.ents {
		if cur.count == 0 {
			cur = blockHeader{first: e.id, last: e.id}
		}
		offset := len(body)
		body = binary.AppendUvarint(body, uint64(e.id-cur.last))
		body = append(body, pl.buf[start:e.end]...)
		start = e.end
		cur.note(e.id, e.pt, int(e.title), offset)
		if len(body) >= blockSize {
			sealed = append(sealed, &blockRef{key: termKey(term) + docKey(cur.first), id: cur.first, h: cur,
				value: append(appendHeader(nil, cur), body...)})
			cur, body = blockHeader{}, nil
		}
	}
	if len(sealed) > 0 {
		var blocks []*blockRef
		var err error
		if read && (summary != nil || !ix.meta.legacy) {
			blocks, err = decodeSummary(term, summary)
		} else {
			blocks, err = ix.summary(term)
		}
		if err != nil {
			return err
		}
		df := cur.count
		for _, b := range slices.Concat(blocks, sealed) {
			df += b.h.count
		}
		ix.noteCommon(term, df, ix.meta.docs+uint64(len(ix.pendingDocs)))
		for _, b := range sealed {
			if err := ix.store.Put(b.key, b.value); err != nil {
				return err
			}
		}
		if err := ix.store.Put(summaryKey(term), encodeSummary(append(blocks, sealed...))); err != nil {
			return err
		}
	}
	if cur.count > 0 {
		return ix.store.Put(tail, append(appendHeader(nil, cur), body...))
	}
	if old != nil {
		return ix.store.Delete(tail)
	}
	return nil
}

// summary returns a term's sealed blocks as its summary lists them; for a
// term of a legacy index that has none, as reading its blocks finds them.
func (ix *Index) summary(term string) ([]*blockRef, error) {
	v, err := ix.store.Get(summaryKey(term))
	switch {
	case err == nil:
		return decodeSummary(term, v)
	case !errors.Is(err, ErrNotFound):
		return nil, err
	case !ix.meta.legacy:
		return nil, nil
	}
	blocks, err := ix.blocks(term)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(blocks, func(b *blockRef) bool { return b.key == termKey(term)+tailSuffix }), nil
}

// blocks reads every block of a term, its tail last.
func (ix *Index) blocks(term string) ([]*blockRef, error) {
	var blocks []*blockRef
	var bad error
	prefix := termKey(term)
	err := ix.store.Scan(prefix, func(key string, value []byte) bool {
		b := &blockRef{key: key, value: slices.Clone(value)}
		if b.h, _, bad = decodeHeader(value); bad != nil {
			return false
		}
		if id := key[len(prefix):]; id != tailSuffix {
			if b.id, bad = parseDocKey(id); bad != nil {
				return false
			}
		}
		blocks = append(blocks, b)
		return true
	})
	if err == nil {
		err = bad
	}
	if err != nil {
		return nil, fmt.Errorf("blocks of %q: %w", term, err)
	}
	return blocks, nil
}

// Delete removes a document: its postings from every list, its fields and its
// text. Deleting an id the index does not hold returns ErrNotFound.
func (ix *Index) Delete(id DocID) error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if err := ix.flush(); err != nil {
		return err
	}
	if _, err := ix.store.Get(keyDoc + docKey(id)); err != nil {
		return fmt.Errorf("search: delete %d: %w", id, err) // ErrNotFound for an id not held
	}
	return ix.deleteDocs([]DocID{id})
}

// DeleteSession removes every document of a session and returns how many.
func (ix *Index) DeleteSession(session string) (int, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if err := ix.flush(); err != nil {
		return 0, err
	}
	var ids []DocID
	prefix := keySession + session + "\x00"
	var bad error
	err := ix.store.Scan(prefix, func(key string, _ []byte) bool {
		id, err := parseDocKey(key[len(prefix):])
		if err != nil {
			bad = fmt.Errorf("search: key %q: %w", key, err)
			return false
		}
		ids = append(ids, id)
		return true
	})
	if err == nil {
		err = bad
	}
	if err != nil {
		return 0, fmt.Errorf("search: delete session %q: %w", session, err)
	}
	return len(ids), ix.deleteDocs(ids)
}

// deleteDocs removes documents: each term of theirs is rewritten once.
func (ix *Index) deleteDocs(ids []DocID) error {
	if len(ids) == 0 {
		return nil
	}
	slices.Sort(ids)
	byTerm := map[string][]DocID{}
	records := make([]record, len(ids))
	for i, id := range ids {
		v, err := ix.store.Get(keyDoc + docKey(id))
		if err != nil {
			return fmt.Errorf("search: delete %d: %w", id, err)
		}
		if records[i], err = decodeRecord(v, false); err != nil {
			return fmt.Errorf("search: delete %d: %w", id, err)
		}
		terms, err := ix.docTerms(id, records[i].title)
		if err != nil {
			return fmt.Errorf("search: delete %d: terms: %w", id, err)
		}
		for _, t := range terms {
			byTerm[t] = append(byTerm[t], id)
		}
	}
	for term, docs := range byTerm {
		if err := ix.removePostings(term, docs); err != nil {
			return fmt.Errorf("search: delete: term %q: %w", term, err)
		}
	}
	if err := ix.setRank(ids, make([]*record, len(ids))); err != nil {
		return fmt.Errorf("search: delete: %w", err)
	}
	m := ix.meta
	for i, id := range ids {
		k := docKey(id)
		for _, key := range []string{keyDoc + k, keyTerms + k, keyText + k, keySession + records[i].session + "\x00" + k} {
			if err := ix.store.Delete(key); err != nil {
				return fmt.Errorf("search: delete %d: %w", id, err)
			}
		}
		m.docs--
		m.length -= weightedLength(records[i].length, records[i].titleLen)
	}
	if err := ix.store.Put(keyMeta, m.encode()); err != nil {
		return fmt.Errorf("search: delete: %w", err)
	}
	ix.meta = m
	return nil
}

// removePostings removes the sorted docs from a term's blocks, and the
// blocks they empty from its summary. A block keeps its frontier, which bounds
// its scores still.
func (ix *Index) removePostings(term string, docs []DocID) error {
	blocks, err := ix.blocks(term)
	if err != nil {
		return err
	}
	changed := false
	kept := blocks[:0]
	for _, b := range blocks {
		i, _ := slices.BinarySearch(docs, b.h.first)
		if i == len(docs) || docs[i] > b.h.last {
			kept = append(kept, b)
			continue
		}
		var p, rest postings
		if err := p.decodeBlock(b.value); err != nil {
			return err
		}
		for i, d := range p.docs {
			if _, found := slices.BinarySearch(docs, d); !found {
				rest.add(d, p.positions(i))
			}
		}
		changed = changed || b.key != termKey(term)+tailSuffix
		if len(rest.docs) == 0 {
			if err := ix.store.Delete(b.key); err != nil {
				return err
			}
			continue
		}
		b.h = blockHeader{count: len(rest.docs), first: rest.docs[0], last: rest.docs[len(rest.docs)-1], front: b.h.front, title: b.h.title}
		if err := ix.store.Put(b.key, rest.encodeBlock(b.h)); err != nil {
			return err
		}
		kept = append(kept, b)
	}
	if !changed {
		return nil
	}
	sealed := slices.DeleteFunc(kept, func(b *blockRef) bool { return b.key == termKey(term)+tailSuffix })
	if len(sealed) == 0 {
		return ix.store.Delete(summaryKey(term))
	}
	return ix.store.Put(summaryKey(term), encodeSummary(sealed))
}

// docTerms returns the terms of a document: its list, or those of its title
// and its text when the index keeps the whole text instead.
func (ix *Index) docTerms(id DocID, title string) ([]string, error) {
	v, err := ix.store.Get(keyTerms + docKey(id))
	if err == nil {
		return decodeTerms(v)
	}
	if !errors.Is(err, ErrNotFound) {
		return nil, err
	}
	if v, err = ix.store.Get(keyText + docKey(id)); err != nil {
		return nil, err
	}
	text, err := decompressText(v)
	if err != nil {
		return nil, err
	}
	toks, _, _ := documentTokens(title, text)
	positions := map[string][]uint32{}
	for _, t := range toks {
		positions[t.Term] = nil
	}
	ix.addPairs(positions, id, toks)
	terms := make([]string, 0, len(positions))
	for t := range positions {
		terms = append(terms, t)
	}
	return terms, nil
}
