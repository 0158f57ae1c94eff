package notary

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// LeafPrefix is the first field of a bundle's leaf record.
const LeafPrefix = "webkeep-bundle"

// maxField bounds a leaf's name and upload id.
const maxField = 512

// ErrLeaf is returned for a leaf record that is not one.
var ErrLeaf = errors.New("notary: malformed leaf record")

// A Leaf is the record of one stored bundle: the name it was stored under, the
// upload that stored it, and the SHA-256 and size of its bytes.
type Leaf struct {
	Name   string
	Upload string
	SHA256 string // 64 lowercase hex digits
	Size   int64
}

// String returns the record, "webkeep-bundle <name> <upload> <sha256> <size>", the
// exact bytes that are hashed (no newline).
func (l Leaf) String() string {
	return LeafPrefix + " " + l.Name + " " + l.Upload + " " + l.SHA256 + " " + strconv.FormatInt(l.Size, 10)
}

// Bytes returns String as bytes: the leaf to append.
func (l Leaf) Bytes() []byte { return []byte(l.String()) }

// Check reports whether l's fields make a record that ParseLeaf reads back as l.
func (l Leaf) Check() error {
	switch {
	case !validField(l.Name):
		return fmt.Errorf("%w: name %.100q: want 1 to %d printable ASCII bytes without spaces", ErrLeaf, l.Name, maxField)
	case !validField(l.Upload):
		return fmt.Errorf("%w: upload id %.100q: want 1 to %d printable ASCII bytes without spaces", ErrLeaf, l.Upload, maxField)
	case !validSHA256(l.SHA256):
		return fmt.Errorf("%w: sha256 %.100q: want 64 lowercase hex digits", ErrLeaf, l.SHA256)
	case l.Size < 0:
		return fmt.Errorf("%w: negative size %d", ErrLeaf, l.Size)
	}
	return nil
}

// ParseLeaf reads a leaf record. It is strict: exactly the bytes Leaf.String
// writes, so that a record read is the record hashed.
func ParseLeaf(s string) (Leaf, error) {
	f := strings.Split(s, " ")
	if len(f) != 5 || f[0] != LeafPrefix {
		return Leaf{}, fmt.Errorf("%w: %.200q: want %q", ErrLeaf, s, LeafPrefix+" <name> <upload> <sha256> <size>")
	}
	size, err := strconv.ParseInt(f[4], 10, 64)
	if err != nil || size < 0 || strconv.FormatInt(size, 10) != f[4] {
		return Leaf{}, fmt.Errorf("%w: size %.100q: want a decimal number without sign or leading zeros", ErrLeaf, f[4])
	}
	l := Leaf{Name: f[1], Upload: f[2], SHA256: f[3], Size: size}
	if err := l.Check(); err != nil {
		return Leaf{}, err
	}
	return l, nil
}

// BundleLeaf reads a bundle's bytes from r and returns its leaf record as the
// archive would log it when stored as name by upload.
func BundleLeaf(r io.Reader, name, upload string) (Leaf, error) {
	h := sha256.New()
	n, err := io.Copy(h, r)
	if err != nil {
		return Leaf{}, err
	}
	l := Leaf{Name: name, Upload: upload, SHA256: hex.EncodeToString(h.Sum(nil)), Size: n}
	return l, l.Check()
}

func validField(s string) bool {
	if s == "" || len(s) > maxField {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

func validSHA256(s string) bool {
	if len(s) != 2*sha256.Size {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
