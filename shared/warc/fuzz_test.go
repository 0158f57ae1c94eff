package warc

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteTestdata regenerates the seed files in testdata/ (the draft's Appendix B
// records in each version and form) when WARC_WRITE_TESTDATA=1.
func TestWriteTestdata(t *testing.T) {
	if os.Getenv("WARC_WRITE_TESTDATA") != "1" {
		t.Skip("set WARC_WRITE_TESTDATA=1 to regenerate testdata/")
	}
	for _, f := range []struct {
		name string
		opts WriterOptions
	}{
		{"appendix-b-0.9.warc", WriterOptions{Version: V09}},
		{"appendix-b-0.9.warc.gz", WriterOptions{Version: V09, Gzip: true}},
		{"appendix-b-1.1.warc", WriterOptions{Version: V11}},
		{"appendix-b-1.1.warc.gz", WriterOptions{Version: V11, Gzip: true}},
	} {
		file, _ := writeAll(t, f.opts, appendixRecords()...)
		if err := os.WriteFile(filepath.Join("testdata", f.name), file, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func FuzzReader(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.warc*")
	for _, name := range seeds {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("WARC/0.9 00090 resource http://x/ 20060101000000 urn:uuid:1 text/plain\r\n\r\nhello, world\r\n\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewReader(bytes.NewReader(data))
		if err != nil {
			return
		}
		r.Reassemble(len(data)%2 == 0)
		r.Lazy(len(data)%3 != 0)
		for i := range 1000 {
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				continue
			}
			// Blocks read through, in part or not at all (sl skips them).
			limit := []int64{1 << 20, 0, 100}[(len(data)+i)%3]
			io.Copy(io.Discard, io.LimitReader(rec.Block, limit))
		}
		v := NewVerifier(func(Problem) {})
		v.Verify("fuzz", bytes.NewReader(data))
		v.Finish()
	})
}

// FuzzRoundTrip writes fuzzed records in both versions and reads them back.
func FuzzRoundTrip(f *testing.F) {
	f.Add("response", "http://x/", "message/http", "IP-Address", "1.2.3.4", []byte("HTTP/1.1 200 OK\r\n\r\nbody"), true)
	f.Add("warcinfo", "filedesc:x.warc", "text/plain", "X", "", []byte{}, false)
	f.Fuzz(func(t *testing.T, typ, uri, ct, name, value string, block []byte, gz bool) {
		for _, v := range []Version{V09, V11} {
			var buf bytes.Buffer
			w := NewWriter(&buf, WriterOptions{Version: v, Gzip: gz})
			rec := &Record{Type: typ, TargetURI: uri, ContentType: ct, Header: Header{{name, value}},
				Block: bytes.NewReader(block), BlockLength: int64(len(block))}
			if _, err := w.WriteRecord(rec); err != nil {
				continue
			}
			r, err := NewReader(&buf)
			if err != nil {
				t.Fatal(err)
			}
			got, err := r.Next()
			if err != nil {
				t.Fatalf("%v: written record unreadable: %v\n%q", v, err, buf.Bytes())
			}
			b, err := io.ReadAll(got.Block)
			if err != nil || !bytes.Equal(b, block) {
				t.Fatalf("%v: block %q, want %q (%v)", v, b, block, err)
			}
			if _, err := r.Next(); err != io.EOF {
				t.Fatalf("%v: after the record: %v", v, err)
			}
		}
	})
}
