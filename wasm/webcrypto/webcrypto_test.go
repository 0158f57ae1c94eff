//go:build js && wasm

package webcrypto

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/cdx"
	"github.com/webkeep/webkeep/shared/wacz"
	"github.com/webkeep/webkeep/shared/warc"
)

// TestSHA1 compares WebCrypto's sums with crypto/sha1's, for buffers that are tails of
// earlier ones (a payload and its block) and buffers that are not, empty ones included,
// and with the FIPS 180-2 Appendix A.1 example.
func TestSHA1(t *testing.T) {
	block := make([]byte, 3<<20) // larger than the first staging array
	for i := range block {
		block[i] = byte(i*7 + i>>9)
	}
	other := []byte("abc")
	for _, data := range [][][]byte{
		{other},
		{block, block[1000:]},
		{block[:5000], block[4000:5000], other, block[:0], block[5000:5000]},
		{block[:10], block[:5]}, // a head, not a tail: copied again
		{},
	} {
		sums, err := SHA1(data...)
		if err != nil {
			t.Fatal(err)
		}
		if len(sums) != len(data) {
			t.Fatalf("%d sums for %d buffers", len(sums), len(data))
		}
		for i, p := range data {
			if want := sha1.Sum(p); sums[i] != want {
				t.Errorf("buffer %d of %d bytes: %x, want %x", i, len(p), sums[i], want)
			}
		}
	}
	sums, err := SHA1(other)
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(sums[0][:]); got != "a9993e364706816aba3e25717850c26c9cd0d89d" {
		t.Errorf("abc: %s", got)
	}
}

// TestWriter writes the same records with warc's SHA-1 and with WebCrypto's: the files
// must be identical.
func TestWriter(t *testing.T) {
	body := bytes.Repeat([]byte("webkeep "), 10000)
	block := append([]byte("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n"), body...)
	write := func(sum func(...[]byte) ([][sha1.Size]byte, error)) []byte {
		var buf bytes.Buffer
		n := 0
		w := warc.NewWriter(&buf, warc.WriterOptions{Version: warc.V11, Gzip: true, SumSHA1: sum,
			NewID: func() string { n++; return "urn:test:" + string(rune('a'+n)) }})
		for i := 0; i < 3; i++ {
			_, err := w.WriteRecord(&warc.Record{Type: warc.TypeResponse, TargetURI: "http://example.com/", Date: testDate,
				ContentType: "application/http;msgtype=response", Block: bytes.NewReader(block[:len(block)-i]), BlockLength: int64(len(block) - i)})
			if err != nil {
				t.Fatal(err)
			}
		}
		return buf.Bytes()
	}
	if got, want := write(SHA1), write(nil); !bytes.Equal(got, want) {
		t.Errorf("files differ: %d and %d bytes", len(got), len(want))
	}
}

var testDate = time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)

// The signing key signs as ReplayWeb.page checks: ECDSA P-384, SHA-256, r||s; the
// same key each time; and a WACZ signed with it verifies.
func TestWACZSigner(t *testing.T) {
	s, err := WACZSigner()
	if err != nil {
		t.Fatal(err)
	}
	again, err := WACZSigner()
	if err != nil || again != s {
		t.Fatalf("a second key: %v", err)
	}
	pub, err := wacz.ParsePublicKey(s.PublicKey())
	if err != nil || pub.Curve != "P-384" {
		t.Fatalf("public key: %v", err)
	}
	msg := []byte("sha256:" + hex.EncodeToString(make([]byte, 32)))
	sig, err := s.Sign(msg)
	if err != nil {
		t.Fatal(err)
	}
	if len(sig) != 96 {
		t.Errorf("signature of %d bytes, want 96", len(sig))
	}
	if err := wacz.VerifySignature(pub, msg, sig); err != nil {
		t.Error(err)
	}
	if err := wacz.VerifySignature(pub, append(msg, '!'), sig); err == nil {
		t.Error("a signature verifies another message")
	}

	var warcBuf bytes.Buffer
	w := warc.NewWriter(&warcBuf, warc.WriterOptions{Version: warc.V11, Gzip: true})
	block := "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nhello"
	if _, err := w.WriteRecord(&warc.Record{Type: warc.TypeResponse, TargetURI: "http://example.com/", Date: testDate,
		ContentType: "application/http;msgtype=response", Block: strings.NewReader(block), BlockLength: int64(len(block))}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	var line []byte
	ix := &cdx.Indexer{Dialect: cdx.WarcioJS}
	if err := ix.Index(bytes.NewReader(warcBuf.Bytes()), "a.warc.gz", func(e *cdx.Entry) error {
		line = e.AppendLine(line, cdx.WarcioJS)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	zw := wacz.NewWriter(&out, wacz.Options{Signer: s})
	zw.AddWARC("a.warc.gz", bytes.NewReader(warcBuf.Bytes()))
	zw.AddIndex(line)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	rep, err := wacz.Verify(bytes.NewReader(out.Bytes()), int64(out.Len()), wacz.VerifyOptions{PublicKey: s.PublicKey()})
	if err != nil || !rep.OK() || rep.Signature == nil || !rep.Signature.Valid {
		t.Errorf("the WACZ signed does not verify: %v %v", err, rep.Problems)
	}
}
