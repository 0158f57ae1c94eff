// Package teamsearch is the team archive's full-text search: the text of every
// uploaded bundle's pages (extracted once, at upload, by package search), in
// segments that are merged in tiers, so that a query reads a number of objects
// that grows with the logarithm of the pages held, not with the bundles.
//
// # Layout
//
// A segment is a search.Index (posting lists, fields, the pages' text deflated)
// written once as a table in the blob store (R2), search/<id>.tbl: its keys and
// values in sorted blocks of about 16 KiB, a block index, a footer. A query
// opens each segment with one read of its block index, then reads the blocks
// that hold its terms' postings and its candidates' fields (a read that misses
// takes the blocks after too, twice as many bytes each time, up to 1 MiB), and
// the texts of the results it returns, for their snippets.
//
// One store (a Durable Object in the Worker, StoreName) lists them:
//
//	g/<segment>   the segment: its blob, pages, bytes, where its block index is,
//	              and its search index's meta (which the query then need not read)
//	u/<segment>   the uploads whose pages it holds, one a line
//	p/<upload>    the segment that holds the upload's pages
//	x/<upload>    the upload was removed; its pages are still in this segment
//	o/<time>/<blob>  a segment replaced by a merge, deleted after that time
//	l/lease       the merge under way
//
// Add writes an upload's pages as a new segment, then lists it: a query finds
// them as soon as Add returns. Remove deletes the upload's segment when it
// holds that upload alone (it was not merged yet); otherwise it marks the upload
// removed in its segment (x/), and every query drops its pages from then on.
// The segment of a removed upload does not change until a merge drops its
// pages: a merge rewrites p/ for the uploads it keeps. Merge, run from the Worker's queue, merges
// the Fanout smallest segments of a tier (tier t holds segments of about
// 64 KiB * Fanout^t) into one, dropping removed uploads' pages, and swaps them
// with one atomic call conditioned on its lease and its inputs being listed
// still: a merge stopped anywhere leaves the old segments answering. Segments
// past MaxSegmentBytes/2 are merged no more, but are rewritten alone to drop
// removed pages once Purge uploads have been removed.
//
// # Queries
//
// A query reads the store once (segments and removed uploads), then each
// segment, six at a time, twice: first the counts BM25 ranks by (documents,
// lengths, the query's document frequencies: search.Corpus), summed over the
// segments; then search.Index.Search over the segment's table, ranking by
// those sums, answers its best matches and how many match (all of them, for a
// segment that holds a removed upload, whose pages are then dropped). Pages
// rank as one index of them all would rank them, then newest first; snippets
// are made for the hits returned only.
package teamsearch
