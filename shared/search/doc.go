// Package search is webkeep's full-text search of recorded pages: it extracts
// the text of answers as they are recorded, keeps an inverted index of it in a
// key-value store, and answers queries with ranked results and snippets.
//
// Extract reads the title and visible text of an HTML answer (and the text of
// text/plain, the string values of JSON, the character data of XML), bounded in
// length. Tokenize splits text into terms: words by Unicode word boundaries,
// folded (NFKD, combining marks removed, case-folded: "Zürich", "ZURICH" and
// "zurich" are one term); Han, Hiragana, Katakana and Hangul, which are written
// without spaces, as overlapping bigrams. ParseQuery reads a query: words,
// "phrases", -exclusions and filters (site:, method:, status:, from:, to:,
// session:, type:). An Index adds, deletes and searches documents; its Store is
// any ordered key-value store (IndexedDB in the extension; MemStore here).
//
// # Index layout
//
// Every key is a valid UTF-8 string; a document id is written as eight base-32
// digits (0-9a-v), which sort as the ids do. Integers in values are unsigned
// varints (encoding/binary) unless said otherwise.
//
//	m                         meta: version 1, next id, document count, sum of lengths
//	d/ID                      the document's fields: text length, title length (tokens),
//	                          status, time (signed varint, Unix ms), then session, URL,
//	                          method, mime, ref and title, each length-prefixed
//	f/ID                      its terms, sorted and front-coded (shared prefix length,
//	                          suffix length, suffix): what Delete removes it from; not
//	                          written when x/ID holds its whole text, which Delete
//	                          tokenizes again instead
//	x/ID                      its text, its first Options.StoredText bytes, deflated
//	n/BLOCK                   the rank table: for the 1,024 documents whose ids shifted
//	                          right by 10 are BLOCK (written as an ID), the numbers a
//	                          search ranks and filters by (text and title lengths,
//	                          status, time), 16 bytes each (rank.go), so that ranking
//	                          the documents a common word matches reads a value per
//	                          1,024 of them, not one each
//	s/SESSION NUL ID          empty: the documents of a session, for DeleteSession
//	t/TERM NUL ID             a sealed posting block of TERM whose first document is ID
//	t/TERM NUL ~              TERM's tail block, the one Add appends to
//
// A posting block is its document count, first and last document, then per
// document its distance from the previous one (0 for the first), its number of
// positions and the positions as deltas. A document's title tokens take
// positions 0 to its title length - 1 and its text's follow after one left
// free, so that a phrase does not span them and a match's position says where
// it is. Add appends to a term's tail block, which is sealed (moved to the key
// of its first document) once it reaches 2 KiB: adding costs one read and
// write of a small block per distinct term of a flush, whatever the list's
// length, and deleting rewrites only the blocks that hold the document.
// Documents are buffered and written Options.FlushDocs at a time, so that a
// term's tail is rewritten once per flush, not once per document.
//
// # Snippets
//
// A snippet needs the text around a match, which the posting lists do not
// keep. By default the index keeps each document's first 64 KiB of text
// deflated (about a third of its size: typically more than the postings of
// the same text), so that search needs nothing but the store, as the
// command-line tool and an index opened without its archive do. An index
// whose records stay at hand (the extension, where they are in the same
// IndexedDB) can set Options.Text to read and extract a result's record again
// instead: the index is then posting lists and fields only, and a page of 20
// results costs 20 extractions, a few milliseconds each.
//
// # Ranking
//
// Matches are ranked by BM25 (k1 1.2, b 0.75) over the clauses of the query,
// a phrase counting as one term whose idf is the sum of its tokens', with a
// title's tokens weighing three times a text's (in the term frequency and in
// the document's length).
package search
