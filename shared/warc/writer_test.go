package warc

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestAppendixB writes the draft's example records and compares them byte for byte
// with the record the grammar of section 3 describes, with the exact data-length.
func TestAppendixB(t *testing.T) {
	for _, a := range appendixB() {
		t.Run(a.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := NewWriter(&buf, WriterOptions{Version: V09, NoPayloadDigest09: true})
			info, err := w.WriteRecord(a.withBlock())
			if err != nil {
				t.Fatal(err)
			}
			r := a.rec
			var want strings.Builder
			fmt.Fprintf(&want, "warc/0.9 %d %s %s %s %s %s\r\n", a.wantLength, r.Type, r.TargetURI,
				r.Date.Format("20060102150405"), r.ContentType, r.ID)
			for _, f := range r.Header {
				fmt.Fprintf(&want, "%s: %s\r\n", f.Name, f.Value)
			}
			fmt.Fprintf(&want, "Checksum: %s\r\n\r\n", a.wantChecksum)
			want.Write(a.block)
			want.WriteString("\r\n\r\n")
			if got := buf.String(); got != want.String() {
				t.Errorf("record differs:\n got %q\nwant %q", head(got), head(want.String()))
			}
			// data-length counts everything but the closing CRLF CRLF.
			if int64(buf.Len()-4) != a.wantLength {
				t.Errorf("record has %d bytes before CRLF CRLF, want data-length %d", buf.Len()-4, a.wantLength)
			}
			if info.Length != int64(buf.Len()) || info.Offset != 0 || info.BlockDigest != a.wantChecksum {
				t.Errorf("RecordInfo = %+v", info)
			}
		})
	}
}

func head(s string) string {
	if i := strings.Index(s, "\r\n\r\n"); i >= 0 {
		return s[:i]
	}
	return s
}

// TestDataLengthDigits checks the self-referential data-length where it gains a
// digit: around 99/100, 999/1000 and 9999/10000 bytes.
func TestDataLengthDigits(t *testing.T) {
	r := Record{Type: TypeResource, TargetURI: "u:", Date: date("20050708010101"), ContentType: "a/b", ID: "i:"}
	hdr, _ := appendHeader09(nil, &r, nil, 0)
	base := len(hdr) - 1 // without the single digit of "0"... of the empty block's length
	for _, total := range []int{99, 100, 101, 998, 999, 1000, 1001, 1002, 9998, 9999, 10000, 10001, 10002, 10003} {
		for _, d := range []int{2, 3, 4, 5} {
			n := total - base - d
			if n < 0 {
				continue
			}
			var buf bytes.Buffer
			w := NewWriter(&buf, WriterOptions{Version: V09})
			rec := r
			rec.Block, rec.BlockLength = bytes.NewReader(make([]byte, n)), int64(n)
			if _, err := w.WriteRecord(&rec); err != nil {
				t.Fatal(err)
			}
			fields := strings.Fields(buf.String()[:40])
			declared, _ := strconv.Atoi(fields[1])
			if declared != buf.Len()-4 {
				t.Errorf("block %d: data-length %d, record has %d bytes", n, declared, buf.Len()-4)
			}
			if strings.HasPrefix(fields[1], "0") {
				t.Errorf("block %d: padded data-length %q", n, fields[1])
			}
		}
	}
}

// TestGzipSL checks that each record is its own gzip member whose "sl" field holds
// the member's compressed length and the record's uncompressed length (9.1, 9.2),
// read back with the standard library's gzip reader.
func TestGzipSL(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf, WriterOptions{Version: V09, Gzip: true, NoPayloadDigest09: true})
	var infos []RecordInfo
	for _, a := range appendixB() {
		info, err := w.WriteRecord(a.withBlock())
		if err != nil {
			t.Fatal(err)
		}
		infos = append(infos, info)
	}
	data := buf.Bytes()
	for i, a := range appendixB() {
		info := infos[i]
		m := data[info.Offset : info.Offset+info.Length]
		zr, err := gzip.NewReader(bytes.NewReader(m))
		if err != nil {
			t.Fatal(err)
		}
		zr.Multistream(false)
		plain, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("%s: member does not stand alone: %v", a.name, err)
		}
		if int64(len(plain)) != a.wantLength+4 {
			t.Errorf("%s: member holds %d bytes, want %d", a.name, len(plain), a.wantLength+4)
		}
		ex := zr.Header.Extra
		if len(ex) != 12 || string(ex[:2]) != "sl" || binary.LittleEndian.Uint16(ex[2:]) != 8 {
			t.Fatalf("%s: extra field %x", a.name, ex)
		}
		if c, u := binary.LittleEndian.Uint32(ex[4:]), binary.LittleEndian.Uint32(ex[8:]); int64(c) != info.Length || int(u) != len(plain) {
			t.Errorf("%s: sl = %d, %d; want %d, %d", a.name, c, u, info.Length, len(plain))
		}
	}
	if last := infos[len(infos)-1]; last.Offset+last.Length != int64(len(data)) {
		t.Errorf("members end at %d, file has %d bytes", last.Offset+last.Length, len(data))
	}
}

// TestWriter11 checks the WARC/1.1 mapping of the 0.9 fields and the digests.
func TestWriter11(t *testing.T) {
	a := appendixB()[2] // B.3 response
	var buf bytes.Buffer
	w := NewWriter(&buf, WriterOptions{Version: V11})
	if _, err := w.WriteRecord(a.withBlock()); err != nil {
		t.Fatal(err)
	}
	// The payload digest covers the bytes after the HTTP header: here the 6958
	// pattern bytes, whose digest is B.4's block digest.
	want := "WARC/1.1\r\n" +
		"WARC-Type: response\r\n" +
		"WARC-Record-ID: <uuid:a4b26b6b-f918-4136-af04-f859d75aebe5>\r\n" +
		"WARC-Date: 2005-07-08T01:01:01Z\r\n" +
		"WARC-Target-URI: http://www.archive.org/images/logo.jpg\r\n" +
		"WARC-IP-Address: 207.241.224.241\r\n" +
		"WARC-Concurrent-To: <uuid:f569983a-ef8c-4e62-b347-295b227c3e51>\r\n" +
		"WARC-Block-Digest: sha1:BTDLLM3VMHUQL2MQOWVLYT5VAJWKYNEH\r\n" +
		"WARC-Payload-Digest: " + appendixB()[3].wantChecksum + "\r\n" +
		"Content-Type: application/http;msgtype=response\r\n" +
		"Content-Length: 7273\r\n\r\n"
	if got := head(buf.String()) + "\r\n\r\n"; got != want {
		t.Errorf("header:\n%s\nwant:\n%s", got, want)
	}
	// warcinfo: the filedesc: subject-uri becomes WARC-Filename.
	buf.Reset()
	if _, err := w.WriteRecord(appendixB()[0].withBlock()); err != nil {
		t.Fatal(err)
	}
	if h := head(buf.String()); !strings.Contains(h, "\r\nWARC-Filename: test-20050708010101-00001-crawl017.archive.org.warc.gz\r\n") || strings.Contains(h, "Target-URI") {
		t.Errorf("warcinfo header:\n%s", h)
	}
	// revisit: Related-Record-ID is WARC-Refers-To.
	buf.Reset()
	if _, err := w.WriteRecord(appendixB()[5].withBlock()); err != nil {
		t.Fatal(err)
	}
	if h := head(buf.String()); !strings.Contains(h, "\r\nWARC-Refers-To: <uuid:a4b26b6b-f918-4136-af04-f859d75aebe5>\r\n") {
		t.Errorf("revisit header:\n%s", h)
	}
}

func TestWriterErrors(t *testing.T) {
	ok := Record{Type: TypeResource, TargetURI: "http://x/", ContentType: "text/plain", Block: strings.NewReader("abc"), BlockLength: 3}
	tests := []struct {
		name   string
		change func(r *Record)
		want   error
	}{
		{"short block", func(r *Record) { r.BlockLength = 4 }, ErrLength},
		{"short stream", func(r *Record) { r.Block, r.BlockLength = io.LimitReader(strings.NewReader("abc"), 3), 5 }, ErrLength},
		{"revisit without Related-Record-ID", func(r *Record) { r.Type = TypeRevisit }, ErrMissing},
		{"continuation without Segment-Origin-ID", func(r *Record) {
			r.Type = TypeContinuation
			r.Header = Header{{FieldSegmentNumber, "2"}}
		}, ErrMissing},
		{"space in record-id", func(r *Record) { r.ID = "urn:a b" }, ErrField},
		{"no subject-uri", func(r *Record) { r.TargetURI = "" }, ErrMissing},
		{"line end in a value", func(r *Record) { r.Header = Header{{"X", "a\r\nb"}} }, ErrField},
		{"colon in a name", func(r *Record) { r.Header = Header{{"X:Y", "a"}} }, ErrField},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ok
			r.Block = strings.NewReader("abc")
			tt.change(&r)
			_, err := NewWriter(io.Discard, WriterOptions{Version: V09}).WriteRecord(&r)
			if !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

// TestSubjectURIEscaped: whitespace in a subject-uri is percent-escaped (5.1).
func TestSubjectURIEscaped(t *testing.T) {
	var buf bytes.Buffer
	r := Record{Type: TypeResource, TargetURI: "http://x/a b", Date: date("20050708010101"), ContentType: "text/plain; charset=utf-8", ID: "urn:x"}
	if _, err := NewWriter(&buf, WriterOptions{Version: V09}).WriteRecord(&r); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "warc/0.9 ") || !strings.Contains(buf.String(), " resource http://x/a%20b 20050708010101 text/plain;charset=utf-8 urn:x\r\n") {
		t.Errorf("header-line %q", head(buf.String()))
	}
}

func TestSegments(t *testing.T) {
	block := pattern(2500, 7)
	for _, v := range []Version{V09, V11} {
		for _, gz := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v gzip=%v", v, gz), func(t *testing.T) {
				var buf bytes.Buffer
				w := NewWriter(&buf, WriterOptions{Version: v, Gzip: gz, MaxBuffer: 1000})
				// A plain io.Reader cannot be read twice: it is segmented.
				info, err := w.WriteRecord(&Record{Type: TypeResource, TargetURI: "http://x/", ContentType: "application/octet-stream",
					Header: Header{{FieldTruncated, TruncatedTime}}, Block: io.MultiReader(bytes.NewReader(block)), BlockLength: 2500})
				if err != nil {
					t.Fatal(err)
				}
				if info.Segments != 3 || info.Length != int64(buf.Len()) {
					t.Errorf("info = %+v, file %d bytes", info, buf.Len())
				}
				r, err := NewReader(bytes.NewReader(buf.Bytes()))
				if err != nil {
					t.Fatal(err)
				}
				var recs []*Record
				for {
					rec, err := r.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatal(err)
					}
					io.Copy(io.Discard, rec.Block)
					recs = append(recs, rec)
				}
				if len(recs) != 3 {
					t.Fatalf("%d records", len(recs))
				}
				want := []struct {
					typ, num, end, trunc string
					n                    int64
				}{{TypeResource, "1", "", "", 1000}, {TypeContinuation, "2", "", "", 1000}, {TypeContinuation, "3", "2500", "time", 500}}
				for i, w := range want {
					h := recs[i].Header
					if recs[i].Type != w.typ || h.Get(FieldSegmentNumber) != w.num || h.Get(FieldEndLength) != w.end ||
						h.Get(FieldTruncated) != w.trunc || recs[i].BlockLength != w.n {
						t.Errorf("segment %d: %s %d %v", i+1, recs[i].Type, recs[i].BlockLength, h)
					}
					if i > 0 && (h.Get(FieldSegmentOriginID) != recs[0].ID || recs[i].TargetURI != recs[0].TargetURI) {
						t.Errorf("segment %d: origin %q, uri %q", i+1, h.Get(FieldSegmentOriginID), recs[i].TargetURI)
					}
				}
				// Reassembled, the block is whole again.
				r, _ = NewReader(bytes.NewReader(buf.Bytes()))
				r.Reassemble(true)
				rec, err := r.Next()
				if err != nil {
					t.Fatal(err)
				}
				got, err := io.ReadAll(rec.Block)
				if err != nil || !bytes.Equal(got, block) || rec.BlockLength != 2500 || rec.Header.Get(FieldTruncated) != "time" {
					t.Errorf("reassembled: %d bytes, equal %v, BlockLength %d, err %v", len(got), bytes.Equal(got, block), rec.BlockLength, err)
				}
				if _, err := r.Next(); err != io.EOF {
					t.Errorf("after the reassembled record: %v", err)
				}
				checkVerify(t, buf.Bytes(), 0)
			})
		}
	}
}

// checkVerify runs the Verifier over a file and wants that many problems.
func checkVerify(t *testing.T, file []byte, want int) []Problem {
	t.Helper()
	var ps []Problem
	v := NewVerifier(func(p Problem) { ps = append(ps, p) })
	if err := v.Verify("f", bytes.NewReader(file)); err != nil {
		t.Fatal(err)
	}
	v.Finish()
	if len(ps) != want {
		t.Errorf("%d problems, want %d: %v", len(ps), want, ps)
	}
	return ps
}

func TestDedup(t *testing.T) {
	d := NewDeduper()
	var buf bytes.Buffer
	w := NewWriter(&buf, WriterOptions{Version: V11, Dedup: d})
	body := "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"
	first, err := w.WriteRecord(&Record{Type: TypeResponse, TargetURI: "http://a/", Date: date("20200101000000"), ContentType: "application/http;msgtype=response",
		Block: strings.NewReader(body), BlockLength: int64(len(body))})
	if err != nil {
		t.Fatal(err)
	}
	second, err := w.WriteRecord(&Record{Type: TypeResponse, TargetURI: "http://b/", ContentType: "application/http;msgtype=response",
		Header: Header{{FieldRelatedRecordID, "urn:request"}}, Block: io.MultiReader(strings.NewReader(body)), BlockLength: int64(len(body))})
	if err != nil {
		t.Fatal(err)
	}
	if first.Type != TypeResponse || second.Type != TypeRevisit || second.RefersTo != first.ID || second.PayloadDigest != first.PayloadDigest {
		t.Fatalf("first %+v, second %+v", first, second)
	}
	r, _ := NewReader(bytes.NewReader(buf.Bytes()))
	r.Next()
	rec, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	blk, _ := io.ReadAll(rec.Block)
	h := rec.Header
	if rec.Type != TypeRevisit || string(blk) != "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n" ||
		h.Values(FieldRelatedRecordID)[0] != first.ID || h.Values(FieldRelatedRecordID)[1] != "urn:request" ||
		h.Get(FieldProfile) != ProfileIdenticalPayload || h.Get(FieldRefersToTargetURI) != "http://a/" ||
		h.Get(FieldRefersToDate) != "2020-01-01T00:00:00Z" || h.Get(FieldPayloadDigest) != first.PayloadDigest {
		t.Errorf("revisit %q %v", blk, h)
	}
	checkVerify(t, buf.Bytes(), 0)
}

func TestTruncateAt(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf, WriterOptions{Version: V09, TruncateAt: 10})
	if _, err := w.WriteRecord(&Record{Type: TypeResource, TargetURI: "http://x/", ContentType: "text/plain",
		Block: strings.NewReader(strings.Repeat("x", 100)), BlockLength: 100}); err != nil {
		t.Fatal(err)
	}
	r, _ := NewReader(&buf)
	rec, err := r.Next()
	if err != nil || rec.BlockLength != 10 || rec.Header.Get(FieldTruncated) != "length" {
		t.Errorf("%v %+v", err, rec)
	}
}

// TestSeekableSink: a block too large to buffer, from an io.ReadSeeker, goes to a
// seekable file in one member whose sl is patched afterwards.
func TestSeekableSink(t *testing.T) {
	f := &memFile{}
	w := NewWriter(f, WriterOptions{Version: V11, Gzip: true, MaxBuffer: 100})
	block := pattern(5000, 3)
	info, err := w.WriteRecord(&Record{Type: TypeResource, TargetURI: "http://x/", ContentType: "application/octet-stream",
		Date: time.Unix(0, 0), Block: bytes.NewReader(block), BlockLength: 5000})
	if err != nil || info.Segments != 1 || info.Length != int64(len(f.b)) {
		t.Fatalf("%v %+v %d", err, info, len(f.b))
	}
	if c := binary.LittleEndian.Uint32(f.b[slAt:]); int64(c) != info.Length {
		t.Errorf("sl compressed length %d, member %d", c, info.Length)
	}
	checkVerify(t, f.b, 0)
}

// memFile is an in-memory io.WriteSeeker.
type memFile struct {
	b   []byte
	off int
}

func (m *memFile) Write(p []byte) (int, error) {
	if need := m.off + len(p); need > len(m.b) {
		m.b = append(m.b, make([]byte, need-len(m.b))...)
	}
	copy(m.b[m.off:], p)
	m.off += len(p)
	return len(p), nil
}

func (m *memFile) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		off += int64(m.off)
	case io.SeekEnd:
		off += int64(len(m.b))
	}
	m.off = int(off)
	return off, nil
}

// TestPayloadDigest09 checks the Payload-Digest named field of WARC 0.9 records: on
// HTTP messages, resources and conversions (where WARC/1.1 has WARC-Payload-Digest),
// not on warcinfo, metadata or continuation records; read back under the Header name
// FieldPayloadDigest, mapped to WARC-Payload-Digest in WARC/1.1 and checked by the
// Verifier.
func TestPayloadDigest09(t *testing.T) {
	b := appendixB()
	// B.3's payload is B.4's block, whose digest the draft's data gives; B.2's
	// request has an empty payload (SHA-1 of nothing, RFC 3174's test suite value
	// da39a3ee..., in base32).
	const empty = "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ"
	want := map[string]string{
		"B.2 request":    empty,
		"B.3 response":   b[3].wantChecksum,
		"B.4 resource":   b[3].wantChecksum,
		"B.7 conversion": b[6].wantChecksum,
	}
	file, infos := writeAll(t, WriterOptions{Version: V09, Gzip: true}, appendixRecords()...)
	recs, _, errs := readAll(t, file)
	if len(errs) > 0 || len(recs) != len(b) {
		t.Fatalf("%d records, errors %v", len(recs), errs)
	}
	for i, a := range b {
		if got := recs[i].Header.Get(FieldPayloadDigest); got != want[a.name] {
			t.Errorf("%s: payload digest %q, want %q", a.name, got, want[a.name])
		}
		if want[a.name] != "" && infos[i].PayloadDigest != want[a.name] {
			t.Errorf("%s: RecordInfo.PayloadDigest %q", a.name, infos[i].PayloadDigest)
		}
	}
	m := file[infos[2].Offset : infos[2].Offset+infos[2].Length]
	zr, err := gzip.NewReader(bytes.NewReader(m))
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := io.ReadAll(zr)
	if !strings.Contains(head(string(plain)), "\r\nChecksum: "+b[2].wantChecksum+"\r\nPayload-Digest: "+b[3].wantChecksum) {
		t.Errorf("B.3 header:\n%s", head(string(plain)))
	}
	// B.8 continues a record that has no first segment: leave it out here.
	checkVerify(t, file[:infos[7].Offset], 0)
	bad := bytes.Replace(plain, []byte("Payload-Digest: sha1:E"), []byte("Payload-Digest: sha1:F"), 1)
	checkVerify(t, bad, 1)

	// WARC/1.1 and back: the field keeps its meaning under each version's name.
	r, err := NewReader(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	var v11 bytes.Buffer
	if _, err := Convert(NewWriter(&v11, WriterOptions{Version: V11}), r); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(v11.String(), "\r\nWARC-Payload-Digest: "+b[3].wantChecksum+"\r\n"); n != 2 {
		t.Errorf("WARC/1.1 has %d WARC-Payload-Digest fields for B.3 and B.4, want 2", n)
	}
	if strings.Contains(v11.String(), "\r\nPayload-Digest") {
		t.Error("WARC/1.1 output has a Payload-Digest field")
	}
	r, _ = NewReader(bytes.NewReader(v11.Bytes()))
	var back bytes.Buffer
	if _, err := Convert(NewWriter(&back, WriterOptions{Version: V09}), r); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(back.String(), "\r\nPayload-Digest: "); n != 4 || strings.Contains(back.String(), "WARC-Payload-Digest") {
		t.Errorf("back in WARC 0.9: %d Payload-Digest fields, want 4", n)
	}
}

// seekOnly hides every method of its reader but Read and Seek (io.ReaderAt above all).
type seekOnly struct{ io.ReadSeeker }

// TestWritten: WriterOptions.Written is handed, of each record, what a Reader reads
// back from the file at that record: its offset, its header as written and its block
// (a revisit's HTTP header, a segment's part), and where the next record starts.
// Blocks come buffered, from an io.ReaderAt and from a source that can only seek,
// which the Writer leaves after the block.
func TestWritten(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 1000)
	resp := "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n" + big[:3000]
	resp2 := "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n" + big[3000:6000]
	req := "POST /form HTTP/1.1\r\nContent-Length: 7\r\n\r\na=1&b=2"
	const partial = 16
	for _, v := range []Version{V09, V11} {
		for _, gz := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v/gzip=%v", v, gz), func(t *testing.T) {
				type written struct {
					offset, end int64
					typ         string
					header      []byte
					block       []byte
				}
				var got []written
				var file bytes.Buffer
				w := NewWriter(&file, WriterOptions{Version: v, Gzip: gz, MaxBuffer: 4096, Dedup: NewDeduper(),
					Written: func(wr *WrittenRecord) {
						var src io.Reader = wr.Record.Block
						if wr.Record.TargetURI == "http://x/b" {
							// Read only in part, as an index reads an HTTP header.
							src = io.LimitReader(src, partial)
						}
						block, err := io.ReadAll(src)
						if err != nil {
							t.Fatal(err)
						}
						got = append(got, written{wr.Record.Offset, wr.End, wr.Record.Type, bytes.Clone(wr.Header), block})
					}})
				onlySeeks := &seekOnly{strings.NewReader(resp2)}
				for _, r := range []*Record{
					{Type: TypeRequest, TargetURI: "http://x/form", ContentType: "message/http", Block: io.MultiReader(strings.NewReader(req)), BlockLength: int64(len(req))},
					{Type: TypeResponse, TargetURI: "http://x/a", ContentType: "message/http", Block: strings.NewReader(resp), BlockLength: int64(len(resp))},
					{Type: TypeResponse, TargetURI: "http://x/b", ContentType: "message/http", Block: onlySeeks, BlockLength: int64(len(resp2))},
					{Type: TypeResponse, TargetURI: "http://x/c", ContentType: "message/http", Block: strings.NewReader(resp), BlockLength: int64(len(resp))},
					{Type: TypeResource, TargetURI: "http://x/big", ContentType: "text/plain", Block: io.MultiReader(strings.NewReader(big)), BlockLength: int64(len(big))},
				} {
					if _, err := w.WriteRecord(r); err != nil {
						t.Fatal(err)
					}
				}
				if at, _ := onlySeeks.Seek(0, io.SeekCurrent); at != int64(len(resp2)) {
					t.Errorf("source left at %d, want %d, after its block", at, len(resp2))
				}
				r, err := NewReader(bytes.NewReader(file.Bytes()))
				if err != nil {
					t.Fatal(err)
				}
				types := map[string]int{}
				for i := 0; ; i++ {
					rec, err := r.Next()
					if err == io.EOF {
						if i != len(got) {
							t.Fatalf("%d records in the file, Written told of %d", i, len(got))
						}
						break
					}
					if err != nil {
						t.Fatal(err)
					}
					if i >= len(got) {
						t.Fatalf("record %d at %d: Written was not told of it", i, rec.Offset)
					}
					block, err := io.ReadAll(rec.Block)
					if err != nil {
						t.Fatal(err)
					}
					g := got[i]
					types[g.typ]++
					if rec.TargetURI == "http://x/b" {
						block = block[:partial]
					}
					wantEnd := int64(file.Len())
					if i+1 < len(got) {
						wantEnd = got[i+1].offset
					}
					if g.offset != rec.Offset || g.end != wantEnd || g.typ != rec.Type {
						t.Errorf("record %d: Written told of %s at %d-%d, the file has %s at %d, the next at %d", i, g.typ, g.offset, g.end, rec.Type, rec.Offset, wantEnd)
					}
					if !bytes.Equal(g.header, r.RawHeader()) {
						t.Errorf("record %d: header\n%q\nwant\n%q", i, g.header, r.RawHeader())
					}
					if !bytes.Equal(g.block, block) {
						t.Errorf("record %d: block of %d bytes %.60q, want %d bytes %.60q", i, len(g.block), g.block, len(block), block)
					}
				}
				if types[TypeRevisit] != 1 || types[TypeContinuation] == 0 || types[TypeRequest] != 1 {
					t.Errorf("record types %v: a case is not covered", types)
				}
			})
		}
	}
}
