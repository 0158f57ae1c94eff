package capture

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/webkeep/webkeep/shared/httpmsg/nethttp"
	"github.com/webkeep/webkeep/shared/urldb"
)

// realDatabaseFiles returns the domain files of the real 537-record database.
func realDatabaseFiles(t testing.TB) []urldb.File {
	t.Helper()
	paths, err := filepath.Glob("../urldb/testdata/wwt-url-database/*.yaml")
	if err != nil || len(paths) == 0 {
		t.Fatalf("the real database: %v", err)
	}
	var files []urldb.File
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, urldb.File{Name: filepath.Base(p), Data: b})
	}
	return files
}

// bombZip returns a zip of n domain files each inflating to size bytes of spaces:
// one member compressed once, stored n times.
func bombZip(t testing.TB, n int, size int64) []byte {
	t.Helper()
	var deflated bytes.Buffer
	fw, _ := flate.NewWriter(&deflated, flate.BestCompression)
	crc := crc32.NewIEEE()
	chunk := bytes.Repeat([]byte(" "), 1<<20)
	for left := size; left > 0; left -= int64(len(chunk)) {
		c := chunk[:min(int64(len(chunk)), left)]
		fw.Write(c)
		crc.Write(c)
	}
	fw.Close()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i < n; i++ {
		w, err := zw.CreateRaw(&zip.FileHeader{
			Name: fmt.Sprintf("db/bomb%02d.example.yaml", i), Method: zip.Deflate,
			CRC32: crc.Sum32(), CompressedSize64: uint64(deflated.Len()), UncompressedSize64: uint64(size),
		})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(deflated.Bytes())
	}
	zw.Close()
	return buf.Bytes()
}

func TestADatabaseZipBombIsRefusedByItsTotal(t *testing.T) {
	store := NewMemStore()
	svc := recordedService(t, store)
	if _, err := svc.db.Replace(realDatabaseFiles(t)); err != nil {
		t.Fatal(err)
	}
	was := svc.db.Info()
	sessions := sessionSnapshot(t, store)

	// 20 files of 200 MiB each: every one is over the limit by itself, and far over
	// it together; 20 of 8 MiB: each under it, together over it.
	for _, tc := range []struct {
		name string
		zip  []byte
	}{
		{"bomb.zip", bombZip(t, 20, 200<<20)},
		{"many.zip", bombZip(t, 20, 8<<20)},
	} {
		t.Logf("%s: %d KiB", tc.name, len(tc.zip)>>10)
		j := runJob(t, nethttp.Handler(svc.Handler()), "POST", "/api/urldb?name="+tc.name, "application/zip", tc.zip, nil)
		if j.State != "failed" || !strings.Contains(j.Error, tc.name+": db/bomb") || !strings.Contains(j.Error, "more than 32 MiB, the most a database may hold") {
			t.Errorf("%s: %+v", tc.name, j)
		}
		if now := svc.db.Info(); now.Records != was.Records || len(now.Domains) != len(was.Domains) {
			t.Errorf("%s changed the database: %d records, was %d", tc.name, now.Records, was.Records)
		}
		svc2, _ := NewService(store, newFakeHost())
		if now := svc2.db.Info(); now.Records != was.Records {
			t.Errorf("%s changed the stored database: %d records after a restart, was %d", tc.name, now.Records, was.Records)
		}
	}
	if !sameSnapshot(sessions, sessionSnapshot(t, store)) {
		t.Error("loading a database changed the sessions")
	}
	if keys, _ := store.Keys("spool/"); len(keys) > 0 {
		t.Errorf("spooled chunks left behind: %d", len(keys))
	}
}

func TestADatabaseOfTooManyFilesIsRefused(t *testing.T) {
	files := map[string]string{}
	for i := 0; i <= maxDatabaseFiles; i++ {
		files[fmt.Sprintf("d%05d.example.yaml", i)] = ""
	}
	svc, _ := NewService(NewMemStore(), newFakeHost())
	j := runJob(t, nethttp.Handler(svc.Handler()), "POST", "/api/urldb?name=many.zip", "application/zip", dbZip(t, files), nil)
	if j.State != "failed" || !strings.Contains(j.Error, "many.zip: ") || !strings.Contains(j.Error, "more than 20000 domain files") {
		t.Errorf("job: %+v", j)
	}
}

// domainFile returns a domain file of n records shaped like the real database's.
func domainFile(n, seed int) []byte {
	var b bytes.Buffer
	b.WriteString("---\nhttps: true\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "---\n_path: /data/%d/%07d/tile.png\n", seed, i)
		if i%3 == 0 {
			b.WriteString("categories:\n- coreapp\n")
		}
		if i%2 == 0 {
			sum := sha256.Sum256([]byte(fmt.Sprint(seed, i)))
			fmt.Fprintf(&b, "content-length: %d\ncontent-sha256: %x\n", 1000+i, sum)
		}
		b.WriteString("content-type: image/png\n")
	}
	return b.Bytes()
}

func TestADatabaseOfTensOfMBLoads(t *testing.T) {
	if runtime.GOOS == "js" {
		t.Skip("parsing 30 MB of YAML under node takes minutes; make bench loads one in Chromium")
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	size, records := 0, 0
	for i := 0; size < 30<<20; i++ {
		data := domainFile(20000, i)
		w, _ := zw.Create(fmt.Sprintf("db/d%03d.example.org.yaml", i))
		w.Write(data)
		size += len(data)
		records += 20000
	}
	zw.Close()
	svc, _ := NewService(NewMemStore(), newFakeHost())
	var info DatabaseInfo
	if j := runJob(t, nethttp.Handler(svc.Handler()), "POST", "/api/urldb?name=big.zip", "application/zip", buf.Bytes(), &info); j.State != "done" || j.Done != j.Total || j.Total < records {
		t.Fatalf("job: %+v", j)
	}
	if info.Records != records || len(info.Problems) > 0 {
		t.Errorf("%d MiB of YAML: %d records loaded of %d, problems %q", size>>20, info.Records, records, info.Problems)
	}
}
