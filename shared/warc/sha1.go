package warc

//go:generate go run sha1_gen.go

import (
	"crypto/sha1"
	"encoding/binary"
	"hash"
	"runtime"
)

// newSHA1 returns the SHA-1 hash the digests use: crypto/sha1 where it has assembly,
// and the unrolled pure Go one in WebAssembly, where it is about twice as fast.
func newSHA1() hash.Hash {
	if runtime.GOARCH == "wasm" {
		h := new(unrolledSHA1)
		h.Reset()
		return h
	}
	return sha1.New()
}

// unrolledSHA1 is a SHA-1 hash.Hash over sha1Block.
type unrolledSHA1 struct {
	h   [5]uint32
	x   [64]byte // a partial block
	nx  int
	len uint64
}

func (d *unrolledSHA1) Reset() {
	d.h = [5]uint32{0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0}
	d.nx, d.len = 0, 0
}

func (d *unrolledSHA1) Size() int { return sha1.Size }

func (d *unrolledSHA1) BlockSize() int { return sha1.BlockSize }

func (d *unrolledSHA1) Write(p []byte) (int, error) {
	n := len(p)
	d.len += uint64(n)
	if d.nx > 0 {
		c := copy(d.x[d.nx:], p)
		d.nx += c
		p = p[c:]
		if d.nx < len(d.x) {
			return n, nil
		}
		sha1Block(&d.h, d.x[:])
		d.nx = 0
	}
	if len(p) >= len(d.x) {
		m := len(p) &^ (len(d.x) - 1)
		sha1Block(&d.h, p[:m])
		p = p[m:]
	}
	d.nx = copy(d.x[:], p)
	return n, nil
}

// Sum appends the digest of what was written so far to in; d is unchanged.
func (d *unrolledSHA1) Sum(in []byte) []byte {
	c := *d
	// Padding: 0x80, zeros up to 56 mod 64, then the length in bits.
	var pad [64 + 8]byte
	pad[0] = 0x80
	n := 56 - int(c.len%64)
	if n <= 0 {
		n += 64
	}
	binary.BigEndian.PutUint64(pad[n:], c.len<<3)
	c.Write(pad[:n+8])
	for _, v := range c.h {
		in = binary.BigEndian.AppendUint32(in, v)
	}
	return in
}
