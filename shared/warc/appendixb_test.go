package warc

import (
	"bytes"
	"strings"
	"time"
)

// The records of the draft's Appendix B (B.1-B.8), with the values the draft gives
// (types, subject-uris, dates, content-types, record-ids, named fields). The draft
// lost the XML tags of B.1 and B.5 (they were in angle brackets) and elides binary
// data ("[6958 bytes of binary data here]"); the tags are reconstructed around the
// values it kept, the binary data is a fixed byte pattern of the stated length, and
// B.8's 39514114 bytes are cut to 1000. The draft's lengths are "approximate" (its
// words): wantLength and wantChecksum were computed independently with Python
// (hashlib, base64.b32encode, and a loop over candidate data-lengths).
type appendixRecord struct {
	name         string
	rec          Record
	block        []byte
	wantLength   int64
	wantChecksum string
}

// pattern is the stand-in for elided binary data; the Python used to compute the
// expected values makes the same bytes: (i*seed + 7) % 251.
func pattern(n, seed int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte((i*seed + 7) % 251)
	}
	return b
}

func date(s string) time.Time {
	t, err := time.Parse(layout09, s)
	if err != nil {
		panic(err)
	}
	return t
}

func appendixB() []appendixRecord {
	b1 := strings.Join([]string{
		`<warcinfo xmlns="http://archive.org/warc/0.9">`,
		`<software>Heritrix 1.4.0 http://crawler.archive.org</software>`,
		`<hostname>crawling017.archive.org</hostname>`,
		`<ip>207.241.227.234</ip>`,
		`<isPartOf>testcrawl-20050708</isPartOf>`,
		`<description>testcrawl with WARC output</description>`,
		`<operator>IA_Admin</operator>`,
		`<http-header-user-agent>Mozilla/5.0 (compatible; heritrix/1.4.0 +http://crawler.archive.org)</http-header-user-agent>`,
		`<format>WARC file version 0.9</format>`,
		`<conformsTo>http://www.archive.org/documents/WarcFileFormat.php</conformsTo>`,
		`</warcinfo>`, ``}, "\r\n")
	b2 := "GET /images/logo.jpg HTTP/1.0\r\nHost: www.archive.org\r\nUser-Agent: Mozilla/5.0 (compatible; crawler/1.4 +http://example.com)\r\n\r\n"
	b3 := append([]byte("HTTP/1.x 200 OK\r\nDate: Fri, 08 Jul 2005 01:01:01 GMT\r\nServer: Apache/1.3.33 (Debian GNU/Linux) PHP/5.0.4-0.3\r\n"+
		"Last-Modified: Sun, 12 Jun 2005 00:31:01 GMT\r\nEtag: \"914480-1b2e-42ab8245\"\r\nAccept-Ranges: bytes\r\n"+
		"Content-Length: 6958\r\nKeep-Alive: timeout=15, max=100\r\nConnection: Keep-Alive\r\nContent-Type: image/jpeg\r\n\r\n"), pattern(6958, 31)...)
	b5 := "<metadata>\r\n<outlink>http://www.archive.org</outlink>\r\n<fetch-time-ms>565</fetch-time-ms>\r\n</metadata>\r\n"
	b6 := "HTTP/1.x 304 Not Modified\r\nDate: Mon, 08 Aug 2005 01:01:01 GMT\r\nEtag: \"914480-1b2e-42ab8245\"\r\n\r\n"
	const logo = "http://www.archive.org/images/logo.jpg"
	const response = "uuid:a4b26b6b-f918-4136-af04-f859d75aebe5"
	return []appendixRecord{
		{"B.1 warcinfo", Record{Type: TypeWarcinfo, TargetURI: "filedesc:test-20050708010101-00001-crawl017.archive.org.warc.gz",
			Date: date("20050708010101"), ContentType: "text/xml", ID: "uuid:cbad35b7-e591-4b43-8a67-9d1d8f9ef4cd"},
			[]byte(b1), 765, "sha1:3OQTTUJ73KF6KHZZT2XOJUJMMDYVHZYC"},
		{"B.2 request", Record{Type: TypeRequest, TargetURI: logo, Date: date("20050708010101"), ContentType: "message/http",
			ID: "uuid:f569983a-ef8c-4e62-b347-295b227c3e51", Header: Header{{FieldIPAddress, "207.241.224.241"}}},
			[]byte(b2), 338, "sha1:JXP77ZJME3ODQAROD6YPYNA4LCOU3XQW"},
		{"B.3 response", Record{Type: TypeResponse, TargetURI: logo, Date: date("20050708010101"), ContentType: "message/http",
			ID: response, Header: Header{{FieldIPAddress, "207.241.224.241"}, {FieldRelatedRecordID, "uuid:f569983a-ef8c-4e62-b347-295b227c3e51"}}},
			b3, 7548, "sha1:BTDLLM3VMHUQL2MQOWVLYT5VAJWKYNEH"},
		{"B.4 resource", Record{Type: TypeResource, TargetURI: "file://webserver/htdoc/images/logo.jpg", Date: date("20050710010101"),
			ContentType: "image/jpeg", ID: "uuid:a6c3132b-49b8-4fd5-8072-45ce66d48a4b"},
			pattern(6958, 31), 7140, "sha1:EHZQOMGH6S5XH7CNVC2DQYQ7KBFGMNBZ"},
		{"B.5 metadata", Record{Type: TypeMetadata, TargetURI: logo, Date: date("20050708010101"), ContentType: "text/xml",
			ID: "uuid:a4acff63-c213-4f35-9652-41a0e2dfc492", Header: Header{{FieldRelatedRecordID, response}}},
			[]byte(b5), 345, "sha1:SV7AKO4Z2W7GAJCIVKYFXGYZ5TRFWP7G"},
		{"B.6 revisit", Record{Type: TypeRevisit, TargetURI: logo, Date: date("20050808010101"), ContentType: "text/xml",
			ID: "uuid:ad522b3b-d68c-464a-b5e2-38149cfb511d", Header: Header{{FieldRelatedRecordID, response}}},
			[]byte(b6), 336, "sha1:Q55N3LT5ODTOZGJFDRPWBBS36BWA6KER"},
		{"B.7 conversion", Record{Type: TypeConversion, TargetURI: logo, Date: date("20150708010101"), ContentType: "image/neoimg",
			ID: "uuid:c631da8a-e8db-44a8-84c5-9cc848dff35a", Header: Header{{FieldRelatedRecordID, response}}},
			pattern(3098, 17), 3346, "sha1:YPHKUKCNW7TOGZO6CWZOG3FDAZKXCY43"},
		{"B.8 continuation", Record{Type: TypeContinuation, TargetURI: logo, Date: date("20150708010101"), ContentType: "message/http",
			ID: "uuid:c0d36ada-af8c-4608-8409-e60818b1d9e9", Header: Header{{FieldSegmentNumber, "2"}, {FieldSegmentOriginID, response}}},
			pattern(1000, 13), 1269, "sha1:U357OLUOX3HZHQT5ZPCK7ZXREU5T2BGO"},
	}
}

// withBlock returns a copy of the record reading from block.
func (a appendixRecord) withBlock() *Record {
	r := a.rec
	r.Header = a.rec.Header.Clone()
	r.Block = bytes.NewReader(a.block)
	r.BlockLength = int64(len(a.block))
	return &r
}
