package zipnum

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
)

func FuzzReadSummary(f *testing.F) {
	f.Add("com,example)/ 20140127171200\tzipnum\t0\t276\t1\norg,iana)/ 20140127171238\tzipnum\t276\t328\t2\n")
	f.Add("a 1\tcdx-00000.gz\t0\t10\r\nb 1\tcdx-00001.gz\t0\t12")
	f.Add("a 1\tp\t0\t10\t1\textra\n")
	f.Add("b\tp\t0\t10\na\tp\t10\t10\n")
	f.Add("a\tp\t-1\t+5\t0\n")
	f.Add("\n\n")
	f.Fuzz(func(t *testing.T, in string) {
		lines, err := ReadSummary(strings.NewReader(in))
		if err != nil {
			if !errors.Is(err, ErrSummary) && !errors.Is(err, ErrOrder) {
				t.Fatalf("error %v wraps neither ErrSummary nor ErrOrder", err)
			}
			return
		}
		// What was read writes back and reads again to the same lines.
		var b strings.Builder
		for _, l := range lines {
			b.WriteString(l.String() + "\n")
		}
		again, err := ReadSummary(strings.NewReader(b.String()))
		if err != nil || len(again) != len(lines) {
			t.Fatalf("reading back %q: %v", b.String(), err)
		}
		for i := range lines {
			if again[i] != lines[i] {
				t.Fatalf("line %d: %+v, then %+v", i+1, lines[i], again[i])
			}
		}
		first, last := Search(len(lines), func(i int) string { return lines[i].FirstKey }, "m", "n")
		if first < 0 || last < first || last > len(lines) {
			t.Fatalf("Search = %d, %d of %d", first, last, len(lines))
		}
	})
}

func FuzzBlockReader(f *testing.F) {
	gz := func(s string) []byte {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write([]byte(s))
		zw.Close()
		return b.Bytes()
	}
	var blocks bytes.Buffer
	w := NewWriter(&blocks, 2)
	for _, l := range []string{"a 1 {}", "a 1 {}", "b 2 {\"u\": \"x\"}", "c 3 {}", "d 4 {}"} {
		w.WriteLine([]byte(l))
	}
	w.Close()
	f.Add(blocks.Bytes())
	f.Add(gz("a 1 {}\nb 2 {}"))
	f.Add(gz("a 1 {}\n\nb 2 {}\n"))
	f.Add(gz("\r\n"))
	f.Add(blocks.Bytes()[:blocks.Len()/2])
	f.Add([]byte{})
	f.Add([]byte("a 1 {}\n"))
	f.Add([]byte("\x1f\x8b\b0000000")) // a header cut in its comment: gzip says io.EOF
	f.Fuzz(func(t *testing.T, in []byte) {
		var got bytes.Buffer
		br := NewBlockReader(bytes.NewReader(in))
		for {
			line, err := br.ReadLine()
			if err != nil {
				if _, again := br.ReadLine(); again != err {
					t.Fatalf("error %v not final: then %v", err, again)
				}
				if err != io.EOF {
					return
				}
				break
			}
			if len(line) == 0 || bytes.IndexByte(line, '\n') >= 0 {
				t.Fatalf("line %q", line)
			}
			got.Write(line)
			got.WriteByte('\n')
		}
		// A clean read returns exactly the decompressed text (plus a final newline).
		zr, err := gzip.NewReader(bytes.NewReader(in))
		if err != nil {
			if len(in) == 0 {
				return
			}
			t.Fatalf("BlockReader read what gzip rejects: %v", err)
		}
		plain, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("BlockReader read what gzip rejects: %v", err)
		}
		if len(plain) > 0 && plain[len(plain)-1] != '\n' {
			plain = append(plain, '\n')
		}
		if !bytes.Equal(got.Bytes(), plain) {
			t.Fatalf("lines %q, gzip %q", got.Bytes(), plain)
		}
	})
}
