package warc

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"
)

// storedMember writes data as a member stored whole.
func storedMember(t testing.TB, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	var m memberWriter
	if err := m.reset(&buf, 0, true); err != nil {
		t.Fatal(err)
	}
	// In uneven writes, as a block is copied.
	for p := data; len(p) > 0; {
		k := min(len(p), 40000)
		if _, err := m.Write(p[:k]); err != nil {
			t.Fatal(err)
		}
		p = p[k:]
	}
	if err := m.close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestStoredMember: a member stored whole is a gzip member the standard library
// inflates; its length gives its inflated size, and a reader from any byte reads
// from where the layout puts it the bytes inflating gives.
func TestStoredMember(t *testing.T) {
	const b = maxStoredBlock
	for _, n := range []int{0, 1, b - 1, b, b + 1, 2 * b, 3*b + 7, 200000} {
		data := randomBytes(n)
		m := storedMember(t, data)
		zr, err := gzip.NewReader(bytes.NewReader(m))
		if err != nil {
			t.Fatal(err)
		}
		zr.Multistream(false)
		if got, err := io.ReadAll(zr); err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%d bytes: stdlib gzip: %v, %d bytes", n, err, len(got))
		}
		sm, ok := StoredMemberOfLength(int64(len(m)))
		if !ok || sm.Size != int64(n) || sm.Length != int64(len(m)) {
			t.Fatalf("%d bytes: StoredMemberOfLength(%d) = %+v, %v", n, len(m), sm, ok)
		}
		for _, u := range []int{0, 1, b - 1, b, b + 1, n / 2, n - 1, n} {
			if u < 0 || u > n {
				continue
			}
			got, err := io.ReadAll(sm.NewReader(bytes.NewReader(m[sm.BlockOffset(int64(u)):]), int64(u)))
			if err != nil || !bytes.Equal(got, data[u:]) {
				t.Errorf("%d bytes, from %d: %v, %d bytes (want %d)", n, u, err, len(got), n-u)
			}
		}
	}
}

// TestStoredMemberLengths: each length from that of an empty member to past three
// blocks' is a stored member's only if a member stored whole has it.
func TestStoredMemberLengths(t *testing.T) {
	lengths := map[int64]int64{} // a stored member's length -> its size
	for n := int64(0); n <= 4*maxStoredBlock; n++ {
		lengths[storedOverhead+n+5*(n/maxStoredBlock+1)] = n
	}
	for n := int64(0); n < storedOverhead+3*(maxStoredBlock+5)+20; n++ {
		sm, ok := StoredMemberOfLength(n)
		size, want := lengths[n]
		if ok != want || (ok && sm.Size != size) {
			t.Fatalf("StoredMemberOfLength(%d) = %+v, %v; want size %d, %v", n, sm, ok, size, want)
		}
	}
}

// TestStoredMemberNotStored: a compressed member, or a stored one read with the
// wrong length or damaged, fails with ErrNotStored, giving no byte of a block
// whose header is not as the layout says.
func TestStoredMemberNotStored(t *testing.T) {
	data := randomBytes(3 * maxStoredBlock)
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	letters := randomBytes(3 * maxStoredBlock) // compressible: a letter of 16 each byte
	for i := range letters {
		letters[i] = 'a' + letters[i]%16
	}
	zw.Write(letters)
	zw.Close()
	stored := storedMember(t, data)
	damaged := bytes.Clone(stored)
	damaged[StoredMember{}.BlockOffset(maxStoredBlock)+1] ^= 1
	for _, c := range []struct {
		name   string
		member []byte
		size   int64 // the size the reader is told
		u      int64
	}{
		{"compressed", z.Bytes(), 3 * maxStoredBlock, maxStoredBlock + 10},
		{"shorter than it is", stored, 2*maxStoredBlock + 100, maxStoredBlock + 10},
		{"damaged header", damaged, 3 * maxStoredBlock, 10},
	} {
		sm := StoredMember{Length: int64(len(c.member)), Size: c.size}
		at := sm.BlockOffset(c.u)
		if at >= int64(len(c.member)) {
			t.Fatalf("%s: block offset %d past the member", c.name, at)
		}
		got, err := io.ReadAll(sm.NewReader(bytes.NewReader(c.member[at:]), c.u))
		if !errors.Is(err, ErrNotStored) {
			t.Errorf("%s: err %v, want ErrNotStored", c.name, err)
		}
		if end := (c.u/maxStoredBlock + 1) * maxStoredBlock; int64(len(got)) > end-c.u || !bytes.Equal(got, data[c.u:c.u+int64(len(got))]) {
			t.Errorf("%s: gave %d bytes, not all of the block from %d with a good header", c.name, len(got), c.u)
		}
	}
}

// TestWriterStoresWhole: the Writer stores whole a long block whose middle does not
// compress, and compresses a long block that does, and a short one.
func TestWriterStoresWhole(t *testing.T) {
	date := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	for _, c := range []struct {
		name  string
		body  []byte
		whole bool
	}{
		{"a video's bytes", randomBytes(3 << 20), true},
		{"text", []byte(strings.Repeat("archive replay index payload ", 100000)), false},
		{"short", randomBytes(storedWholeMin / 2), false},
		{"compressible in its middle", append(append(randomBytes(1<<20), bytes.Repeat([]byte{'a'}, 1<<20)...), randomBytes(1<<20)...), false},
	} {
		resp := "HTTP/1.1 200 OK\r\nContent-Type: video/webm\r\nContent-Length: " + strconv.Itoa(len(c.body)) + "\r\n\r\n" + string(c.body)
		for _, opts := range []WriterOptions{{Gzip: true}, {Gzip: true, MaxBuffer: 1 << 20}} {
			rec := &Record{Type: TypeResponse, ID: "urn:uuid:r1", TargetURI: "http://example.com/v.webm", Date: date,
				ContentType: "application/http; msgtype=response", Block: strings.NewReader(resp), BlockLength: int64(len(resp))}
			file, infos := writeAll(t, opts, rec)
			sm, ok := StoredMemberOfLength(infos[0].Length)
			if !ok {
				if c.whole {
					t.Errorf("%s (MaxBuffer %d): the member is not a stored one's length", c.name, opts.MaxBuffer)
				}
				continue
			}
			// The body's last byte, read from where the layout puts it.
			u := sm.Size - 5
			got, err := io.ReadAll(sm.NewReader(bytes.NewReader(file[infos[0].Offset+sm.BlockOffset(u):]), u))
			if c.whole != (err == nil) {
				t.Errorf("%s (MaxBuffer %d): stored whole %v, want %v (%v)", c.name, opts.MaxBuffer, err == nil, c.whole, err)
			}
			if c.whole && (string(got) != string(c.body[len(c.body)-1:])+"\r\n\r\n") {
				t.Errorf("%s: read %q at the end", c.name, got)
			}
		}
	}
}

// FuzzStoredMember: reading any bytes as a stored member from any byte ends, with
// at most the member's bytes and an error or all of its size from there.
func FuzzStoredMember(f *testing.F) {
	f.Add(storedMember(f, randomBytes(maxStoredBlock+100)), int64(maxStoredBlock+3))
	f.Add(storedMember(f, nil), int64(0))
	f.Add([]byte("\x1f\x8b\x08\x00"), int64(2))
	f.Fuzz(func(t *testing.T, member []byte, u int64) {
		sm, ok := StoredMemberOfLength(int64(len(member)))
		if !ok || u < 0 || u > sm.Size {
			return
		}
		at := sm.BlockOffset(u)
		if at > int64(len(member)) {
			t.Fatalf("block offset %d past a member of %d bytes", at, len(member))
		}
		got, err := io.ReadAll(sm.NewReader(bytes.NewReader(member[at:]), u))
		if int64(len(got)) > sm.Size-u || (err == nil && int64(len(got)) != sm.Size-u) {
			t.Fatalf("read %d bytes from %d of %d, err %v", len(got), u, sm.Size, err)
		}
	})
}

// TestReadMemberHead: the heads of a record written in segments say each member's
// lengths, its record and where its block starts, whether it is stored whole, and
// lead from one member to the next; a member laid out otherwise is ErrNotStored.
func TestReadMemberHead(t *testing.T) {
	date := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	body := append(randomBytes(3<<20), bytes.Repeat([]byte("compresses "), 50000)...)
	resp := "HTTP/1.1 200 OK\r\nContent-Type: video/webm\r\n\r\n" + string(body)
	for _, v := range []Version{V09, V11} {
		rec := &Record{Type: TypeResponse, ID: "urn:uuid:r1", TargetURI: "http://example.com/v", Date: date,
			ContentType: "application/http; msgtype=response", Block: io.MultiReader(strings.NewReader(resp)), BlockLength: int64(len(resp))}
		file, infos := writeAll(t, WriterOptions{Version: v, Gzip: true, MaxBuffer: 1 << 20}, rec)
		var block []byte
		off := infos[0].Offset
		for seg := 1; off < int64(len(file)); seg++ {
			h, err := ReadMemberHead(bytes.NewReader(file[off:]))
			if err != nil {
				t.Fatalf("%v, segment %d at %d: %v", v, seg, off, err)
			}
			if got := h.Record.Header.Get(FieldSegmentNumber); got != strconv.Itoa(seg) {
				t.Errorf("%v, segment %d: Segment-Number %q", v, seg, got)
			}
			if want := seg <= 3; h.Stored != want {
				t.Errorf("%v, segment %d: stored whole %v, want %v", v, seg, h.Stored, want)
			}
			zr, _ := gzip.NewReader(bytes.NewReader(file[off : off+h.Length]))
			whole, err := io.ReadAll(zr)
			if err != nil || int64(len(whole)) != h.Size {
				t.Fatalf("%v, segment %d: the member (%d bytes) inflates to %d bytes (%v), its head says %d", v, seg, h.Length, len(whole), err, h.Size)
			}
			block = append(block, whole[h.BlockAt:h.BlockAt+h.Record.BlockLength]...)
			off += h.Length
		}
		if string(block) != resp {
			t.Errorf("%v: the segments' blocks are not the record's (%d bytes of %d)", v, len(block), len(resp))
		}
	}
	var other bytes.Buffer // another tool's member: no sl field
	zw := gzip.NewWriter(&other)
	zw.Write([]byte("WARC/1.1\r\nWARC-Type: resource\r\nContent-Length: 1\r\n\r\nx\r\n\r\n"))
	zw.Close()
	streamed, _ := writeAll(t, WriterOptions{Gzip: true, MaxBuffer: 1 << 10}, &Record{Type: TypeResource, ID: "urn:uuid:s1",
		TargetURI: "http://example.com/t", Date: date, ContentType: "text/plain", Block: strings.NewReader(resp), BlockLength: int64(len(resp))})
	for name, m := range map[string][]byte{"another tool's": other.Bytes(), "written as it streamed": streamed, "plain": []byte("WARC/1.1\r\n")} {
		if _, err := ReadMemberHead(bytes.NewReader(m)); !errors.Is(err, ErrNotStored) {
			t.Errorf("%s member: %v, want ErrNotStored", name, err)
		}
	}
}

// FuzzReadMemberHead: any bytes give a head whose record fits its member, or an
// error.
func FuzzReadMemberHead(f *testing.F) {
	rec := "HTTP/1.1 200 OK\r\n\r\n" + string(randomBytes(2<<20))
	file, _ := writeAll(f, WriterOptions{Gzip: true}, &Record{Type: TypeResponse, ID: "urn:uuid:r1", TargetURI: "http://example.com/v",
		Date: time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC), ContentType: "application/http; msgtype=response", Block: strings.NewReader(rec), BlockLength: int64(len(rec))})
	f.Add(file[:MemberHeadRead])
	f.Add(storedMember(f, []byte("WARC/1.1\r\nContent-Length: 0\r\n\r\n\r\n\r\n")))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := ReadMemberHead(bytes.NewReader(b))
		if err == nil && (h.BlockAt <= 0 || h.Record.BlockLength < 0 || h.BlockAt+h.Record.BlockLength+4 != h.Size) {
			t.Fatalf("head %+v", h)
		}
	})
}
