package capture

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/httpmsg/nethttp"
)

// gzipBomb returns a gzip member of size zero bytes.
func gzipBomb(t testing.TB, size int) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zeros := make([]byte, 1<<20)
	for i := 0; i < size>>20; i++ {
		zw.Write(zeros)
	}
	zw.Close()
	return buf.Bytes()
}

// In the browser the core has one thread: long work must give it up often enough
// for the API to answer meanwhile (under GOOS=js a goroutine that never blocks runs
// until it is done). Each job here runs for seconds under node; the status is asked
// for while it runs, and the job is then cancelled.
func TestTheAPIAnswersWhileLongWorkRuns(t *testing.T) {
	db := domainFile(75000, 0) // 8 MiB
	for _, tc := range []struct {
		name, path, contentType string
		body                    []byte
	}{
		{"import of a gzip bomb", "/api/import?name=bomb.warc.gz", "", gzipBomb(t, 256<<20)},
		{"database load", "/api/urldb?name=big.zip", "application/zip", dbZip(t, map[string]string{"big.example.org.yaml": string(db)})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc, _ := NewService(NewMemStore(), newFakeHost())
			h := nethttp.Handler(svc.Handler())
			var ref struct {
				Job string `json:"job"`
			}
			if rec := send(t, h, "POST", tc.path, tc.contentType, tc.body, &ref); rec.Code != http.StatusAccepted {
				t.Fatalf("%d %s", rec.Code, rec.Body)
			}
			var j Job
			started := time.Now()
			for i := 0; i < 3; i++ {
				if rec := send(t, h, "GET", "/api/status", "", nil, nil); rec.Code != http.StatusOK {
					t.Fatalf("status: %d %s", rec.Code, rec.Body)
				}
				send(t, h, "GET", "/api/jobs/"+ref.Job, "", nil, &j)
				if j.State != "running" {
					t.Fatalf("the job ended (%+v) before the status was answered %d times", j, i+1)
				}
			}
			t.Logf("the status answered 3 times in %v while the job ran", time.Since(started))
			send(t, h, "DELETE", "/api/jobs/"+ref.Job, "", nil, nil)
			for j.State == "running" {
				time.Sleep(10 * time.Millisecond)
				send(t, h, "GET", "/api/jobs/"+ref.Job, "", nil, &j)
			}
			if j.State != "cancelled" {
				t.Errorf("after cancel: %+v", j)
			}
			if list, _ := svc.sessions.list(); len(list) != 0 {
				t.Errorf("sessions left: %+v", list)
			}
		})
	}
}
