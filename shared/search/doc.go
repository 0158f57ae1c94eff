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
//	m                         meta: version 2, next id, document count, sum of lengths,
//	                          flags (1: legacy, the index was written by version 1)
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
//	c                         the common terms: their count, then per term its length,
//	                          its bytes and its since (a document id; see Pairs)
//	t/TERM NUL ID             a sealed posting block of TERM whose first document was ID
//	t/TERM NUL ~              TERM's tail block, the one Add appends to
//	b/TERM                    TERM's summary: per sealed block, in order, its key's ID
//	                          (a delta from the previous block's), its first document
//	                          (from the ID), its last (from its first), its document
//	                          count, its frontier and its title bound; absent while
//	                          TERM has none
//
// A posting block is a 0 byte, its document count, first and last document,
// its frontier, its title bound, then per document its distance from the
// previous one (0 for the first), its number of positions and the positions
// as deltas. A frontier is a count n (1 to 8), then n pairs of a weighted term
// frequency and a weighted length, by frequency descending: the documents of
// the block that no other beats on both (blockmax.go); a block scores no more
// than its best pair. The title bound is the longest title (tokens) of the
// block's documents. A document's title tokens take positions 0 to its title length -
// 1 and its text's follow after one left free, so that a phrase does not span
// them and a match's position says where it is. Add appends to a term's tail
// block, which is sealed (moved to the key of its first document, and added to
// the term's summary) as soon as it reaches 2 KiB, the rest of the flush's
// postings going to the next block: adding costs one read and write of a
// small block per distinct term of a flush, whatever the list's length, and a
// read and write of the summary when a block is sealed; deleting rewrites
// only the blocks that hold the document, and the summary when it changes a
// sealed block (a block keeps its frontier, which still bounds its scores).
//
// A block is in strides of 32 documents (but for its last, which may be its
// only one): its header has a second 0 byte after the first (where another block's
// count, never 0, begins) and, after its title bound, the number of its
// strides and per stride its number of entries, where its entries begin (a
// delta from the previous stride's), the document its first entry's distance
// is from (a delta from the previous stride's), its frontier (at most 2
// pairs), its longest weighted length (2^32-1 when not known: a block
// rewritten by a delete keeps its block's frontier for each stride) and its
// shortest title. A search bounds a stride's scores without decoding it,
// passes it, or begins there. A tail written before strides gains them as it
// grows, the entries it had as one stride of unknown lengths.
// Documents are buffered and written Options.FlushDocs at a time, so that a
// term's tail is rewritten once per flush, not once per document.
//
// An index of version 1 (blocks without the 0 byte, frontier and title
// bound, terms without summaries) is read as it is: its blocks are bounded by
// the most a term can score, and a term without a summary has its blocks read whole, as
// version 1 did, until sealing a block or deleting from one writes its summary.
// The meta key's legacy flag says so, since in an index of version 2 a term
// without a summary has no sealed blocks.
//
// # Pairs
//
// A phrase of words most documents hold ("of the", "to be") matches few of
// them, but its words' lists are the longest of the index, and bounds from
// their frequencies do not tell the blocks that hold the phrase from the
// others: a search would read them all. So a word held by a tenth of the
// documents or more (64 at least), found so as one of its blocks is sealed,
// becomes common (Options.CommonTerms of them at most, 32 by default), and
// from the first document added after that flush (its since) the index also
// keeps each pair of consecutive common words as a term: a 0x01 byte before
// each word (pairs sort together, apart from the words), at the first one's
// position. A pruned search writes a phrase of
// common words as the phrase of its pairs for the documents from the latest
// since of its words, with the idf of its words, and as the phrase of its
// words for those before; the results are those of an index without pairs.
// A prefix token (a lone CJK character) matches words only: pairs begin with
// 0x01. Pairs cost about a seventh
// more index bytes on pages of English words (the extension's benchmark: 2.1
// KB a page, 1.8 KB without).
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
//
// # Pruning
//
// A search with a limit (of words, without prefix tokens) reads the summaries
// and tails of its terms in one call, and bounds what the documents of each
// block of its rarest token can score: per clause, the best frontier pair of
// the blocks of its tokens that overlap the block (a phrase's by its token
// that bounds it lowest), summed. It then reads those blocks, most promising
// first, in rounds (4 blocks, then four times as many each round, or, from the
// third round, all those that may still hold a result when they are half of
// the blocks left or more), matching, filtering and scoring their documents,
// and stops at the first block whose bound is below the limit-th best score
// found: the results are exactly the exhaustive ranking's first ones, ties
// included. A round reads the blocks it needs of every term in one call, but
// for a term of which it needs 8 blocks or more, half of those not read yet or
// more, whose blocks it reads with one scan of the term's keys (a store whose
// every key read is a round trip, IndexedDB, reads a few hundred blocks faster
// so); then one or two calls for the rank table or, for a rank block of which
// it needs 16 documents or fewer, their records. It walks the documents of each
// block of the rarest token and looks each up in the blocks of the other
// tokens, reading them as they are stored: it decodes the positions of none
// but the documents it looks up, and keeps those of none but the matches it
// ranks. A stride of the rarest token's block is passed, undecoded, when the
// sum of the best frontier pairs of the strides of each token that overlap it
// is below the threshold; a token's cursor seeks to the stride that may hold
// the document it looks up. A match is bounded before its numbers are read,
// from its frequencies (a phrase's, where its tokens follow one another; a
// position below the lead block's title bound counting as a title's) at its
// stride's shortest length; and, without filters, from below, at its stride's
// longest length with none of its positions counted as a title's but those
// below its stride's shortest title: the limit-th best of these lower bounds
// raises the threshold before the matches are ranked (ranking reads their
// numbers from the store, a call a round). In a search without filters, a
// match whose bound is below the threshold is counted and dropped, and the
// others are ranked best bound first, those that cannot reach the limit-th
// score left unranked and counted too; a search with filters ranks every
// match, so that its count of the blocks read is exact. Results.Total is then
// exact for a single word without exclusions or filters (its document count,
// from the summary), when at most 16 blocks were left (they are read) and no
// stride was passed, and otherwise an estimate (Results.Estimated): the
// matches found, plus the entries of the rarest token in the blocks left and
// the strides passed times the share of matches in those examined. A search
// without a limit reads everything.
package search
