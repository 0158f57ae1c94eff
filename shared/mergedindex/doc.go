// Package mergedindex is the team archive's merged CDX index: every bundle's CDXJ
// lines in one key order, so that a query reads a bounded number of objects however
// many bundles the archive holds.
//
// The layout is the Internet Archive's ZipNum with delta indexes:
//
//   - The key space is split into shards by key range. A directory store maps each
//     shard's low key to its name (r/<low key>); each shard's store knows its own
//     range and the shard after it, so a reader or writer whose directory is behind
//     a split follows the shards' own links.
//   - A shard's main index is ZipNum (package zipnum): gzip blocks of
//     Config.LinesPerBlock sorted lines, one after the other in one blob of the
//     object store (R2), and a summary entry per block in the shard's store (its
//     first key and where it lies). A lookup reads the summary entries of its range
//     from the store and the blocks from the blob, in one range read.
//   - The shard's store also keeps a copy of the blocks, for the first
//     Config.InlineBytes of them. A lookup reads the copies of its first two blocks
//     with the summary, in the same store call, and so reads no blob: a lookup in a
//     compacted shard costs what one in a shard not yet compacted costs.
//   - A shard's delta holds the lines added since its last compaction, one store
//     entry each; an upload is answered by queries as soon as Add returns.
//   - Removing an upload deletes its delta lines and records the upload (a
//     tombstone) in each shard it had lines in; queries drop the main index's lines
//     of removed uploads until compaction drops them for good.
//   - Compact merges a shard's delta into a new main index (a new blob) and swaps the
//     summary and the tombstones it folded in with one atomic store call: a
//     compaction stopped at any point leaves the shard answering from its old blocks
//     or its new ones, never both, never neither. The delta lines it folded in are
//     deleted after, a store call per 500 (one call could pass a Durable Object's
//     32 MiB); until then they are read once, beside the same lines in the new
//     blocks. Old blobs are kept for Config.Grace, for queries under way, then
//     deleted.
//   - A shard past Config.SplitLines is split at the first key of its middle block:
//     a new shard takes the upper range, pending, while readers read both (lines are
//     deduplicated) until the compaction has written its main index.
//
// Every line carries its bundle's name ("source") and upload ("upload"): Tag.
// A digest index (Holders) says which live uploads hold a payload, for
// deduplication across uploads.
//
// The stores are Store values: a Durable Object with SQLite storage each in the
// Worker, MemStores natively. Their one call, Do, runs a Batch of conditions,
// operations and scans atomically.
package mergedindex
