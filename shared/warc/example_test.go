package warc_test

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/webkeep/webkeep/shared/warc"
)

func Example() {
	var file bytes.Buffer
	w := warc.NewWriter(&file, warc.WriterOptions{Version: warc.V09, Gzip: true})
	block := "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nhello"
	info, err := w.WriteRecord(&warc.Record{
		Type:        warc.TypeResponse,
		TargetURI:   "http://example.com/",
		Date:        time.Date(2006, 1, 2, 15, 4, 5, 0, time.UTC),
		ID:          "urn:uuid:00000000-0000-4000-8000-000000000001",
		ContentType: "message/http",
		Header:      warc.Header{{Name: warc.FieldIPAddress, Value: "192.0.2.1"}},
		Block:       strings.NewReader(block),
		BlockLength: int64(len(block)),
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("written at", info.Offset, "block digest", info.BlockDigest)

	r, err := warc.NewReader(&file)
	if err != nil {
		panic(err)
	}
	rec, err := r.Next()
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(rec.Block)
	fmt.Println(rec.Version, rec.Type, rec.TargetURI, rec.Header.Get(warc.FieldIPAddress), len(body))
	fmt.Println("payload digest", rec.Header.Get(warc.FieldPayloadDigest))
	fmt.Print(strings.ReplaceAll(string(r.RawHeader()), "\r\n", "\n"))
	// Output:
	// written at 0 block digest sha1:C6F557Y7GBIBDVWFLL2Y4NQXU6FR55BT
	// 0.9 response http://example.com/ 192.0.2.1 50
	// payload digest sha1:VL2MMHO4YXUKFWV63YHTWSBM3GXKSQ2N
	// warc/0.9 296 response http://example.com/ 20060102150405 message/http urn:uuid:00000000-0000-4000-8000-000000000001
	// IP-Address: 192.0.2.1
	// Checksum: sha1:C6F557Y7GBIBDVWFLL2Y4NQXU6FR55BT
	// Payload-Digest: sha1:VL2MMHO4YXUKFWV63YHTWSBM3GXKSQ2N
}
