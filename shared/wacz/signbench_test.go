//go:build !js

package wacz_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/webkeep/webkeep/internal/opensslts"
	"github.com/webkeep/webkeep/shared/wacz"
	"github.com/webkeep/webkeep/shared/waczauth"
)

// The cost of signing a download and of checking one: what `make bench` reports
// as signing (ms per WACZ) and verification throughput (MB/s).

// manifest is a datapackage.json of a session of about 40 files' size.
var manifest = bytes.Repeat([]byte(`{"name": "archive/data.warc.gz", "path": "archive/data.warc.gz", "hash": "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "bytes": 123456},`), 40)

// BenchmarkSign signs a datapackage.json with an ECDSA P-384 key (the anonymous
// form; the extension's is WebCrypto's, the same curve and hash).
func BenchmarkSign(b *testing.B) {
	k, _ := waczauth.GenerateKey()
	s, _ := waczauth.NewSigner(k)
	a := &wacz.KeyAuthority{Signer: s}
	for b.Loop() {
		if _, err := wacz.SignManifest(context.Background(), manifest, a, time.Time{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSignTimestamped signs and has OpenSSL's authority on 127.0.0.1 stamp
// the signature (`openssl ts -reply`, a process per stamp): the floor of a
// timestamp, a network authority adds its round trip.
func BenchmarkSignTimestamped(b *testing.B) {
	if !opensslts.Available() {
		b.Skip("openssl is not installed")
	}
	ts, err := opensslts.Start(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer ts.Close()
	k, _ := waczauth.GenerateKey()
	s, _ := waczauth.NewSigner(k)
	a := &wacz.KeyAuthority{Signer: s, Timestamper: ts.Client()}
	for b.Loop() {
		if _, err := wacz.SignManifest(context.Background(), manifest, a, time.Time{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerify checks a signed WACZ whole (every file's SHA-256, every WARC
// record's digests, every index line, the signature): MB/s of WACZ.
func BenchmarkVerify(b *testing.B) {
	for _, mib := range []int{4, 64} {
		warc := recordsWARC(b, mib<<20)
		s, _ := waczauth.NewSigner(newKey(b))
		data := writeWACZBy(b, &wacz.KeyAuthority{Signer: s}, signedAt, map[string][]byte{"a.warc.gz": warc}, replayIndex(b, map[string][]byte{"a.warc.gz": warc}))
		b.Run(fmt.Sprintf("%dMiB", mib), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				rep, err := wacz.Verify(bytes.NewReader(data), int64(len(data)), wacz.VerifyOptions{})
				if err != nil || !rep.OK() {
					b.Fatalf("%v %v", err, rep.Problems)
				}
			}
		})
	}
}
