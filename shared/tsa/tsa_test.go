package tsa_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/asn1"
	"encoding/hex"
	"errors"
	"io"
	"math/big"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/httpmsg"
	"github.com/webkeep/webkeep/shared/tsa"
)

// The vector: a response `openssl ts -reply` made (testdata/README), read as
// `openssl ts -reply -in reply.tsr -text` printed it then (reply.txt).
func TestOpenSSLVector(t *testing.T) {
	resp, data := vector(t)
	want := opensslText(t, "testdata/reply.txt")
	st, err := tsa.Parse(resp)
	if err != nil {
		t.Fatal(err)
	}
	at, err := time.Parse("Jan _2 15:04:05 2006 MST", want["Time stamp"])
	if err != nil {
		t.Fatal(err)
	}
	serial, ok1 := new(big.Int).SetString(strings.TrimPrefix(want["Serial number"], "0x"), 16)
	nonce, ok2 := new(big.Int).SetString(strings.TrimPrefix(want["Nonce"], "0x"), 16)
	if !ok1 || !ok2 || want["Message data"] == "" {
		t.Fatalf("reply.txt read as %v", want)
	}
	for _, c := range []struct{ field, got, want string }{
		{"genTime", st.Time.Format(time.RFC3339), at.UTC().Format(time.RFC3339)},
		{"serial", st.Serial, serial.String()},
		{"policy", st.Policy, want["Policy OID"]},
		{"nonce", hex.EncodeToString(st.Nonce), hex.EncodeToString(nonce.Bytes())},
		{"digest", hex.EncodeToString(st.Digest), want["Message data"]},
		{"hash", strings.ToLower(strings.ReplaceAll(st.Hash, "-", "")), want["Hash Algorithm"]},
		{"tsa", attributes(strings.ReplaceAll(st.TSA, ",", "/")), attributes(strings.TrimPrefix(want["TSA"], "DirName:"))},
	} {
		if c.got != c.want {
			t.Errorf("%s: read %q, openssl says %q", c.field, c.got, c.want)
		}
	}
	if st.Time.Location() != time.UTC {
		t.Errorf("genTime in %s, not UTC", st.Time.Location())
	}
	if !bytes.Equal(st.Response, resp) || len(st.Certificates) == 0 || strings.Count(st.CertificatesPEM(), "-----BEGIN CERTIFICATE-----") != len(st.Certificates) {
		t.Errorf("response kept: %v, %d certificates", bytes.Equal(st.Response, resp), len(st.Certificates))
	}
	if err := st.Covers(data); err != nil {
		t.Error(err)
	}
}

// attributes returns the "K=V" parts of an "/"-separated name, sorted.
func attributes(name string) string {
	parts := strings.FieldsFunc(name, func(r rune) bool { return r == '/' })
	sort.Strings(parts)
	return strings.Join(parts, "/")
}

func vector(t testing.TB) (resp, data []byte) {
	resp, err := os.ReadFile("testdata/reply.tsr")
	if err != nil {
		t.Fatal(err)
	}
	data, err = os.ReadFile("testdata/data.txt")
	if err != nil {
		t.Fatal(err)
	}
	return resp, data
}

// opensslText reads the "Name: value" lines of `openssl ts -text`, the hex dump
// of "Message data" as one hex string.
func opensslText(t *testing.T, name string) map[string]string {
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	dump := false
	for sc.Scan() {
		line := sc.Text()
		if dump && strings.HasPrefix(line, "    ") {
			// "    0000 - fe b3 21 ca de b6 65 a5-27 56 ...   ..!...e.'V"
			_, hexPart, _ := strings.Cut(line, " - ")
			hexPart, _, _ = strings.Cut(hexPart, "   ")
			out["Message data"] += strings.NewReplacer(" ", "", "-", "").Replace(hexPart)
			continue
		}
		dump = false
		if k, v, ok := strings.Cut(line, ": "); ok {
			out[k] = strings.TrimSpace(v)
		}
		if strings.HasPrefix(line, "Message data:") {
			dump = true
		}
	}
	return out
}

// ASN.1 of RFC 3161, written here apart from the package's, to make answers.
type statusInfo struct {
	Status       int
	StatusString []asn1.RawValue `asn1:"optional,omitempty"`
	FailInfo     asn1.BitString  `asn1:"optional,omitempty"`
}

func response(t *testing.T, si statusInfo, token []byte) []byte {
	t.Helper()
	type resp struct {
		Status statusInfo
		Token  asn1.RawValue `asn1:"optional,omitempty"`
	}
	r := resp{Status: si}
	if token != nil {
		r.Token = asn1.RawValue{FullBytes: token}
	}
	der, err := asn1.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

func failInfo(bits ...int) asn1.BitString {
	b := asn1.BitString{Bytes: make([]byte, 4), BitLength: 26}
	for _, i := range bits {
		b.Bytes[i/8] |= 0x80 >> (i % 8)
	}
	return b
}

func utf8String(t *testing.T, s string) asn1.RawValue {
	der, err := asn1.MarshalWithParams(s, "utf8")
	if err != nil {
		t.Fatal(err)
	}
	return asn1.RawValue{FullBytes: der}
}

// token returns the vector's time-stamp token (its ContentInfo).
func token(t *testing.T) []byte {
	resp, _ := vector(t)
	var r struct {
		Status asn1.RawValue
		Token  asn1.RawValue
	}
	if _, err := asn1.Unmarshal(resp, &r); err != nil {
		t.Fatal(err)
	}
	return r.Token.FullBytes
}

func TestParse(t *testing.T) {
	resp, _ := vector(t)
	tok := token(t)
	notSigned, _ := asn1.Marshal(struct {
		Type    asn1.ObjectIdentifier
		Content asn1.RawValue `asn1:"explicit,tag:0"`
	}{asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 7, 1}, asn1.RawValue{Tag: asn1.TagOctetString, Bytes: []byte("x")}})
	for _, tc := range []struct {
		name string
		resp []byte
		is   error    // nil: it parses
		says []string // in the error
	}{
		{"granted", response(t, statusInfo{Status: 0}, tok), nil, nil},
		{"grantedWithMods", response(t, statusInfo{Status: 1}, tok), nil, nil},
		{"empty", nil, tsa.ErrFormat, nil},
		{"not DER", []byte("<html>busy</html>"), tsa.ErrFormat, nil},
		{"truncated", resp[:len(resp)-1], tsa.ErrFormat, nil},
		{"trailing bytes", append(append([]byte{}, resp...), 0), tsa.ErrFormat, []string{"1 bytes after it"}},
		{"rejection", response(t, statusInfo{Status: 2, StatusString: []asn1.RawValue{utf8String(t, "try later")},
			FailInfo: failInfo(0, 2, 5, 14, 15, 16, 17, 25)}, nil),
			tsa.ErrRejected, []string{"rejection", "badAlg", "badRequest", "badDataFormat", "timeNotAvailable", "unacceptedPolicy",
				"unacceptedExtension", "addInfoNotAvailable", "systemFailure", `"try later"`}},
		{"rejection, no failInfo", response(t, statusInfo{Status: 2}, nil), tsa.ErrRejected, []string{"rejection"}},
		{"rejection with a token", response(t, statusInfo{Status: 2, FailInfo: failInfo(25)}, tok), tsa.ErrRejected, []string{"systemFailure"}},
		{"waiting", response(t, statusInfo{Status: 3}, nil), tsa.ErrRejected, []string{"waiting"}},
		{"revocationWarning", response(t, statusInfo{Status: 4}, tok), tsa.ErrRejected, []string{"revocationWarning"}},
		{"unknown status", response(t, statusInfo{Status: 9, FailInfo: failInfo(3)}, nil), tsa.ErrRejected, []string{"status 9", "failure bit 3"}},
		{"negative status", response(t, statusInfo{Status: -1}, tok), tsa.ErrRejected, []string{"status -1"}},
		{"granted without a token", response(t, statusInfo{Status: 0}, nil), tsa.ErrFormat, []string{"no token"}},
		{"a token of data", response(t, statusInfo{Status: 0}, notSigned), tsa.ErrFormat, []string{"the token"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := tsa.Parse(tc.resp)
			if tc.is == nil {
				if err != nil || st.Serial == "" || len(st.Digest) != 32 {
					t.Fatalf("%v, %+v", err, st)
				}
				return
			}
			if !errors.Is(err, tc.is) {
				t.Fatalf("%v, want %v", err, tc.is)
			}
			for _, w := range tc.says {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not say %q", err, w)
				}
			}
		})
	}
}

// timeStampReq is RFC 3161's, to read what NewRequest and Client send.
type timeStampReq struct {
	Version        int
	MessageImprint struct {
		HashAlgorithm struct {
			Algorithm  asn1.ObjectIdentifier
			Parameters asn1.RawValue `asn1:"optional"`
		}
		HashedMessage []byte
	}
	ReqPolicy asn1.ObjectIdentifier `asn1:"optional"`
	Nonce     *big.Int              `asn1:"optional"`
	CertReq   bool                  `asn1:"optional,default:false"`
}

func readRequest(t *testing.T, der []byte) timeStampReq {
	t.Helper()
	var r timeStampReq
	if rest, err := asn1.Unmarshal(der, &r); err != nil || len(rest) > 0 {
		t.Fatalf("not a TimeStampReq: %v", err)
	}
	return r
}

func TestNewRequest(t *testing.T) {
	data := []byte("MEUCIQC signature text")
	seen := map[string]bool{}
	for range 20 {
		der, nonce, err := tsa.NewRequest(data)
		if err != nil {
			t.Fatal(err)
		}
		r := readRequest(t, der)
		sum := sha256.Sum256(data)
		if r.Version != 1 || !r.MessageImprint.HashAlgorithm.Algorithm.Equal(asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 1}) ||
			!bytes.Equal(r.MessageImprint.HashedMessage, sum[:]) || !r.CertReq || r.ReqPolicy != nil {
			t.Fatalf("request %+v", r)
		}
		if len(nonce) != 8 || r.Nonce == nil || r.Nonce.Sign() <= 0 || !bytes.Equal(r.Nonce.Bytes(), nonce) {
			t.Fatalf("nonce %x, in the request %v", nonce, r.Nonce)
		}
		if seen[string(nonce)] {
			t.Fatalf("nonce %x twice", nonce)
		}
		seen[string(nonce)] = true
	}
}

func TestCovers(t *testing.T) {
	for _, tc := range []struct {
		hash, data string
		sum        func([]byte) []byte
	}{
		{"SHA-256", "abc", func(b []byte) []byte { s := sha256.Sum256(b); return s[:] }},
		{"SHA-384", "abc", nil},
		{"SHA-512", "abc", nil},
		{"SHA-1", "abc", nil},
	} {
		known := map[string]string{
			"SHA-384": "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7",
			"SHA-512": "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
			"SHA-1":   "a9993e364706816aba3e25717850c26c9cd0d89d",
		}
		digest, _ := hex.DecodeString(known[tc.hash])
		if tc.sum != nil {
			digest = tc.sum([]byte(tc.data))
		}
		st := &tsa.Stamp{Hash: tc.hash, Digest: digest}
		if err := st.Covers([]byte(tc.data)); err != nil {
			t.Errorf("%s: %v", tc.hash, err)
		}
		err := st.Covers([]byte(tc.data + "!"))
		if !errors.Is(err, tsa.ErrMismatch) || !strings.Contains(err.Error(), tc.hash) || !strings.Contains(err.Error(), hex.EncodeToString(digest)) {
			t.Errorf("%s, other data: %v", tc.hash, err)
		}
	}
	if err := (&tsa.Stamp{Hash: "1.2.3.4", Digest: []byte{1}}).Covers(nil); !errors.Is(err, tsa.ErrMismatch) || !strings.Contains(err.Error(), "1.2.3.4") {
		t.Errorf("unknown hash: %v", err)
	}
}

// doer answers a Client's requests in process.
type doer func(*httpmsg.Request) (*httpmsg.Response, error)

func (d doer) Do(r *httpmsg.Request) (*httpmsg.Response, error) { return d(r) }

func answer(status int, contentType string, body []byte) doer {
	return func(r *httpmsg.Request) (*httpmsg.Response, error) {
		h := httpmsg.Header{}
		if contentType != "" {
			h.Set("Content-Type", contentType)
		}
		return &httpmsg.Response{StatusCode: status, Status: httpmsg.StatusText(status), Header: h, Body: io.NopCloser(bytes.NewReader(body)), Request: r}, nil
	}
}

// The Client, with the authority in process: what it sends, and each way an
// answer is refused, said with the authority's URL.
func TestClient(t *testing.T) {
	const url = "https://tsa.example/tsr"
	resp, data := vector(t)
	var sent *httpmsg.Request
	var sentBody []byte
	record := func(d doer) doer {
		return func(r *httpmsg.Request) (*httpmsg.Response, error) {
			sent = r
			sentBody, _ = io.ReadAll(r.Body)
			return d(r)
		}
	}
	for _, tc := range []struct {
		name string
		http httpmsg.Doer
		is   error
		says []string
	}{
		{"a replayed answer (another nonce)", answer(200, "application/timestamp-reply", resp), tsa.ErrMismatch, []string{"nonce"}},
		{"500", answer(500, "text/plain", []byte("down")), nil, []string{"answered 500"}},
		{"HTML", answer(200, "text/html; charset=utf-8", []byte("<p>login</p>")), nil, []string{"text/html", "not a timestamp"}},
		{"garbage", answer(200, "application/timestamp-reply", []byte("garbage")), tsa.ErrFormat, nil},
		{"too long", answer(200, "application/timestamp-reply", make([]byte, 1<<20+1)), nil, []string{"more than 1048576 bytes"}},
		{"a rejection", answer(200, "application/timestamp-response", response(t, statusInfo{Status: 2, FailInfo: failInfo(2)}, nil)), tsa.ErrRejected, []string{"badRequest"}},
		{"unreachable", doer(func(*httpmsg.Request) (*httpmsg.Response, error) { return nil, errors.New("connection refused") }), nil, []string{"connection refused"}},
		{"no HTTP client", nil, nil, []string{"no HTTP client"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &tsa.Client{URL: url}
			if tc.http != nil {
				c.HTTP = record(tc.http.(doer))
			}
			st, err := c.Stamp(context.Background(), data)
			if err == nil || (tc.is != nil && !errors.Is(err, tc.is)) {
				t.Fatalf("%v (%v), want %v", err, st, tc.is)
			}
			for _, w := range append(tc.says, url) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not say %q", err, w)
				}
			}
		})
	}
	if sent == nil || sent.Method != "POST" || sent.URL.String() != url || sent.Header.Get("Content-Type") != "application/timestamp-query" ||
		sent.Header.Get("Accept") != "application/timestamp-reply" {
		t.Fatalf("sent %+v", sent)
	}
	r := readRequest(t, sentBody)
	if sum := sha256.Sum256(data); !bytes.Equal(r.MessageImprint.HashedMessage, sum[:]) || r.Nonce == nil || !r.CertReq {
		t.Errorf("sent %+v", r)
	}
}
