// Package notary is the team archive's notary log: an append-only Merkle log of the
// bundles it stores, with signed tree heads, so that anyone holding a head can check
// that a bundle was logged, and logged unchanged, and that the log never rewrote
// what it had shown before.
//
// The log is a transparency log as RFC 6962 (and RFC 9162) defines one: leaf hash
// SHA-256(0x00 || leaf), interior node SHA-256(0x01 || left || right), the tree over
// leaves 0 to n-1 split at the largest power of two below n. Hashing, inclusion
// proofs and consistency proofs are golang.org/x/mod/sumdb/tlog's (the Go checksum
// database's); tree heads are golang.org/x/mod/sumdb/note signed notes.
//
// # Leaves
//
// A leaf is one line of ASCII, the record of a stored bundle (see Leaf):
//
//	webkeep-bundle <name> <upload id> <sha256> <size>
//
// fields separated by one space (0x20), sha256 the 64 lowercase hex digits of the
// SHA-256 of the bundle's bytes, size their number in decimal without leading zeros,
// and no newline at the end: the leaf hash is SHA-256 of 0x00 followed by exactly
// those bytes. For example
//
//	webkeep-bundle site.zip 20240901T120000.000000000Z-0123456789abcdef 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 4
//
// # Tree heads
//
// A head is a checkpoint (the C2SP tlog-checkpoint text): three lines, each ending
// in a newline,
//
//	<origin>
//	<tree size, decimal>
//	<root hash, standard base64>
//
// signed as a note by the log's Ed25519 key, whose name is the origin. A log without
// a key writes the same text, unsigned, under the origin DefaultOrigin.
//
// # Storage
//
// A Log lives in one mergedindex.Store (a Durable Object in the Worker), under
//
//	m/tree              the tree: size, root hash and the hashes of its complete
//	                    subtrees on the right edge, one base64 hash a line
//	h/<%016x index>     tlog's stored hashes, by tlog.StoredHashIndex, base64
//	l/<%016x index>     the leaf of each index, as appended
//	r/<hex leaf hash>   the index of each leaf hash, decimal
//	q/<hex leaf hash>   a leaf announced and not yet logged
//
// An append announces its leaf (q/, unless the leaf is logged) as it reads m/tree
// and the leaves announced, computes the stored hashes of its own leaf and of the
// others announced (up to 64 in all, its own first) and the new tree from m/tree
// alone, and writes them, removing their announcements, with a batch conditioned
// on m/tree being still what it read: of concurrent appends one wins, the others
// mostly find their leaves logged by it, and the rest try again on the new tree. So
// the log never forks, no leaf is lost or logged twice, and a burst of uploads
// costs a few rounds rather than one a leaf. Stored hashes never change once
// written.
package notary
