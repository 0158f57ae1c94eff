package cdx

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/httpmsg"
	"github.com/webkeep/webkeep/shared/warc"
)

// benchWARC writes n request/response pairs (4 KB payloads, every tenth a
// form POST) in version v, gzip per record.
func benchWARC(b *testing.B, v warc.Version, n int) []byte {
	var buf bytes.Buffer
	w := warc.NewWriter(&buf, warc.WriterOptions{Version: v, Gzip: true})
	payload := strings.Repeat("lorem ipsum dolor sit amet archive capture replay\n", 80)
	for i := 0; i < n; i++ {
		url := "http://www.example" + strconv.Itoa(i%50) + ".com/page/" + strconv.Itoa(i) + "?q=1"
		req := "GET /page HTTP/1.1\r\nHost: x\r\n\r\n"
		if i%10 == 0 {
			req = "POST /page HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 9\r\n\r\na=1&b=x+y"
		}
		resp := "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + payload
		id := "urn:uuid:req-" + strconv.Itoa(i)
		for _, r := range []*warc.Record{
			{Type: warc.TypeRequest, ID: id, TargetURI: url, ContentType: "application/http; msgtype=request", Block: strings.NewReader(req), BlockLength: int64(len(req))},
			{Type: warc.TypeResponse, TargetURI: url, ContentType: "application/http; msgtype=response", Block: strings.NewReader(resp), BlockLength: int64(len(resp)),
				Header: warc.Header{{Name: warc.FieldRelatedRecordID, Value: id}}},
		} {
			r.Date = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
			if _, err := w.WriteRecord(r); err != nil {
				b.Fatal(err)
			}
		}
	}
	w.Close()
	return buf.Bytes()
}

func benchmarkIndex(b *testing.B, v warc.Version) {
	data := benchWARC(b, v, 500)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	ix := &Indexer{}
	var records int
	for i := 0; i < b.N; i++ {
		w := NewWriter(io.Discard, Pywb267)
		if err := ix.Index(bytes.NewReader(data), "bench.warc.gz", w.Write); err != nil {
			b.Fatal(err)
		}
		records += 1000
		w.Close()
	}
	b.ReportMetric(float64(records)/b.Elapsed().Seconds(), "records/s")
}

func BenchmarkIndexWARC11(b *testing.B) { benchmarkIndex(b, warc.V11) }
func BenchmarkIndexWARC09(b *testing.B) { benchmarkIndex(b, warc.V09) }

func BenchmarkSURT(b *testing.B) {
	for i := 0; i < b.N; i++ {
		SURT("http://www.example.com/some/path/page.html?b=2&a=1&jsessionid=x")
	}
}

func BenchmarkEncodeJSON(b *testing.B) {
	body := []byte(`{"type":"event","id":44.0,"values":[true,false,null],"source":{"type":"component","id":"a+b&c= d","values":[3,4]}}`)
	r := &Request{Method: "POST", URL: "http://example.org/events", Body: body,
		Header: httpmsg.Header{"Content-Type": {"application/json"}, "Content-Length": {strconv.Itoa(len(body))}}}
	b.SetBytes(int64(len(body)))
	for i := 0; i < b.N; i++ {
		EncodeRequest(r)
	}
}
