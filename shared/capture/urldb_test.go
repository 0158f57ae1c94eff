package capture

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/webkeep/webkeep/shared/httpmsg/nethttp"
	"github.com/webkeep/webkeep/shared/recorder"
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

// keptDatabaseStore returns a store holding the real database, as a core that loaded
// it keeps it.
func keptDatabaseStore(t *testing.T) *MemStore {
	t.Helper()
	store := NewMemStore()
	svc, _ := NewService(store, newFakeHost())
	if info, err := svc.db.Replace(realDatabaseFiles(t)); err != nil || info.Records != 537 {
		t.Fatalf("loading the real database: %+v %v", info, err)
	}
	return store
}

// databaseReads counts the reads of the kept database's domain files.
type databaseReads struct {
	*MemStore
	n int
}

func (s *databaseReads) Get(key string) ([]byte, error) {
	if strings.HasPrefix(key, urldbPrefix) {
		s.n++
	}
	return s.MemStore.Get(key)
}

func TestAKeptDatabaseIsReadWhenFirstUsedNotAtStart(t *testing.T) {
	db, err := urldb.LoadFiles(realDatabaseFiles(t)...)
	if err != nil {
		t.Fatal(err)
	}
	dom := db.Domains[0]
	listed := urldb.Targets([]urldb.Entry{{Domain: dom, Record: dom.Records[0]}}, urldb.TargetOptions{})[0].URL
	for _, tc := range []struct {
		name string
		use  func(d *urlDatabase) error
	}{
		{"its description", func(d *urlDatabase) error {
			if info := d.Info(); info.Records != 537 || len(info.Origins) == 0 {
				return fmt.Errorf("info: %d records, origins %v", info.Records, info.Origins)
			}
			return nil
		}},
		{"a verdict", func(d *urlDatabase) error {
			ex := &recorder.Exchange{Method: "GET", URL: listed, Status: 200, RespHeader: recorder.Fields{{Name: "Content-Type", Value: "text/html"}}, RespBody: []byte("x")}
			if _, ok := d.check(ex, ""); !ok {
				return fmt.Errorf("no verdict on %s, which the database lists", listed)
			}
			return nil
		}},
		{"the records to check", func(d *urlDatabase) error {
			if entries, err := d.Entries(); err != nil || len(entries) == 0 {
				return fmt.Errorf("entries: %d, %v", len(entries), err)
			}
			return nil
		}},
		{"its export", func(d *urlDatabase) error {
			var buf bytes.Buffer
			if err := d.WriteZip(&buf); err != nil {
				return err
			}
			zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
			if err != nil || len(zr.File) != len(db.Domains) {
				return fmt.Errorf("the export has %d domain files, not %d: %v", len(zr.File), len(db.Domains), err)
			}
			return nil
		}},
		{"a record added to a kept domain", func(d *urlDatabase) error {
			if _, _, err := d.Add(listed+"webkeep-added", urldb.Response{Status: 200, Header: map[string][]string{"Content-Type": {"text/html"}}}, nil, false); err != nil {
				return err
			}
			// The domain's file was written again: with its kept records, not instead of them.
			if info := loadURLDatabase(d.store).Info(); info.Records != 538 {
				return fmt.Errorf("after the record was added, the kept database has %d records, not 538", info.Records)
			}
			return nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := &databaseReads{MemStore: keptDatabaseStore(t)}
			svc, err := NewService(store, newFakeHost())
			if err != nil {
				t.Fatal(err)
			}
			svc.Status()
			if store.n != 0 {
				t.Fatalf("the core read %d domain files as it started and answered its status", store.n)
			}
			if err := tc.use(svc.db.urlDatabase); err != nil {
				t.Error(err)
			}
			if store.n == 0 {
				t.Error("the kept database was not read when first used")
			}
		})
	}
}

// failingGet fails to read one key.
type failingGet struct {
	*MemStore
	key string
}

func (s failingGet) Get(key string) ([]byte, error) {
	if key == s.key {
		return nil, errors.New("disk error")
	}
	return s.MemStore.Get(key)
}

func TestAKeptDomainFileThatCannotBeReadIsReported(t *testing.T) {
	store := keptDatabaseStore(t)
	keys, _ := store.Keys(urldbPrefix)
	broken := keys[0]
	svc, err := NewService(failingGet{store, broken}, newFakeHost())
	if err != nil {
		t.Fatal(err)
	}
	info := svc.db.Info()
	name := strings.TrimPrefix(broken, urldbPrefix)
	if len(info.Problems) != 1 || !strings.Contains(info.Problems[0], name+": the kept file cannot be read (disk error): load the database again") {
		t.Errorf("problems %q, want one naming %s", info.Problems, name)
	}
	if !info.Loaded || info.Records == 0 || info.Records >= 537 {
		t.Errorf("the other domain files: %d records loaded", info.Records)
	}
}
