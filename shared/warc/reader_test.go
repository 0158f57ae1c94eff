package warc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// writeAll writes records with the given options and returns the file.
func writeAll(t testing.TB, opts WriterOptions, recs ...*Record) ([]byte, []RecordInfo) {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(&buf, opts)
	var infos []RecordInfo
	for _, r := range recs {
		info, err := w.WriteRecord(r)
		if err != nil {
			t.Fatal(err)
		}
		infos = append(infos, info)
	}
	return buf.Bytes(), infos
}

func appendixRecords() []*Record {
	var recs []*Record
	for _, a := range appendixB() {
		recs = append(recs, a.withBlock())
	}
	return recs
}

// readAll reads every record with its block; damage is returned in errs.
func readAll(t testing.TB, file []byte) (recs []*Record, blocks [][]byte, errs []error) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	for range 10000 {
		rec, err := r.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		b, err := io.ReadAll(rec.Block)
		if err != nil {
			// The damage is reported again by Next.
			b = nil
		}
		recs = append(recs, rec)
		blocks = append(blocks, b)
	}
	t.Fatal("no end")
	return
}

func TestReadAppendixB(t *testing.T) {
	for _, v := range []Version{V09, V11} {
		for _, gz := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v gzip=%v", v, gz), func(t *testing.T) {
				file, infos := writeAll(t, WriterOptions{Version: v, Gzip: gz}, appendixRecords()...)
				recs, blocks, errs := readAll(t, file)
				if len(errs) > 0 {
					t.Fatal(errs)
				}
				want := appendixB()
				if len(recs) != len(want) {
					t.Fatalf("%d records", len(recs))
				}
				for i, rec := range recs {
					a := want[i]
					if rec.Version != v || rec.Type != a.rec.Type || rec.TargetURI != a.rec.TargetURI || !rec.Date.Equal(a.rec.Date) ||
						rec.ID != a.rec.ID || rec.Offset != infos[i].Offset || !bytes.Equal(blocks[i], a.block) {
						t.Errorf("%s: read %v %s %s %v %s offset %d (want %d)", a.name, rec.Version, rec.Type, rec.TargetURI, rec.Date, rec.ID, rec.Offset, infos[i].Offset)
					}
					for _, f := range a.rec.Header {
						if !contains(rec.Header.Values(f.Name), f.Value) {
							t.Errorf("%s: %s = %q missing from %v", a.name, f.Name, f.Value, rec.Header)
						}
					}
					if got := rec.Header.Get(FieldChecksum); got != a.wantChecksum {
						t.Errorf("%s: checksum %q", a.name, got)
					}
				}
				// B.8 continues a record whose first segment is not in the file.
				if ps := checkVerify(t, file, 1); len(ps) == 1 && (!errors.Is(ps[0], ErrSegment) || ps[0].Record != want[7].rec.ID) {
					t.Error(ps[0])
				}
			})
		}
	}
}

func contains(vs []string, v string) bool {
	for _, x := range vs {
		if x == v {
			return true
		}
	}
	return false
}

// TestLenient09 reads the forms the ruling lists from writers of the time.
func TestLenient09(t *testing.T) {
	block := "hello, world"
	rec := func(line string) string { return line + "\r\n\r\n" + block + "\r\n\r\n" }
	// Each header line is 70 bytes + CRLF CRLF (4) + 12-byte block = 86.
	tests := []struct {
		name, file string
		length     int64
	}{
		{"draft", rec("warc/0.9 00086 resource http://x/ 20060101000000 text/plain urn:uuid:1"), 12},
		{"upper case WARC/0.9", rec("WARC/0.9 00086 resource http://x/ 20060101000000 text/plain urn:uuid:1"), 12},
		{"record-id before content-type (Heritrix 2006)", rec("warc/0.9 00086 resource http://x/ 20060101000000 urn:uuid:1 text/plain"), 12},
		{"zero-padded, extra spaces", rec("warc/0.9    86 resource http://x/ 20060101000000 text/plain urn:uuid:1"), 12},
		// LAW: data-length counts the closing CRLF CRLF too.
		{"data-length with CRLF CRLF (LAW)", rec("warc/0.9 00090 resource http://x/ 20060101000000 text/plain urn:uuid:1"), 12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := []byte(tt.file + tt.file)
			recs, blocks, errs := readAll(t, file)
			if len(errs) > 0 || len(recs) != 2 {
				t.Fatalf("%d records, errors %v", len(recs), errs)
			}
			for i, r := range recs {
				if r.Type != TypeResource || r.ID != "urn:uuid:1" || r.ContentType != "text/plain" || string(blocks[i]) != block || r.BlockLength != tt.length {
					t.Errorf("record %d: %s %q %q %q %d", i, r.Type, r.ID, r.ContentType, blocks[i], r.BlockLength)
				}
			}
		})
	}
}

// TestLAWBlockEndingInCRLF: a standard record whose block itself ends with CRLF CRLF
// (an HTTP request without a body) is not mistaken for the LAW form.
func TestLAWBlockEndingInCRLF(t *testing.T) {
	file, _ := writeAll(t, WriterOptions{Version: V09}, appendixRecords()[1], appendixRecords()[1])
	recs, blocks, errs := readAll(t, file)
	if len(errs) > 0 || len(recs) != 2 || string(blocks[1]) != string(appendixB()[1].block) {
		t.Fatalf("%v %d %q", errs, len(recs), blocks)
	}
}

func TestRead10(t *testing.T) {
	// A WARC/1.0 record as warcio writes them.
	file := "WARC/1.0\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:1>\r\nWARC-Date: 2017-03-06T04:03:53.123456Z\r\n" +
		"WARC-Target-URI: http://x/\r\nWARC-Concurrent-To: <urn:uuid:0>\r\nWARC-Segment-Total-Length: 5\r\nX-Other: kept\r\n" +
		" folded\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello\r\n\r\n"
	recs, blocks, errs := readAll(t, []byte(file))
	if len(errs) > 0 || len(recs) != 1 {
		t.Fatal(errs)
	}
	r := recs[0]
	want := Header{{FieldRelatedRecordID, "urn:uuid:0"}, {FieldEndLength, "5"}, {"X-Other", "kept folded"}}
	if r.Version != V10 || r.ID != "urn:uuid:1" || r.Date.Nanosecond() != 123456000 || fmt.Sprint(r.Header) != fmt.Sprint(want) || string(blocks[0]) != "hello" {
		t.Errorf("%+v %v %q", r, r.Header, blocks[0])
	}
}

// TestDamage: a wrong length is reported with its byte range, and reading resumes at
// the next record.
func TestDamage(t *testing.T) {
	for _, gz := range []bool{false, true} {
		t.Run(fmt.Sprintf("gzip=%v", gz), func(t *testing.T) {
			recs := appendixRecords()
			recs[1], recs[2] = recs[2], recs[1]
			file, infos := writeAll(t, WriterOptions{Version: V09, Gzip: gz, NoPayloadDigest09: true}, recs[0], recs[1], recs[2])
			var bad []byte
			if gz {
				// Break the compressed deflate data of the second member (its
				// head is stored, so break it near the end).
				bad = bytes.Clone(file)
				for i := infos[2].Offset - 30; i < infos[2].Offset-20; i++ {
					bad[i] ^= 0x55
				}
			} else {
				// Declare the second record one byte shorter than it is.
				bad = bytes.Replace(file, []byte("warc/0.9 7548 "), []byte("warc/0.9 7547 "), 1)
			}
			got, _, errs := readAll(t, bad)
			if len(errs) != 1 {
				t.Fatalf("errors %v", errs)
			}
			var de *DamageError
			if !errors.As(errs[0], &de) || de.Offset != infos[1].Offset || de.End != infos[2].Offset {
				t.Errorf("damage %v, want %d-%d", errs[0], infos[1].Offset, infos[2].Offset)
			}
			if gz && !errors.Is(errs[0], ErrGzip) || !gz && !errors.Is(errs[0], ErrLength) {
				t.Errorf("damage %v", errs[0])
			}
			if last := got[len(got)-1]; last.ID != recs[2].ID {
				t.Errorf("last record read is %s", last.ID)
			}
			// Verify reports the damage (and, for the short block, its digest).
			var n int
			v := NewVerifier(func(p Problem) {
				if errors.Is(p, ErrLength) || errors.Is(p, ErrGzip) {
					n++
				}
			})
			v.Verify("f", bytes.NewReader(bad))
			if n != 1 {
				t.Errorf("verify: %d damage problems", n)
			}
		})
	}
}

// TestResyncGarbage: garbage between records is skipped up to the next "warc/0.9"
// at a line start.
func TestResyncGarbage(t *testing.T) {
	file, _ := writeAll(t, WriterOptions{Version: V09}, appendixRecords()[1])
	bad := append([]byte("GARBAGE warc/0.9 in the middle\r\n"), file...)
	recs, _, errs := readAll(t, bad)
	var de *DamageError
	if len(recs) != 1 || len(errs) != 1 || !errors.As(errs[0], &de) || de.Offset != 0 || de.End != 32 {
		t.Errorf("%d records, errors %v", len(recs), errs)
	}
}

// TestSkipWithSL: a record whose block is not read is skipped by its sl length
// without inflating it: a member whose end is broken is not even noticed.
func TestSkipWithSL(t *testing.T) {
	recs := appendixRecords()
	// An incompressible block larger than the Reader's buffers.
	big := &Record{Type: TypeResource, TargetURI: "http://big/", ContentType: "application/octet-stream",
		Block: bytes.NewReader(randomBytes(1 << 20)), BlockLength: 1 << 20}
	file, infos := writeAll(t, WriterOptions{Version: V09, Gzip: true}, big, recs[1])
	bad := bytes.Clone(file)
	end := infos[0].Offset + infos[0].Length
	bad[end-1000] ^= 0xff // inside the (stored) data near the end of the first member
	r, _ := NewReader(bytes.NewReader(bad))
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	rec, err := r.Next() // skips the rest of the first record by sl
	if err != nil || rec.ID != recs[1].ID || rec.Offset != infos[1].Offset {
		t.Fatalf("%v %+v", err, rec)
	}
	// Reading it all finds the damage.
	_, _, errs := readAll(t, bad)
	if len(errs) != 1 || !errors.Is(errs[0], ErrGzip) {
		t.Errorf("errors %v", errs)
	}
}

// TestWrongSL: verify reports an sl value that does not match its member.
func TestWrongSL(t *testing.T) {
	file, _ := writeAll(t, WriterOptions{Version: V11, Gzip: true}, appendixRecords()[1])
	bad := bytes.Clone(file)
	bad[slAt+4]++ // uncompressed length
	ps := checkVerify(t, bad, 1)
	if len(ps) == 1 && !errors.Is(ps[0], ErrSkipLength) {
		t.Errorf("%v", ps[0])
	}
}

func TestVerifyDigest(t *testing.T) {
	file, _ := writeAll(t, WriterOptions{Version: V11}, appendixRecords()[2])
	bad := bytes.Replace(file, []byte("Keep-Alive: timeout=15"), []byte("Keep-Alive: timeout=16"), 1)
	ps := checkVerify(t, bad, 1) // the block digest; the payload is intact
	if len(ps) == 1 && !errors.Is(ps[0], ErrDigest) {
		t.Errorf("%v", ps[0])
	}
}

func TestSeekRecord(t *testing.T) {
	for _, gz := range []bool{false, true} {
		file, infos := writeAll(t, WriterOptions{Version: V09, Gzip: gz}, appendixRecords()...)
		r, _ := NewReader(bytes.NewReader(file))
		for i := len(infos) - 1; i >= 0; i-- {
			if err := r.SeekRecord(infos[i].Offset); err != nil {
				t.Fatal(err)
			}
			rec, err := r.Next()
			if err != nil || rec.ID != appendixB()[i].rec.ID || rec.Offset != infos[i].Offset {
				t.Fatalf("gzip=%v record %d: %v %+v", gz, i, err, rec)
			}
			b, _ := io.ReadAll(rec.Block)
			if !bytes.Equal(b, appendixB()[i].block) {
				t.Errorf("gzip=%v record %d: block differs", gz, i)
			}
		}
	}
}

// TestRoundTrip: 0.9 -> 1.1 -> 0.9 gives back the same file, byte for byte.
func TestRoundTrip(t *testing.T) {
	for _, gz := range []bool{false, true} {
		orig, _ := writeAll(t, WriterOptions{Version: V09, Gzip: gz}, appendixRecords()...)
		convert := func(in []byte, v Version) []byte {
			var out bytes.Buffer
			r, err := NewReader(bytes.NewReader(in))
			if err != nil {
				t.Fatal(err)
			}
			n, err := Convert(NewWriter(&out, WriterOptions{Version: v, Gzip: gz}), r)
			if err != nil || n != len(appendixB()) {
				t.Fatalf("%d records, %v", n, err)
			}
			return out.Bytes()
		}
		v11 := convert(orig, V11)
		checkVerify(t, v11, 1) // B.8's origin is not in the file
		back := convert(v11, V09)
		if !bytes.Equal(back, orig) {
			t.Errorf("gzip=%v: 0.9 -> 1.1 -> 0.9 differs", gz)
		}
		_, b1, _ := readAll(t, orig)
		_, b2, _ := readAll(t, v11)
		for i := range b1 {
			if !bytes.Equal(b1[i], b2[i]) {
				t.Errorf("block %d differs in 1.1", i)
			}
		}
	}
}

func TestReaderErrorsNeverPanic(t *testing.T) {
	inputs := []string{"", "\r\n", "warc/0.9", "warc/0.9 x", "WARC/1.1\r\n\r\n", "WARC/2.0\r\nContent-Length: 1\r\n\r\nx",
		"warc/0.9 5 a b c d e\r\n\r\n", "\x1f\x8b", "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff garbage",
		"WARC/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n"}
	for _, in := range inputs {
		readAll(t, []byte(in))
	}
}

func TestHeader(t *testing.T) {
	var h Header
	h.Add("A", "1")
	h.Add("b", "2")
	h.Add("a", "3")
	if h.Get("a") != "1" || len(h.Values("A")) != 2 || !h.Has("B") {
		t.Errorf("%v", h)
	}
	h.Set("A", "4")
	if fmt.Sprint(h) != "[{A 4} {b 2}]" {
		t.Errorf("Set: %v", h)
	}
	h.Del("B")
	if fmt.Sprint(h) != "[{A 4}]" {
		t.Errorf("Del: %v", h)
	}
}

func TestFileWriter(t *testing.T) {
	files := map[string]*bytes.Buffer{}
	var order []string
	fw := NewFileWriter(FileOptions{Prefix: "TEST", Host: "host.example", TargetSize: 12 << 10,
		Writer: WriterOptions{Version: V09, Gzip: false, MaxBuffer: 64 << 10},
		Now:    func() time.Time { return date("20050708010101") },
		Create: func(name string) (io.WriteCloser, error) {
			b := &bytes.Buffer{}
			files[name] = b
			order = append(order, name)
			return nopCloser{b}, nil
		},
		Warcinfo: func(name string) *Record {
			return &Record{Type: TypeWarcinfo, TargetURI: "filedesc:" + name, ContentType: "text/plain", Block: strings.NewReader("x"), BlockLength: 1}
		},
	})
	recs := appendixRecords() // 561, 127, 7273, 6958, ... byte blocks
	big := &Record{Type: TypeResource, TargetURI: "http://big/", ContentType: "application/octet-stream",
		Block: io.MultiReader(bytes.NewReader(pattern(30000, 5))), BlockLength: 30000}
	for _, r := range append(recs, big) {
		info, err := fw.WriteRecord(r)
		if err != nil {
			t.Fatal(err)
		}
		if files[info.File] == nil {
			t.Errorf("record in unknown file %q", info.File)
		}
	}
	fw.Close()
	if order[0] != "TEST-20050708010101-00001-host.example.warc" {
		t.Errorf("first file %q", order[0])
	}
	v := NewVerifier(func(p Problem) {
		if p.Record != appendixB()[7].rec.ID { // B.8's origin is not in the files
			t.Error(p)
		}
	})
	for _, name := range order {
		if n := files[name].Len(); n > 12<<10 {
			t.Errorf("%s has %d bytes", name, n)
		}
		v.Verify(name, bytes.NewReader(files[name].Bytes()))
	}
	v.Finish()
	// 8 records, 30000 bytes in 4 segments of at most 8 KB (12 KB less 4 KB of
	// room for headers), and a warcinfo record at the start of each file; the big
	// record's 4 segments need 4 files of their own.
	if len(order) < 4+2 || v.Records() != 8+4+len(order) {
		t.Errorf("%d files, %d records", len(order), v.Records())
	}
}

type nopCloser struct{ io.Writer }

// randomBytes returns n pseudo-random bytes, the same on every run.
func randomBytes(n int) []byte {
	b := make([]byte, n)
	x := uint64(88172645463325252)
	for i := range b {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		b[i] = byte(x)
	}
	return b
}

func (nopCloser) Close() error { return nil }

// lazyFile writes records whose gzip members are longer than lazyPrefix (random
// blocks) and shorter (small text blocks), HTTP messages and not.
func lazyFile(t *testing.T, v Version) []byte {
	t.Helper()
	x := uint32(7)
	var recs []*Record
	for i, size := range []int{10, 5000, 100, 70000, 2100, 0, 300000, 40} {
		block := make([]byte, size)
		for j := range block {
			x ^= x << 13
			x ^= x >> 17
			x ^= x << 5
			block[j] = byte(x)
		}
		typ, ct := TypeResource, "application/octet-stream"
		if i%2 == 1 {
			typ, ct = TypeResponse, "message/http"
			block = append([]byte("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n\r\n"), block...)
		}
		recs = append(recs, &Record{Type: typ, TargetURI: fmt.Sprintf("http://example.com/%d", i), ContentType: ct,
			Date: date("20240101000000"), Block: bytes.NewReader(block), BlockLength: int64(len(block))})
	}
	file, _ := writeAll(t, WriterOptions{Version: v, Gzip: true}, recs...)
	return file
}

// TestLazy reads the same files lazily and not, reading each block through, in
// part, or not at all, and wants the same records, offsets and bytes.
func TestLazy(t *testing.T) {
	for _, v := range []Version{V09, V11} {
		file := lazyFile(t, v)
		want, wantBlocks, errs := readAll(t, file)
		if len(errs) > 0 || len(want) != 8 {
			t.Fatalf("%v: %d records, %v", v, len(want), errs)
		}
		for _, limit := range []int64{-1, 0, 1, 100, 3000, 100000} {
			r, err := NewReader(bytes.NewReader(file))
			if err != nil {
				t.Fatal(err)
			}
			r.Lazy(true)
			for i := 0; ; i++ {
				rec, err := r.Next()
				if err == io.EOF {
					if i != len(want) {
						t.Errorf("%v limit %d: %d records, want %d", v, limit, i, len(want))
					}
					break
				}
				if err != nil {
					t.Fatalf("%v limit %d record %d: %v", v, limit, i, err)
				}
				if rec.Offset != want[i].Offset || rec.ID != want[i].ID || rec.BlockLength != int64(len(wantBlocks[i])) {
					t.Errorf("%v limit %d record %d: offset %d id %s, want %d %s", v, limit, i, rec.Offset, rec.ID, want[i].Offset, want[i].ID)
				}
				var got []byte
				if limit < 0 {
					got, err = io.ReadAll(rec.Block)
				} else {
					got, err = io.ReadAll(io.LimitReader(rec.Block, limit))
				}
				if err != nil {
					t.Fatalf("%v limit %d record %d: %v", v, limit, i, err)
				}
				if w := wantBlocks[i]; limit >= 0 && int64(len(w)) > limit {
					wantBlocks := w[:limit]
					if !bytes.Equal(got, wantBlocks) {
						t.Errorf("%v limit %d record %d: block differs", v, limit, i)
					}
				} else if !bytes.Equal(got, w) {
					t.Errorf("%v limit %d record %d: block differs", v, limit, i)
				}
			}
		}
	}
}

// TestLazyDamage: a lazy Reader that reads a block through reports a broken member
// as a non-lazy one does.
func TestLazyDamage(t *testing.T) {
	file := lazyFile(t, V09)
	recs, _, _ := readAll(t, file)
	bad := bytes.Clone(file)
	at := recs[3].Offset + 5000 // deep inside the 70,000-byte random block
	for i := at; i < at+8; i++ {
		bad[i] ^= 0xa5
	}
	_, _, wantErrs := readAll(t, bad)
	if len(wantErrs) != 1 {
		t.Fatalf("plain read: %v", wantErrs)
	}
	r, _ := NewReader(bytes.NewReader(bad))
	r.Lazy(true)
	var errs []error
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		io.Copy(io.Discard, rec.Block)
	}
	if len(errs) != 1 || errs[0].Error() != wantErrs[0].Error() {
		t.Errorf("lazy read: %v, want %v", errs, wantErrs)
	}
	// Blocks not read: the lazy Reader inflates only the first bytes of each long
	// member (here, the 70,000 random bytes of record 3) and skips the rest by sl;
	// the eager one inflates ahead by a window of 32 KB.
	for _, lazy := range []bool{false, true} {
		r, _ := NewReader(bytes.NewReader(file))
		r.Lazy(lazy)
		for range 4 {
			if _, err := r.Next(); err != nil {
				t.Fatal(err)
			}
		}
		if got := r.mem.given; lazy && got > 4*lazyPrefix || !lazy && got < 32<<10 {
			t.Errorf("lazy=%v: %d bytes of the member inflated for its header", lazy, got)
		}
	}
}

// TestLazyDamageAtFileEnd: a long member (its sl says so) whose file ends exactly
// lazyPrefix bytes after its start, cut short or broken in those bytes. The longer
// copy a lazy Reader tries next holds the same lazyPrefix bytes; it used to take
// that for the first copy again and inflate it forever (found by FuzzReader,
// testdata/fuzz/FuzzReader/856a66df734e07df). Now the lazy Reader reports the
// damage, with the same byte range as a non-lazy one, whether the block is read
// or skipped.
func TestLazyDamageAtFileEnd(t *testing.T) {
	file := lazyFile(t, V09)
	recs, _, _ := readAll(t, file)
	at := recs[3].Offset // the 70,000 random bytes of record 3
	cut := file[:at+lazyPrefix]
	broken := bytes.Clone(cut)
	if string(broken[at:at+4]) != "\x1f\x8b\x08\x04" {
		t.Fatalf("member at %d: header % x, want FEXTRA only", at, broken[at:at+4])
	}
	hlen := 10 + 2 + int(binary.LittleEndian.Uint16(broken[at+10:])) // header and extra field
	broken[at+int64(hlen)] |= 0x06                                   // first deflate block: BTYPE 11, reserved (RFC 1951 3.2.3)
	for name, bad := range map[string][]byte{"cut": cut, "broken": broken} {
		_, _, wantErrs := readAll(t, bad)
		var de *DamageError
		if len(wantErrs) != 1 || !errors.As(wantErrs[0], &de) || !errors.Is(de, ErrGzip) || de.Offset != at || de.End != int64(len(bad)) {
			t.Fatalf("%s: plain read: %v, want one gzip damage %d-%d", name, wantErrs, at, len(bad))
		}
		for _, limit := range []int64{-1, 0, 10} {
			r, _ := NewReader(bytes.NewReader(bad))
			r.Lazy(true)
			var errs []error
			for range 100 {
				rec, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					errs = append(errs, err)
					continue
				}
				if limit < 0 {
					io.Copy(io.Discard, rec.Block)
				} else {
					io.Copy(io.Discard, io.LimitReader(rec.Block, limit))
				}
			}
			// A block read through meets the damage as a plain read does; one
			// skipped by sl runs past the end of the file, the same bytes.
			var got *DamageError
			if len(errs) != 1 || !errors.As(errs[0], &got) || got.Offset != de.Offset || got.End != de.End ||
				limit < 0 && errs[0].Error() != wantErrs[0].Error() {
				t.Errorf("%s limit %d: lazy read: %v, want %v", name, limit, errs, wantErrs)
			}
		}
	}
}

// failingReader gives the first n bytes of data, then fails every read with err, as a
// ZIP entry shorter than its header says or a network body cut off does.
type failingReader struct {
	data []byte
	n    int
	err  error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, f.err
	}
	k := copy(p, f.data[:min(f.n, len(f.data))])
	f.data, f.n = f.data[k:], f.n-k
	return k, nil
}

// TestReaderInputFails ends the reading with the input's error when the input fails
// (an error other than io.EOF), not with damage: reported as damage, the error came
// back from every Next, and a caller going on past damage, as they all do, never
// ended.
func TestReaderInputFails(t *testing.T) {
	for _, gz := range []bool{false, true} {
		file, infos := writeAll(t, WriterOptions{Version: V09, Gzip: gz, NoPayloadDigest09: true}, appendixRecords()...)
		for _, cut := range []int{1, 7, int(infos[1].Offset) + 3, int(infos[1].Offset) + 200, len(file) - 2} {
			t.Run(fmt.Sprintf("gzip=%v/cut=%d", gz, cut), func(t *testing.T) {
				fail := errors.New("the input broke")
				r, err := NewReader(&failingReader{data: file, n: cut, err: fail})
				if err != nil {
					if !errors.Is(err, fail) {
						t.Fatalf("NewReader: %v", err)
					}
					return
				}
				for i := 0; ; i++ {
					if i > 100 {
						t.Fatal("no end after 100 calls of Next")
					}
					rec, err := r.Next()
					var de *DamageError
					if errors.As(err, &de) {
						// The file is sound up to where its input failed.
						t.Fatalf("the input's failure reported as damage: %v", err)
					}
					if err != nil {
						if !errors.Is(err, fail) {
							t.Fatalf("Next: %v, want the input's error", err)
						}
						break
					}
					if _, err := io.Copy(io.Discard, rec.Block); err != nil && !errors.Is(err, fail) {
						t.Fatalf("block: %v", err)
					}
				}
				if _, err := r.Next(); !errors.Is(err, fail) {
					t.Errorf("Next after the input failed: %v", err)
				}
			})
		}
	}
}
