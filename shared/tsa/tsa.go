// Package tsa is the time-stamp protocol of RFC 3161: asking a timestamp
// authority (TSA) to stamp data, reading its answer, and verifying it.
//
// A TSA stamps a hash: it answers a TimeStampResp holding a token, a CMS
// SignedData over a TSTInfo that says the hash (the message imprint), the time
// (genTime), a serial number and the nonce asked for. wacz-auth 0.1.0 keeps that
// whole answer, base64, as a signature's timeSignature.
//
// Asking and reading use encoding/asn1 alone (not even crypto/x509/pkix), so that
// the extension's core, which links neither crypto/x509 nor net/http, can stamp its
// signatures and read stamps; HTTP goes through an httpmsg.Doer. Verifying the
// authority's signature and certificates (Verify) is in native builds only
// (verify.go), with github.com/digitorus/timestamp and crypto/x509; in WebAssembly
// builds Verify answers ErrNotChecked.
package tsa

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/asn1"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"hash"
	"io"
	"math/big"
	"strings"
	"time"

	"github.com/webkeep/webkeep/shared/httpmsg"
)

// Errors, usable with errors.Is.
var (
	// ErrFormat reports an answer that is not a TimeStampResp, or a token that is
	// not a CMS SignedData over a TSTInfo.
	ErrFormat = errors.New("tsa: not an RFC 3161 time-stamp response")
	// ErrRejected reports an answer whose status is not granted.
	ErrRejected = errors.New("tsa: the authority did not grant the timestamp")
	// ErrMismatch reports a stamp of other data, or with another nonce.
	ErrMismatch = errors.New("tsa: the timestamp is not of this data")
	// ErrNotChecked is what Verify answers in WebAssembly builds: the authority's
	// CMS signature and certificates need crypto/x509, which the extension's core
	// leaves out; the command line (`webkeep wacz verify`) checks them.
	ErrNotChecked = errors.New("tsa: the authority's signature is checked by the command line, not in WebAssembly builds")
)

// Stamp is a time-stamp token as a TSA answered it.
type Stamp struct {
	Response []byte    // the DER TimeStampResp as received
	Token    []byte    // the DER time-stamp token (a CMS ContentInfo) in it
	Time     time.Time // TSTInfo's genTime, UTC
	Hash     string    // the imprint's hash: "SHA-256", "SHA-384", "SHA-512" or "SHA-1"
	Digest   []byte    // the imprint's digest
	Nonce    []byte    // the nonce, big-endian; nil when none
	Serial   string    // the serial number, decimal
	Policy   string    // the policy, a dotted OID
	// TSA is the authority's name when TSTInfo gives it (a directory name in
	// X.509's form, "CN=...,O=...", or a DNS name), else "".
	TSA string
	// Certificates are the DER certificates the token carries, in its order.
	Certificates [][]byte

	info []byte // the DER TSTInfo, as the token holds it
}

// ASN.1 of RFC 3161 and RFC 5652, as far as this package reads it.
type algorithmIdentifier struct {
	Algorithm  asn1.ObjectIdentifier
	Parameters asn1.RawValue `asn1:"optional"`
}

type messageImprint struct {
	HashAlgorithm algorithmIdentifier
	HashedMessage []byte
}

type timeStampReq struct {
	Version        int
	MessageImprint messageImprint
	ReqPolicy      asn1.ObjectIdentifier `asn1:"optional"`
	Nonce          *big.Int              `asn1:"optional"`
	CertReq        bool                  `asn1:"optional,default:false"`
}

type pkiStatusInfo struct {
	Status       int
	StatusString []asn1.RawValue `asn1:"optional"`
	FailInfo     asn1.BitString  `asn1:"optional"`
}

type timeStampResp struct {
	Status pkiStatusInfo
	Token  asn1.RawValue `asn1:"optional"`
}

type contentInfo struct {
	ContentType asn1.ObjectIdentifier
	Content     asn1.RawValue `asn1:"explicit,tag:0"`
}

type encapContentInfo struct {
	EContentType asn1.ObjectIdentifier
	EContent     []byte `asn1:"explicit,optional,tag:0"`
}

type signedData struct {
	Version          int
	DigestAlgorithms asn1.RawValue
	EncapContentInfo encapContentInfo
	Certificates     asn1.RawValue `asn1:"optional,tag:0"`
	CRLs             asn1.RawValue `asn1:"optional,tag:1"`
	SignerInfos      asn1.RawValue
}

type accuracy struct {
	Seconds int `asn1:"optional"`
	Millis  int `asn1:"optional,tag:0"`
	Micros  int `asn1:"optional,tag:1"`
}

type tstInfo struct {
	Version        int
	Policy         asn1.ObjectIdentifier
	MessageImprint messageImprint
	SerialNumber   *big.Int
	GenTime        time.Time     `asn1:"generalized"`
	Accuracy       accuracy      `asn1:"optional"`
	Ordering       bool          `asn1:"optional,default:false"`
	Nonce          *big.Int      `asn1:"optional"`
	TSA            asn1.RawValue `asn1:"optional,explicit,tag:0"`
	Extensions     asn1.RawValue `asn1:"optional,tag:1"`
}

var (
	oidSignedData = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 7, 2}
	oidTSTInfo    = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 16, 1, 4}
)

// hashes are the imprint hashes read, by OID.
var hashes = []struct {
	name string
	oid  asn1.ObjectIdentifier
	new  func() hash.Hash
}{
	{"SHA-256", asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 1}, sha256.New},
	{"SHA-384", asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 2}, sha512.New384},
	{"SHA-512", asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 3}, sha512.New},
	{"SHA-1", asn1.ObjectIdentifier{1, 3, 14, 3, 2, 26}, sha1.New},
}

// NewRequest returns a TimeStampReq (version 1) for the SHA-256 of data, with a
// random 64-bit nonce, asking for the authority's certificate (certReq TRUE), and
// the nonce.
func NewRequest(data []byte) (der, nonce []byte, err error) {
	sum := sha256.Sum256(data)
	nonce = make([]byte, 8)
	if _, err := rand.Read(nonce); err != nil {
		return nil, nil, fmt.Errorf("tsa: the nonce: %w", err)
	}
	nonce[0] &= 0x7f // positive, and its DER as long as its bytes
	if nonce[0] == 0 {
		nonce[0] = 1
	}
	req := timeStampReq{
		Version: 1,
		MessageImprint: messageImprint{
			HashAlgorithm: algorithmIdentifier{Algorithm: hashes[0].oid, Parameters: asn1.NullRawValue},
			HashedMessage: sum[:],
		},
		Nonce:   new(big.Int).SetBytes(nonce),
		CertReq: true,
	}
	der, err = asn1.Marshal(req)
	if err != nil {
		return nil, nil, fmt.Errorf("tsa: the request: %w", err)
	}
	return der, nonce, nil
}

// statuses are PKIStatus's values, and failures PKIFailureInfo's bits.
var (
	statuses = []string{"granted", "grantedWithMods", "rejection", "waiting", "revocationWarning", "revocationNotification"}
	failures = map[int]string{0: "badAlg", 2: "badRequest", 5: "badDataFormat", 14: "timeNotAvailable", 15: "unacceptedPolicy",
		16: "unacceptedExtension", 17: "addInfoNotAvailable", 25: "systemFailure"}
)

// Parse reads a TimeStampResp: its status, which must be granted or
// grantedWithMods, and its token's TSTInfo and certificates. It does not check
// the authority's signature (see Verify).
func Parse(resp []byte) (*Stamp, error) {
	var r timeStampResp
	rest, err := asn1.Unmarshal(resp, &r)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	if len(rest) > 0 {
		return nil, fmt.Errorf("%w: %d bytes after it", ErrFormat, len(rest))
	}
	if r.Status.Status != 0 && r.Status.Status != 1 {
		return nil, rejection(r.Status)
	}
	if len(r.Token.FullBytes) == 0 {
		return nil, fmt.Errorf("%w: granted, but it holds no token", ErrFormat)
	}
	st, err := parseToken(r.Token.FullBytes)
	if err != nil {
		return nil, err
	}
	st.Response = resp
	return st, nil
}

// rejection says in words why the authority refused.
func rejection(s pkiStatusInfo) error {
	status := fmt.Sprintf("status %d", s.Status)
	if s.Status >= 0 && s.Status < len(statuses) {
		status = statuses[s.Status]
	}
	var why []string
	for bit := 0; bit < s.FailInfo.BitLength; bit++ {
		if s.FailInfo.At(bit) == 1 {
			name, ok := failures[bit]
			if !ok {
				name = fmt.Sprintf("failure bit %d", bit)
			}
			why = append(why, name)
		}
	}
	for _, t := range s.StatusString {
		var text string
		if _, err := asn1.Unmarshal(t.FullBytes, &text); err == nil && text != "" {
			why = append(why, fmt.Sprintf("%q", text))
		}
	}
	if len(why) == 0 {
		return fmt.Errorf("%w: %s", ErrRejected, status)
	}
	return fmt.Errorf("%w: %s: %s", ErrRejected, status, strings.Join(why, ", "))
}

// parseToken reads a time-stamp token: a ContentInfo holding a SignedData whose
// content is a TSTInfo.
func parseToken(token []byte) (*Stamp, error) {
	var ci contentInfo
	if _, err := asn1.Unmarshal(token, &ci); err != nil {
		return nil, fmt.Errorf("%w: the token: %v", ErrFormat, err)
	}
	if !ci.ContentType.Equal(oidSignedData) {
		return nil, fmt.Errorf("%w: the token is a %s, not a CMS SignedData", ErrFormat, ci.ContentType)
	}
	var sd signedData
	if _, err := asn1.Unmarshal(ci.Content.Bytes, &sd); err != nil {
		return nil, fmt.Errorf("%w: the token's SignedData: %v", ErrFormat, err)
	}
	if !sd.EncapContentInfo.EContentType.Equal(oidTSTInfo) {
		return nil, fmt.Errorf("%w: the token signs a %s, not a TSTInfo", ErrFormat, sd.EncapContentInfo.EContentType)
	}
	var info tstInfo
	rest, err := asn1.Unmarshal(sd.EncapContentInfo.EContent, &info)
	if err != nil || len(rest) > 0 {
		return nil, fmt.Errorf("%w: the TSTInfo: %v", ErrFormat, err)
	}
	st := &Stamp{
		info:   sd.EncapContentInfo.EContent,
		Token:  token,
		Time:   info.GenTime.UTC(),
		Digest: info.MessageImprint.HashedMessage,
		Policy: info.Policy.String(),
		Hash:   info.MessageImprint.HashAlgorithm.Algorithm.String(),
		TSA:    generalName(info.TSA),
	}
	for _, h := range hashes {
		if h.oid.Equal(info.MessageImprint.HashAlgorithm.Algorithm) {
			st.Hash = h.name
		}
	}
	if info.SerialNumber != nil {
		st.Serial = info.SerialNumber.String()
	}
	if info.Nonce != nil {
		st.Nonce = info.Nonce.Bytes()
	}
	for certs := sd.Certificates.Bytes; len(certs) > 0; {
		var c asn1.RawValue
		if certs, err = asn1.Unmarshal(certs, &c); err != nil {
			return nil, fmt.Errorf("%w: the token's certificates: %v", ErrFormat, err)
		}
		if c.Class == asn1.ClassUniversal && c.Tag == asn1.TagSequence {
			st.Certificates = append(st.Certificates, c.FullBytes)
		}
	}
	return st, nil
}

// generalName reads TSTInfo's tsa, [0] EXPLICIT GeneralName (encoding/asn1 gives
// a RawValue the explicit tag's element whole): a directoryName ([4]) or a
// dNSName ([2]).
func generalName(outer asn1.RawValue) string {
	var v asn1.RawValue
	if len(outer.Bytes) == 0 {
		return ""
	}
	if _, err := asn1.Unmarshal(outer.Bytes, &v); err != nil || v.Class != asn1.ClassContextSpecific {
		return ""
	}
	switch v.Tag {
	case 2:
		return string(v.Bytes)
	case 4:
		return directoryName(v.Bytes)
	}
	return ""
}

// Covers checks that the stamp's imprint is the hash of data, by the imprint's
// hash; its error (ErrMismatch) says the hash and both digests.
func (s *Stamp) Covers(data []byte) error {
	for _, h := range hashes {
		if h.name == s.Hash {
			d := h.new()
			d.Write(data)
			if sum := d.Sum(nil); !bytes.Equal(sum, s.Digest) {
				return fmt.Errorf("%w: it stamps %s %s; the data's is %s", ErrMismatch, s.Hash, hex.EncodeToString(s.Digest), hex.EncodeToString(sum))
			}
			return nil
		}
	}
	return fmt.Errorf("%w: its imprint's hash, %s, is not one this package computes", ErrMismatch, s.Hash)
}

// CertificatesPEM returns the token's certificates in PEM, in its order: what
// wacz-auth's timestampCert holds.
func (s *Stamp) CertificatesPEM() string {
	var b strings.Builder
	for _, c := range s.Certificates {
		b.Write(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c}))
	}
	return b.String()
}

// Client asks a timestamp authority for stamps over HTTP (RFC 3161, section 3.4).
type Client struct {
	URL  string       // the authority's address, e.g. "https://freetsa.org/tsr"
	HTTP httpmsg.Doer // the browser's fetch, or net/http's client natively
}

// maxResponse bounds an authority's answer: a token with its chain is a few KB.
const maxResponse = 1 << 20

// excerpt returns the start of an answer's body, if it is text, to say in an
// error: ": ..." or "".
func excerpt(body []byte) string {
	const max = 200
	cut := len(body) > max
	if cut {
		body = body[:max]
	}
	text := strings.TrimSpace(strings.ToValidUTF8(string(body), ""))
	if text == "" || strings.ContainsFunc(text, func(r rune) bool { return r < ' ' && r != '\n' && r != '\r' && r != '\t' }) {
		return ""
	}
	if cut {
		text += "..."
	}
	return ": " + text
}

// Stamp asks the authority to stamp the SHA-256 of data: it POSTs a TimeStampReq
// (NewRequest) as application/timestamp-query, and checks that the answer is
// 200, of a timestamp's content type (application/timestamp-reply, or none, or
// octet-stream as some authorities answer), at most 1 MiB, a TimeStampResp that
// grants a token (Parse), stamps that hash (Stamp.Covers) and carries the nonce
// asked for. It does not check the authority's signature (see Verify). Its errors
// name c.URL.
func (c *Client) Stamp(ctx context.Context, data []byte) (*Stamp, error) {
	if c.HTTP == nil {
		return nil, fmt.Errorf("tsa: %s: no HTTP client to ask it with", c.URL)
	}
	der, nonce, err := NewRequest(data)
	if err != nil {
		return nil, err
	}
	req, err := httpmsg.NewRequest(ctx, httpmsg.MethodPost, c.URL, bytes.NewReader(der))
	if err != nil {
		return nil, fmt.Errorf("tsa: %s: %w", c.URL, err)
	}
	req.Header.Set("Content-Type", "application/timestamp-query")
	req.Header.Set("Accept", "application/timestamp-reply")
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, fmt.Errorf("tsa: asking %s: %w", c.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return nil, fmt.Errorf("tsa: reading the answer of %s: %w", c.URL, err)
	}
	if resp.StatusCode != 200 {
		return nil, fmt.Errorf("tsa: %s answered %d %s%s", c.URL, resp.StatusCode, httpmsg.StatusText(resp.StatusCode), excerpt(body))
	}
	if len(body) > maxResponse {
		return nil, fmt.Errorf("tsa: %s answered more than %d bytes", c.URL, maxResponse)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "" && !strings.Contains(ct, "timestamp-reply") && !strings.Contains(ct, "timestamp-response") && !strings.Contains(ct, "octet-stream") {
		return nil, fmt.Errorf("tsa: %s answered %s, not a timestamp (application/timestamp-reply)", c.URL, ct)
	}
	st, err := Parse(body)
	if err != nil {
		return nil, fmt.Errorf("%w (from %s)", err, c.URL)
	}
	if err := st.Covers(data); err != nil {
		return nil, fmt.Errorf("%w (from %s)", err, c.URL)
	}
	if !bytes.Equal(st.Nonce, new(big.Int).SetBytes(nonce).Bytes()) {
		return nil, fmt.Errorf("%w: %s answered nonce %x to a request with nonce %x", ErrMismatch, c.URL, st.Nonce, nonce)
	}
	return st, nil
}
