package wacz_test

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"hash/crc32"
	"io"
	"testing"

	"github.com/webkeep/webkeep/shared/wacz"
	"github.com/webkeep/webkeep/shared/warc"
)

// recordsWARC returns a gzip WARC/1.1 file of about size bytes: responses of 256
// KiB of incompressible payload each.
func recordsWARC(b *testing.B, size int) []byte {
	b.Helper()
	var file bytes.Buffer
	w := warc.NewWriter(&file, warc.WriterOptions{Version: warc.V11, Gzip: true, Level: 1})
	payload := make([]byte, 256<<10)
	x := uint32(7)
	for i := 0; file.Len() < size; i++ {
		for j := range payload {
			x ^= x << 13
			x ^= x >> 17
			x ^= x << 5
			payload[j] = byte(x)
		}
		block := append([]byte("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n\r\n"), payload...)
		_, err := w.WriteRecord(&warc.Record{
			Type: warc.TypeResponse, TargetURI: fmt.Sprintf("http://example.com/%d", i), Date: created,
			ContentType: "application/http;msgtype=response",
			Block:       bytes.NewReader(block), BlockLength: int64(len(block)),
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return file.Bytes()
}

// BenchmarkAddWARC copies a WARC file into a WACZ; B/op staying the same for 4
// and 64 MiB shows that memory does not grow with the file.
func BenchmarkAddWARC(b *testing.B) {
	for _, mib := range []int{4, 64} {
		data := recordsWARC(b, mib<<20)
		b.Run(fmt.Sprintf("%dMiB", mib), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				w := wacz.NewWriter(io.Discard, wacz.Options{Created: created})
				if err := w.AddWARC("a.warc.gz", bytes.NewReader(data)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFloor is what any WACZ writer must do with the bytes of a WARC file:
// SHA-256 for datapackage.json and CRC-32 for the ZIP.
func BenchmarkFloor(b *testing.B) {
	data := recordsWARC(b, 64<<20)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		sha256.Sum256(data)
		crc32.ChecksumIEEE(data)
	}
}

// BenchmarkAddIndex writes a sorted index of 100,000 CDXJ lines as ZipNum blocks.
func BenchmarkAddIndex(b *testing.B) {
	var cdxj bytes.Buffer
	const lines = 100_000
	for i := range lines {
		fmt.Fprintf(&cdxj, "com,example)/page/%07d 20240101000000 {\"url\": \"http://example.com/page/%07d\", \"mime\": \"text/html\", \"status\": \"200\", \"digest\": \"EHZQOMGH6S5XH7CNVC2DQYQ7KBFGMNBZ\", \"length\": \"%d\", \"offset\": \"%d\", \"filename\": \"a.warc.gz\"}\n", i, i, 1000+i%5000, i*3000)
	}
	b.SetBytes(int64(cdxj.Len()))
	b.ReportAllocs()
	for b.Loop() {
		w := wacz.NewWriter(io.Discard, wacz.Options{Created: created})
		if err := w.AddIndex(cdxj.Bytes()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}
