package warc

import (
	"bytes"
	"crypto/sha1"
	"testing"
)

// TestUnrolledSHA1 checks the WebAssembly SHA-1 against crypto/sha1 at every length
// around the block and padding boundaries, written whole and in odd pieces, and
// against the FIPS 180 example "abc".
func TestUnrolledSHA1(t *testing.T) {
	data := make([]byte, 300)
	for i := range data {
		data[i] = byte(i*7 + i>>3)
	}
	for n := 0; n <= len(data); n++ {
		want := sha1.Sum(data[:n])
		h := new(unrolledSHA1)
		h.Reset()
		h.Write(data[:n])
		if got := h.Sum(nil); !bytes.Equal(got, want[:]) {
			t.Fatalf("length %d: %x, want %x", n, got, want)
		}
		h.Reset()
		for p := data[:n]; len(p) > 0; {
			k := min(len(p), 1+n%13)
			h.Write(p[:k])
			p = p[k:]
		}
		if got := h.Sum(nil); !bytes.Equal(got, want[:]) {
			t.Fatalf("length %d in pieces: %x, want %x", n, got, want)
		}
	}
	h := new(unrolledSHA1)
	h.Reset()
	h.Write([]byte("abc"))
	// FIPS 180-2, Appendix A.1.
	if got := formatSHA1(h.Sum(nil)); got != formatSHA1([]byte{0xa9, 0x99, 0x3e, 0x36, 0x47, 0x06, 0x81, 0x6a, 0xba, 0x3e, 0x25, 0x71, 0x78, 0x50, 0xc2, 0x6c, 0x9c, 0xd0, 0xd8, 0x9d}) {
		t.Errorf("abc: %s", got)
	}
}

func BenchmarkUnrolledSHA1(b *testing.B) {
	data := make([]byte, 64<<10)
	h := new(unrolledSHA1)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		h.Reset()
		h.Write(data)
		h.Sum(nil)
	}
}

func BenchmarkStdSHA1(b *testing.B) {
	data := make([]byte, 64<<10)
	h := sha1.New()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		h.Reset()
		h.Write(data)
		h.Sum(nil)
	}
}
