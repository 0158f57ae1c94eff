package warc

import (
	"bytes"
	"crypto/sha1"
	"encoding/base32"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// memSpool is a Converter.Spool in memory that counts what it was given and released.
type memSpool struct {
	spooled, closed int
	fail            error
}

type closingReader struct {
	*bytes.Reader
	s *memSpool
}

func (c closingReader) Close() error { c.s.closed++; return nil }

func (s *memSpool) spool(block io.Reader) (io.ReadSeekCloser, error) {
	if s.fail != nil {
		return nil, s.fail
	}
	b, err := io.ReadAll(block)
	if err != nil {
		return nil, err
	}
	s.spooled++
	return closingReader{bytes.NewReader(b), s}, nil
}

func TestConverterSpoolsLongBlocksThroughItsSpool(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 4096) // 64 KiB
	file, _ := writeAll(t, WriterOptions{Version: V10},
		&Record{Type: TypeResource, TargetURI: "http://example.org/small", ContentType: "text/plain", Block: strings.NewReader("small"), BlockLength: 5},
		&Record{Type: TypeResource, TargetURI: "http://example.org/big", ContentType: "text/plain", Block: bytes.NewReader(big), BlockLength: int64(len(big))},
	)
	for _, tc := range []struct {
		name      string
		maxBuffer int64
		spooled   int
	}{
		{"both fit", 1 << 20, 0},
		{"the big one is spooled", 1 << 10, 1},
		{"both are spooled", 4, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := NewReader(bytes.NewReader(file))
			if err != nil {
				t.Fatal(err)
			}
			s := &memSpool{}
			var out bytes.Buffer
			// Not gzipped and not seekable: a spooled block is written whole from the
			// spool; gzipped, it would be segmented, which the block's bytes survive too.
			n, err := (&Converter{Spool: s.spool}).Convert(NewWriter(&out, WriterOptions{Version: V11, MaxBuffer: tc.maxBuffer}), r)
			if err != nil || n != 2 {
				t.Fatalf("Convert: %d records, %v", n, err)
			}
			if s.spooled != tc.spooled || s.closed != tc.spooled {
				t.Errorf("spooled %d, closed %d, want %d each", s.spooled, s.closed, tc.spooled)
			}
			_, blocks, errs := readAll(t, out.Bytes())
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			var joined []byte
			for _, b := range blocks {
				joined = append(joined, b...)
			}
			if !bytes.Equal(joined, append([]byte("small"), big...)) {
				t.Errorf("blocks differ after conversion: %d bytes", len(joined))
			}
		})
	}
}

func TestConvertSpoolsToATemporaryFileByDefault(t *testing.T) {
	big := bytes.Repeat([]byte("y"), 8192)
	file, _ := writeAll(t, WriterOptions{Version: V10},
		&Record{Type: TypeResource, TargetURI: "http://example.org/big", ContentType: "text/plain", Block: bytes.NewReader(big), BlockLength: int64(len(big))})
	r, _ := NewReader(bytes.NewReader(file))
	var out bytes.Buffer
	if _, err := Convert(NewWriter(&out, WriterOptions{Version: V11, MaxBuffer: 1024}), r); err != nil {
		t.Fatal(err)
	}
	if _, blocks, errs := readAll(t, out.Bytes()); len(errs) > 0 || len(blocks) != 1 || !bytes.Equal(blocks[0], big) {
		t.Errorf("converted through a temporary file: %d blocks, %v", len(blocks), errs)
	}
}

func TestConverterReportsASpoolThatFails(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 4096)
	file, _ := writeAll(t, WriterOptions{Version: V10},
		&Record{Type: TypeResource, TargetURI: "http://example.org/big", ContentType: "text/plain", Block: bytes.NewReader(big), BlockLength: int64(len(big))})
	r, _ := NewReader(bytes.NewReader(file))
	full := errors.New("the store is full")
	_, err := (&Converter{Spool: (&memSpool{fail: full}).spool}).Convert(NewWriter(io.Discard, WriterOptions{MaxBuffer: 1024}), r)
	if !errors.Is(err, full) || !strings.Contains(err.Error(), "spooling record") {
		t.Errorf("err = %v", err)
	}
}

// A segmented record becomes one whole record when its segments are joined, even
// into a gzip destination that cannot be patched (WARC/1.1 needs no sl field); the
// records around it are left as they are. Without joining, segments stay segments.
func TestConverterJoinsSegments(t *testing.T) {
	payload := pattern(2400, 3)
	block := append([]byte("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n\r\n"), payload...)
	var src bytes.Buffer
	w := NewWriter(&src, WriterOptions{Version: V09, Gzip: true, MaxBuffer: 1000})
	for _, rec := range []*Record{
		{Type: TypeResponse, TargetURI: "http://x/big", ContentType: "message/http", Block: io.MultiReader(bytes.NewReader(block)), BlockLength: int64(len(block))},
		{Type: TypeResource, TargetURI: "http://x/small", ContentType: "text/plain", Block: strings.NewReader("small"), BlockLength: 5},
	} {
		if _, err := w.WriteRecord(rec); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		join  bool
		types []string
	}{
		{true, []string{TypeResponse, TypeResource}},
		{false, []string{TypeResponse, TypeContinuation, TypeContinuation, TypeResource}},
	} {
		t.Run(fmt.Sprintf("join=%v", tc.join), func(t *testing.T) {
			r, err := NewReader(bytes.NewReader(src.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			s := &memSpool{}
			var out bytes.Buffer
			dst := NewWriter(&out, WriterOptions{Version: V11, Gzip: true, MaxBuffer: 1000})
			if _, err := (&Converter{Spool: s.spool, JoinSegments: tc.join}).Convert(dst, r); err != nil {
				t.Fatal(err)
			}
			if err := dst.Close(); err != nil {
				t.Fatal(err)
			}
			if s.spooled != s.closed {
				t.Errorf("%d spooled, %d released", s.spooled, s.closed)
			}
			rd, err := NewReader(bytes.NewReader(out.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			var types []string
			for {
				rec, err := rd.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				types = append(types, rec.Type)
				got, _ := io.ReadAll(rec.Block)
				if !tc.join || rec.Type != TypeResponse {
					continue
				}
				if !bytes.Equal(got, block) || rec.BlockLength != int64(len(block)) {
					t.Errorf("the joined block: %d bytes, want %d", len(got), len(block))
				}
				if rec.Header.Has(FieldSegmentNumber) {
					t.Errorf("the joined record keeps %s", FieldSegmentNumber)
				}
				if want := "sha1:" + base32sha1(payload); rec.Header.Get(FieldPayloadDigest) != want {
					t.Errorf("payload digest %q, want %q", rec.Header.Get(FieldPayloadDigest), want)
				}
			}
			if fmt.Sprint(types) != fmt.Sprint(tc.types) {
				t.Errorf("records %v, want %v", types, tc.types)
			}
		})
	}
}

func base32sha1(b []byte) string {
	sum := sha1.Sum(b)
	return base32.StdEncoding.EncodeToString(sum[:])
}
