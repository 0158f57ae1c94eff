package zipnum

import (
	"bytes"
	"io"
	"testing"
)

// BenchmarkWrite writes realistic pywb-style CDXJ lines in blocks of 3000 and
// reports the compressed bytes per line.
func BenchmarkWrite(b *testing.B) {
	lines := realisticLines(30000)
	raw := make([][]byte, len(lines))
	size := 0
	for i, l := range lines {
		raw[i] = []byte(l)
		size += len(l) + 1
	}
	var buf bytes.Buffer
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		w := NewWriter(&buf, DefaultLinesPerBlock)
		for _, l := range raw {
			if err := w.WriteLine(l); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len())/float64(len(lines)), "bytes/line")
	b.ReportMetric(float64(size)/float64(len(lines)), "raw-bytes/line")
}

// BenchmarkReadBlock reads one block of 3000 realistic lines.
func BenchmarkReadBlock(b *testing.B) {
	lines := realisticLines(DefaultLinesPerBlock)
	data, blocks := write(b, lines, DefaultLinesPerBlock)
	size := len(joinLines(lines))
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		r := NewBlockReader(bytes.NewReader(data))
		n := 0
		for {
			_, err := r.ReadLine()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != blocks[0].Lines {
			b.Fatal(n)
		}
	}
	b.ReportMetric(float64(len(data))/float64(len(lines)), "bytes/line")
}
