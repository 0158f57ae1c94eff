package warc

import (
	"bytes"
	"crypto/sha1"
	"errors"
	"io"
	"strings"
	"testing"
)

// sumsRecorder is a WriterOptions.SumSHA1 over crypto/sha1 that remembers the lengths
// of the buffers of each call.
type sumsRecorder struct{ calls [][]int }

func (s *sumsRecorder) sum(data ...[]byte) ([][sha1.Size]byte, error) {
	var lens []int
	sums := make([][sha1.Size]byte, len(data))
	for i, p := range data {
		lens = append(lens, len(p))
		sums[i] = sha1.Sum(p)
	}
	s.calls = append(s.calls, lens)
	return sums, nil
}

// TestSumSHA1 writes the same records with and without WriterOptions.SumSHA1: the
// files must be byte-identical, and SumSHA1 must have been given exactly the whole
// blocks held in memory (and their payloads), nothing streamed or segmented.
func TestSumSHA1(t *testing.T) {
	defer func(min int64) { sumSHA1Min = min }(sumSHA1Min)
	sumSHA1Min = 1
	httpBlock := "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"
	headerOnly := "HTTP/1.1 204 No Content\r\n\r\n"
	noEnd := "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n" // the HTTP header never ends
	big := strings.Repeat("0123456789abcdef", 20)       // 320 bytes, over MaxBuffer
	type rec struct {
		typ, ct, block string
		reader         func(string) io.Reader
	}
	bytesR := func(s string) io.Reader { return bytes.NewReader([]byte(s)) }
	stringsR := func(s string) io.Reader { return strings.NewReader(s) }
	streamed := func(s string) io.Reader { return io.MultiReader(strings.NewReader(s)) }
	for _, tc := range []struct {
		name  string
		opts  WriterOptions
		recs  []rec
		calls [][]int // lengths given to SumSHA1, call by call
		min   int64   // sumSHA1Min; 0 means 1
	}{
		{"1.1 response, bytes.Reader", WriterOptions{Version: V11},
			[]rec{{TypeResponse, "application/http;msgtype=response", httpBlock, bytesR}}, [][]int{{43, 5}}, 0},
		{"1.1 response, streamed", WriterOptions{Version: V11, Gzip: true},
			[]rec{{TypeResponse, "application/http;msgtype=response", httpBlock, streamed}}, [][]int{{43, 5}}, 0},
		{"1.1 response, strings.Reader (buffered)", WriterOptions{Version: V11},
			[]rec{{TypeResponse, "application/http;msgtype=response", httpBlock, stringsR}}, [][]int{{43, 5}}, 0},
		{"1.1 response, empty payload", WriterOptions{Version: V11},
			[]rec{{TypeResponse, "application/http;msgtype=response", headerOnly, bytesR}}, [][]int{{27, 0}}, 0},
		{"1.1 response, header never ends", WriterOptions{Version: V11},
			[]rec{{TypeResponse, "application/http;msgtype=response", noEnd, streamed}}, [][]int{{36}}, 0},
		{"1.1 resource: payload is the block", WriterOptions{Version: V11},
			[]rec{{TypeResource, "text/plain", "hello", bytesR}}, [][]int{{5}}, 0},
		{"1.1 metadata", WriterOptions{Version: V11},
			[]rec{{TypeMetadata, "text/plain", "note", streamed}}, [][]int{{4}}, 0},
		{"empty block: hashed in Go", WriterOptions{Version: V11},
			[]rec{{TypeResource, "text/plain", "", bytesR}}, nil, 0},
		{"block under the minimum: hashed in Go", WriterOptions{Version: V11},
			[]rec{{TypeResource, "text/plain", "hello", bytesR}, {TypeResource, "text/plain", "hello", streamed}}, nil, 6},
		{"block of the minimum", WriterOptions{Version: V11},
			[]rec{{TypeResource, "text/plain", "hello", bytesR}, {TypeResource, "text/plain", "hello", streamed}}, [][]int{{5}, {5}}, 5},
		{"0.9 response", WriterOptions{Version: V09, Gzip: true},
			[]rec{{TypeResponse, "message/http", httpBlock, bytesR}}, [][]int{{43, 5}}, 0},
		{"0.9 without payload digest", WriterOptions{Version: V09, NoPayloadDigest09: true},
			[]rec{{TypeResponse, "message/http", httpBlock, bytesR}}, [][]int{{43}}, 0},
		{"dedup: the revisit's block is hashed in Go", WriterOptions{Version: V11, Dedup: NewDeduper()},
			[]rec{{TypeResponse, "application/http;msgtype=response", httpBlock, bytesR},
				{TypeResponse, "application/http;msgtype=response", httpBlock, streamed}}, [][]int{{43, 5}, {43, 5}}, 0},
		{"seekable block over MaxBuffer: hashed in Go", WriterOptions{Version: V11, MaxBuffer: 100},
			[]rec{{TypeResource, "text/plain", big, bytesR}}, nil, 0},
		{"streamed block over MaxBuffer: segments hashed in Go", WriterOptions{Version: V11, Gzip: true, MaxBuffer: 100},
			[]rec{{TypeResource, "text/plain", big, streamed}}, nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sumSHA1Min = max(tc.min, 1)
			write := func(sum func(...[]byte) ([][sha1.Size]byte, error)) ([]byte, []RecordInfo) {
				var buf bytes.Buffer
				opts := tc.opts
				if opts.Dedup != nil {
					opts.Dedup = NewDeduper()
				}
				id := 0
				opts.NewID = func() string { id++; return "urn:test:" + string(rune('a'+id)) }
				opts.SumSHA1 = sum
				w := NewWriter(&buf, opts)
				var infos []RecordInfo
				for _, r := range tc.recs {
					info, err := w.WriteRecord(&Record{Type: r.typ, TargetURI: "http://x/", Date: date("20200101000000"),
						ContentType: r.ct, Block: r.reader(r.block), BlockLength: int64(len(r.block))})
					if err != nil {
						t.Fatal(err)
					}
					infos = append(infos, info)
				}
				return buf.Bytes(), infos
			}
			want, wantInfos := write(nil)
			s := &sumsRecorder{}
			got, gotInfos := write(s.sum)
			if !bytes.Equal(got, want) {
				t.Errorf("with SumSHA1:\n%q\nwithout:\n%q", got, want)
			}
			for i := range wantInfos {
				if gotInfos[i] != wantInfos[i] {
					t.Errorf("record %d: info %+v, want %+v", i, gotInfos[i], wantInfos[i])
				}
			}
			if len(s.calls) != len(tc.calls) {
				t.Fatalf("SumSHA1 calls %v, want %v", s.calls, tc.calls)
			}
			for i := range tc.calls {
				if len(s.calls[i]) != len(tc.calls[i]) {
					t.Fatalf("SumSHA1 calls %v, want %v", s.calls, tc.calls)
				}
				for j := range tc.calls[i] {
					if s.calls[i][j] != tc.calls[i][j] {
						t.Fatalf("SumSHA1 calls %v, want %v", s.calls, tc.calls)
					}
				}
			}
			checkVerify(t, got, 0)
		})
	}
}

// TestSumSHA1Used checks that the sums SumSHA1 returns are the ones written, against
// the digests of Appendix B.3 (block) and B.4 (the same image bytes: the payload).
func TestSumSHA1Used(t *testing.T) {
	defer func(min int64) { sumSHA1Min = min }(sumSHA1Min)
	sumSHA1Min = 1
	a := appendixB()[2]
	var buf bytes.Buffer
	s := &sumsRecorder{}
	w := NewWriter(&buf, WriterOptions{Version: V11, SumSHA1: s.sum})
	info, err := w.WriteRecord(a.withBlock())
	if err != nil {
		t.Fatal(err)
	}
	if len(s.calls) != 1 || info.BlockDigest != "sha1:BTDLLM3VMHUQL2MQOWVLYT5VAJWKYNEH" || info.PayloadDigest != appendixB()[3].wantChecksum {
		t.Errorf("calls %v, info %+v", s.calls, info)
	}
	// A SumSHA1 that lies is believed: the writer does not hash the block again.
	w = NewWriter(&buf, WriterOptions{Version: V11, SumSHA1: func(data ...[]byte) ([][sha1.Size]byte, error) {
		return make([][sha1.Size]byte, len(data)), nil
	}})
	info, err = w.WriteRecord(a.withBlock())
	if err != nil {
		t.Fatal(err)
	}
	zero := "sha1:" + strings.Repeat("A", 32)
	if info.BlockDigest != zero || info.PayloadDigest != zero {
		t.Errorf("info %+v", info)
	}
}

// TestSumSHA1Errors: a failing SumSHA1 fails its record before any byte of it is
// written, and the writer goes on with the next one.
func TestSumSHA1Errors(t *testing.T) {
	defer func(min int64) { sumSHA1Min = min }(sumSHA1Min)
	sumSHA1Min = 1
	boom := errors.New("boom")
	for _, tc := range []struct {
		name string
		sum  func(...[]byte) ([][sha1.Size]byte, error)
		want string
	}{
		{"error", func(...[]byte) ([][sha1.Size]byte, error) { return nil, boom }, "boom"},
		{"too few sums", func(...[]byte) ([][sha1.Size]byte, error) { return nil, nil }, "SumSHA1 returned 0 sums for 1 buffers"},
	} {
		for _, reader := range []string{"bytes.Reader", "streamed"} {
			t.Run(tc.name+"/"+reader, func(t *testing.T) {
				var buf bytes.Buffer
				fail := true
				w := NewWriter(&buf, WriterOptions{Version: V11, Gzip: true, SumSHA1: func(data ...[]byte) ([][sha1.Size]byte, error) {
					if fail {
						return tc.sum(data...)
					}
					return (&sumsRecorder{}).sum(data...)
				}})
				block := func() io.Reader {
					if reader == "streamed" {
						return io.MultiReader(strings.NewReader("abc"))
					}
					return bytes.NewReader([]byte("abc"))
				}
				_, err := w.WriteRecord(&Record{Type: TypeResource, ID: "urn:x", TargetURI: "http://x/", ContentType: "text/plain", Block: block(), BlockLength: 3})
				if err == nil || !strings.Contains(err.Error(), "record urn:x: digests: ") || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("error %v", err)
				}
				if tc.want == "boom" && !errors.Is(err, boom) {
					t.Errorf("%v is not boom", err)
				}
				if buf.Len() != 0 || w.Offset() != 0 {
					t.Fatalf("%d bytes written, offset %d", buf.Len(), w.Offset())
				}
				fail = false
				info, err := w.WriteRecord(&Record{Type: TypeResource, TargetURI: "http://x/", ContentType: "text/plain", Block: block(), BlockLength: 3})
				if err != nil || info.Offset != 0 || info.BlockDigest != formatSHA1(func() []byte { s := sha1.Sum([]byte("abc")); return s[:] }()) {
					t.Fatalf("next record: %+v, %v", info, err)
				}
				checkVerify(t, buf.Bytes(), 0)
			})
		}
	}
}
