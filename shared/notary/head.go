package notary

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// DefaultOrigin is the origin line of the heads of a log without a key.
const DefaultOrigin = "webkeep-notary"

// maxHead bounds a head's text and a signed head.
const maxHead = 64 << 10

// Errors of heads and proofs, usable with errors.Is.
var (
	// ErrHead is returned for a head that is not a checkpoint, or whose signature
	// does not verify with the key given.
	ErrHead = errors.New("notary: bad tree head")
	// ErrProof is returned for a proof that does not hold.
	ErrProof = errors.New("notary: proof does not verify")
	// ErrKey is returned for a malformed key.
	ErrKey = errors.New("notary: bad key")
)

// A Head is a tree head: the log's origin, its size and its root hash.
type Head struct {
	Origin string
	Tree   tlog.Tree
}

// FormatHead returns the text of a head: origin, size and base64 root hash, each on
// its line (a C2SP checkpoint).
func FormatHead(h Head) []byte {
	return fmt.Appendf(nil, "%s\n%d\n%s\n", h.Origin, h.Tree.N, h.Tree.Hash)
}

// ParseHead reads the text of a head (not a signed note: see OpenHead). Lines after
// the third are extensions of the checkpoint format, and ignored.
func ParseHead(text []byte) (Head, error) {
	if len(text) > maxHead || !utf8.Valid(text) || !bytes.HasSuffix(text, []byte("\n")) {
		return Head{}, fmt.Errorf("%w: not a checkpoint (three lines: origin, size, base64 root hash)", ErrHead)
	}
	lines := strings.SplitN(string(text), "\n", 4)
	if len(lines) < 4 {
		return Head{}, fmt.Errorf("%w: not a checkpoint (three lines: origin, size, base64 root hash)", ErrHead)
	}
	origin := lines[0]
	if !validOrigin(origin) {
		return Head{}, fmt.Errorf("%w: origin %.100q", ErrHead, origin)
	}
	n, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil || n < 0 || strconv.FormatInt(n, 10) != lines[1] {
		return Head{}, fmt.Errorf("%w: tree size %.100q", ErrHead, lines[1])
	}
	h, ok := decodeHash(lines[2])
	if !ok {
		return Head{}, fmt.Errorf("%w: root hash %.100q: want %d bytes in base64", ErrHead, lines[2], tlog.HashSize)
	}
	return Head{Origin: origin, Tree: tlog.Tree{N: n, Hash: h}}, nil
}

func validOrigin(s string) bool {
	return s != "" && utf8.ValidString(s) && strings.IndexFunc(s, func(r rune) bool { return r < ' ' || r == 0x7f }) < 0 &&
		!unicode.IsSpace(rune(s[0])) && !unicode.IsSpace(rune(s[len(s)-1]))
}

// OpenHead checks a signed head (a note) with the verifier key vkey and returns it.
// The head's origin must be the key's name.
func OpenHead(msg []byte, vkey string) (Head, error) {
	v, err := note.NewVerifier(strings.TrimSpace(vkey))
	if err != nil {
		return Head{}, fmt.Errorf("%w: verifier key: %v", ErrKey, err)
	}
	if len(msg) > maxHead {
		return Head{}, fmt.Errorf("%w: longer than %d bytes", ErrHead, maxHead)
	}
	n, err := note.Open(msg, note.VerifierList(v))
	if err != nil {
		return Head{}, fmt.Errorf("%w: %v", ErrHead, err)
	}
	h, err := ParseHead([]byte(n.Text))
	if err != nil {
		return Head{}, err
	}
	if h.Origin != v.Name() {
		return Head{}, fmt.Errorf("%w: the head's origin %q is not the key's name %q", ErrHead, h.Origin, v.Name())
	}
	return h, nil
}

// GenerateKey returns a new Ed25519 signer key (the Worker's secret) and its
// verifier key (what the archive serves), named name, as note.GenerateKey makes
// them. The name becomes the origin of the heads: a URL-like name of the archive,
// "archive.example.com/notary", is the custom.
func GenerateKey(name string) (skey, vkey string, err error) {
	if name == "" || !utf8.ValidString(name) || strings.IndexFunc(name, unicode.IsSpace) >= 0 || strings.Contains(name, "+") {
		return "", "", fmt.Errorf("%w: name %q: want no spaces and no \"+\"", ErrKey, name)
	}
	skey, vkey, err = note.GenerateKey(rand.Reader, name)
	if err != nil {
		return "", "", fmt.Errorf("%w: %v", ErrKey, err)
	}
	return skey, vkey, nil
}

// ParseSignerKey reads a signer key ("PRIVATE+KEY+<name>+<hash>+<key>", as
// note.GenerateKey writes it) and returns its signer and its verifier key.
func ParseSignerKey(skey string) (note.Signer, string, error) {
	skey = strings.TrimSpace(skey)
	s, err := note.NewSigner(skey)
	if err != nil {
		return nil, "", fmt.Errorf("%w: not a note signer key (PRIVATE+KEY+<name>+<hash>+<key>): %v", ErrKey, err)
	}
	// NewSigner checked the form and the hash; the verifier key is derived from
	// the seed, the fifth field (a name has no "+", base64 may).
	data, err := base64.StdEncoding.DecodeString(strings.SplitN(skey, "+", 5)[4])
	if err != nil || len(data) != 1+ed25519.SeedSize || data[0] != 1 {
		return nil, "", fmt.Errorf("%w: not an Ed25519 signer key", ErrKey)
	}
	pub := ed25519.NewKeyFromSeed(data[1:]).Public().(ed25519.PublicKey)
	vkey, err := note.NewEd25519VerifierKey(s.Name(), pub)
	if err != nil {
		return nil, "", fmt.Errorf("%w: %v", ErrKey, err)
	}
	return s, vkey, nil
}

// VerifyInclusion checks that leaf is the record at index of the tree head h, by
// the inclusion proof p (tlog.CheckRecord).
func VerifyInclusion(h Head, leaf []byte, index int64, p tlog.RecordProof) error {
	if index < 0 || index >= h.Tree.N {
		return fmt.Errorf("%w: index %d outside the tree of %d leaves", ErrProof, index, h.Tree.N)
	}
	if err := tlog.CheckRecord(p, h.Tree.N, h.Tree.Hash, index, tlog.RecordHash(leaf)); err != nil {
		return fmt.Errorf("%w: leaf %d is not that record in the tree of %d leaves: %v", ErrProof, index, h.Tree.N, err)
	}
	return nil
}

// VerifyConsistency checks that the tree of head older is a prefix of the tree of
// head newer, by the consistency proof p (tlog.CheckTree): the log was only
// appended to between them.
func VerifyConsistency(older, newer Head, p tlog.TreeProof) error {
	switch {
	case older.Origin != newer.Origin:
		return fmt.Errorf("%w: heads of two logs (%q, %q)", ErrProof, older.Origin, newer.Origin)
	case older.Tree.N > newer.Tree.N:
		return fmt.Errorf("%w: the old head has %d leaves, the new one %d", ErrProof, older.Tree.N, newer.Tree.N)
	case older.Tree.N == 0:
		if older.Tree.Hash != emptyHash() {
			return fmt.Errorf("%w: the old head is empty, with a root hash that is not the empty tree's", ErrProof)
		}
		return nil
	case older.Tree.N == newer.Tree.N && older.Tree.Hash != newer.Tree.Hash:
		return fmt.Errorf("%w: two different trees of %d leaves: the log forked", ErrProof, older.Tree.N)
	case older.Tree.N == newer.Tree.N:
		if len(p) != 0 {
			return fmt.Errorf("%w: the proof that a tree is consistent with itself is empty, this one has %d hashes", ErrProof, len(p))
		}
		return nil
	}
	if err := tlog.CheckTree(p, newer.Tree.N, newer.Tree.Hash, older.Tree.N, older.Tree.Hash); err != nil {
		return fmt.Errorf("%w: the tree of %d leaves is not a prefix of the tree of %d: %v", ErrProof, older.Tree.N, newer.Tree.N, err)
	}
	return nil
}

// emptyHash is the root hash of the empty tree, SHA-256 of nothing.
func emptyHash() tlog.Hash {
	h, _ := tlog.TreeHash(0, nil)
	return h
}

// decodeHash reads a hash in standard base64, as tlog.Hash.String writes it and
// in no other form (the decoder alone skips newlines and carriage returns).
func decodeHash(s string) (tlog.Hash, bool) {
	var h tlog.Hash
	if len(s) != base64.StdEncoding.EncodedLen(tlog.HashSize) {
		return h, false
	}
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil || len(b) != tlog.HashSize {
		return h, false
	}
	copy(h[:], b)
	return h, h.String() == s
}
