package warc

import (
	"crypto/sha1"
	"encoding/base32"
	"encoding/hex"
	"fmt"
	"hash"
	"strings"
)

// formatSHA1 renders a SHA-1 sum as the draft's "sha1:BASE32" (RFC 4648 base32; 20
// bytes make exactly 32 characters, so there is no padding).
func formatSHA1(sum []byte) string {
	var b [5 + 32]byte
	copy(b[:], "sha1:")
	base32.StdEncoding.Encode(b[5:], sum)
	return string(b[:])
}

// digestEqual compares a declared digest with a computed "sha1:BASE32" one. The
// algorithm name is case-insensitive; a hex (40 digit) SHA-1, as some writers used, is
// accepted too. known is false when the algorithm is not SHA-1 (nothing compared).
func digestEqual(declared, computed string) (equal, known bool) {
	alg, val, ok := strings.Cut(strings.TrimSpace(declared), ":")
	if !ok || !strings.EqualFold(alg, "sha1") {
		return false, false
	}
	want := computed[len("sha1:"):]
	if len(val) == 40 {
		raw, err := hex.DecodeString(val)
		if err != nil {
			return false, true
		}
		return base32.StdEncoding.EncodeToString(raw) == want, true
	}
	return strings.EqualFold(strings.TrimRight(val, "="), want), true
}

// digester hashes a block as it streams by: the whole block, and for an HTTP message
// also the payload, the bytes after the blank line that ends the message header.
type digester struct {
	block   hash.Hash
	payload hash.Hash // nil when no payload digest is wanted
	n       int64     // bytes seen
	// newlines counts consecutive line ends (a CR does not break the run) while the
	// HTTP header is being scanned; two of them end it.
	newlines  int
	inPayload bool
	headerLen int64 // length of the HTTP header, blank line included, once found
	noPayload bool  // the payload of an HTTP message is not digested
	// summed says that blockSum and payloadSum hold the sums, computed by a
	// WriterOptions.SumSHA1 over the whole block, instead of the two hashes.
	summed               bool
	blockSum, payloadSum [sha1.Size]byte
}

func newDigester() *digester {
	return &digester{block: newSHA1(), payload: newSHA1()}
}

// reset prepares d for a new block; http says whether to look for a payload.
func (d *digester) reset(http bool) {
	d.noPayload, d.summed = false, false
	d.block.Reset()
	d.payload.Reset()
	d.n, d.newlines, d.inPayload, d.headerLen = 0, 0, false, -1
	if !http {
		d.inPayload = true // the payload is not split off; see payloadDigest
		d.headerLen = -2
	}
}

func (d *digester) Write(p []byte) (int, error) {
	d.block.Write(p)
	if d.headerLen == -2 {
		d.n += int64(len(p))
		return len(p), nil
	}
	if d.inPayload {
		d.payload.Write(p)
		d.n += int64(len(p))
		return len(p), nil
	}
	if i := d.headerEnd(p); i >= 0 {
		d.payload.Write(p[i:])
	}
	d.n += int64(len(p))
	return len(p), nil
}

// headerEnd goes on scanning for the blank line that ends the HTTP header through p,
// the bytes that follow the d.n already seen. When it finds it, it records the header's
// length and returns the index in p where the payload starts; otherwise -1.
func (d *digester) headerEnd(p []byte) int {
	for i, c := range p {
		switch c {
		case '\n':
			d.newlines++
			if d.newlines == 2 {
				d.inPayload = true
				d.headerLen = d.n + int64(i) + 1
				return i + 1
			}
		case '\r':
		default:
			d.newlines = 0
		}
	}
	return -1
}

// sumWhole digests p, a whole block, with sum (a WriterOptions.SumSHA1) in place of the
// two hashes: one call, given the block and, when a payload digest is wanted and the
// HTTP header ends in p, the payload.
func (d *digester) sumWhole(p []byte, sum func(data ...[]byte) ([][sha1.Size]byte, error)) error {
	parts := [][]byte{p}
	if d.headerLen != -2 {
		if i := d.headerEnd(p); i >= 0 && !d.noPayload {
			parts = append(parts, p[i:])
		}
	}
	d.n += int64(len(p))
	sums, err := sum(parts...)
	if err != nil {
		return err
	}
	if len(sums) != len(parts) {
		return fmt.Errorf("SumSHA1 returned %d sums for %d buffers", len(sums), len(parts))
	}
	d.blockSum = sums[0]
	if len(parts) == 2 {
		d.payloadSum = sums[1]
	}
	d.summed = true
	return nil
}

// blockDigest returns the "sha1:BASE32" digest of everything written.
func (d *digester) blockDigest() string {
	if d.summed {
		return formatSHA1(d.blockSum[:])
	}
	var sum [sha1.Size]byte
	return formatSHA1(d.block.Sum(sum[:0]))
}

// payloadDigest returns the digest of the HTTP payload, "" when the HTTP header never
// ended or the payload was not digested; for a block that is not an HTTP message the
// payload is the whole block.
func (d *digester) payloadDigest() string {
	if d.noPayload {
		return ""
	}
	if d.headerLen == -2 {
		return d.blockDigest()
	}
	if !d.inPayload {
		return ""
	}
	if d.summed {
		return formatSHA1(d.payloadSum[:])
	}
	var sum [sha1.Size]byte
	return formatSHA1(d.payload.Sum(sum[:0]))
}
