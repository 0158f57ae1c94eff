package cdx

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/warc"
)

// TestFollowerAgreesWithIndex: indexing records as a warc.Writer writes them gives the
// entries Index gives for the file, in every version the Writer writes, for pairs of
// requests and responses, notes, revisits and segmented records.
func TestFollowerAgreesWithIndex(t *testing.T) {
	date := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	big := bytes.Repeat([]byte("0123456789abcdef"), 5000)
	type rec struct {
		typ, url, ctype, block string
		related                bool // refers to the request before it
	}
	records := []rec{
		{typ: warc.TypeRequest, url: "http://example.org/form", ctype: "message/http",
			block: "POST /form HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 7\r\n\r\na=1&b=2"},
		{typ: warc.TypeResponse, url: "http://example.org/form", ctype: "message/http", related: true,
			block: "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>thanks</p>"},
		{typ: warc.TypeMetadata, url: "http://example.org/form", ctype: "text/plain", related: true, block: "a note"},
		{typ: warc.TypeRequest, url: "http://example.org/again", ctype: "message/http", block: "GET /again HTTP/1.1\r\n\r\n"},
		{typ: warc.TypeResponse, url: "http://example.org/again", ctype: "message/http", related: true,
			block: "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>thanks</p>"},
		{typ: warc.TypeResponse, url: "http://example.org/big", ctype: "message/http",
			block: "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n\r\n" + string(big)},
		{typ: warc.TypeResource, url: "http://example.org/file.txt", ctype: "text/plain", block: "a resource"},
	}
	for _, tc := range []struct {
		version warc.Version
		gz      bool
	}{{warc.V09, true}, {warc.V11, true}, {warc.V09, false}, {warc.V11, false}} {
		version, gz := tc.version, tc.gz
		name := "f.warc"
		if gz {
			name += ".gz"
		}
		t.Run(version.String()+"/"+name, func(t *testing.T) {
			var file bytes.Buffer
			var followed []string
			follower := (&Indexer{Dialect: Pywb267}).Follow(name, func(e *Entry) error {
				followed = append(followed, string(e.AppendLine(nil, Pywb267)))
				return nil
			})
			follower.Plain = !gz
			var addErr error
			w := warc.NewWriter(&file, warc.WriterOptions{
				Version: version, Gzip: gz, MaxBuffer: 32 << 10, Dedup: warc.NewDeduper(),
				Written: func(wr *warc.WrittenRecord) {
					if err := follower.Add(wr.Record, wr.PayloadDigest); err != nil && addErr == nil {
						addErr = err
					}
				},
			})
			var reqID string
			for i, r := range records {
				h := warc.Header{}
				if r.related {
					h = warc.Header{{Name: warc.FieldRelatedRecordID, Value: reqID}}
				}
				info, err := w.WriteRecord(&warc.Record{
					Type: r.typ, TargetURI: r.url, Date: date.Add(time.Duration(i) * time.Second),
					// A reader that cannot be read twice, so that a long block is
					// written as segments whatever the version.
					ContentType: r.ctype, Header: h, Block: io.MultiReader(strings.NewReader(r.block)), BlockLength: int64(len(r.block)),
				})
				if err != nil {
					t.Fatal(err)
				}
				if r.typ == warc.TypeRequest {
					reqID = info.ID
				}
			}
			if err := follower.End(w.Offset()); err != nil {
				t.Fatal(err)
			}
			if addErr != nil {
				t.Fatal(addErr)
			}
			var indexed []string
			if err := (&Indexer{Dialect: Pywb267, Workers: 1}).Index(bytes.NewReader(file.Bytes()), name, func(e *Entry) error {
				indexed = append(indexed, string(e.AppendLine(nil, Pywb267)))
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(followed, indexed) {
				t.Errorf("followed:\n%s\nindexed:\n%s", strings.Join(followed, ""), strings.Join(indexed, ""))
			}
			all := strings.Join(indexed, "")
			for _, want := range []string{"__wb_method=post&a=1&b=2", "warc/revisit", `"mime": "text/plain"`} {
				if !strings.Contains(all, want) {
					t.Errorf("no line with %s: the case is not covered\n%s", want, all)
				}
			}
			if n := strings.Count(all, "org,example)/big "); gz && n < 3 {
				t.Errorf("%d lines for the segmented record: it was not written as segments", n)
			}
		})
	}
}
