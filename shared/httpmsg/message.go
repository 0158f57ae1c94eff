package httpmsg

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/textproto"
	"strconv"
	"strings"
)

// ReadResponse reads an HTTP/1.x response from br, as net/http's ReadResponse does
// for a GET: its status line and header, and a Body that is its payload as the
// header frames it (de-chunked under Transfer-Encoding: chunked from HTTP/1.1 on, cut at
// Content-Length, else the rest of br; none for 1xx, 204 and 304). A body that ends
// before its framing says is read as io.ErrUnexpectedEOF.
func ReadResponse(br *bufio.Reader) (*Response, error) {
	tp := textproto.NewReader(br)
	line, err := tp.ReadLine()
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	proto, status, _ := strings.Cut(line, " ")
	code, _, _ := strings.Cut(status, " ")
	n, err := strconv.Atoi(code)
	if len(code) != 3 || err != nil || n < 0 {
		return nil, fmt.Errorf("malformed HTTP status line %q", line)
	}
	resp := &Response{Status: strings.TrimLeft(status, " "), StatusCode: n, Proto: proto, ContentLength: -1}
	var ok bool
	if resp.ProtoMajor, resp.ProtoMinor, ok = parseVersion(proto); !ok {
		return nil, fmt.Errorf("malformed HTTP version %q", proto)
	}
	h, err := tp.ReadMIMEHeader()
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	resp.Header = Header(h)
	switch {
	case !StatusHasBody(n):
		resp.Body, resp.ContentLength = NoBody, 0
	case contains(resp.Header.Get("Transfer-Encoding"), "chunked") && (resp.ProtoMajor > 1 || resp.ProtoMajor == 1 && resp.ProtoMinor >= 1):
		resp.Header.Del("Content-Length")
		resp.Body = io.NopCloser(&chunkedReader{r: br, trailer: true})
	case resp.Header.Get("Content-Length") != "":
		cl := strings.TrimSpace(resp.Header.Get("Content-Length"))
		size, err := strconv.ParseInt(cl, 10, 64)
		if err != nil || size < 0 {
			return nil, fmt.Errorf("bad Content-Length %q", cl)
		}
		resp.ContentLength = size
		resp.Body = io.NopCloser(&exactReader{r: br, left: size})
	default:
		resp.Body = io.NopCloser(br)
	}
	return resp, nil
}

// parseVersion parses "HTTP/major.minor".
func parseVersion(proto string) (major, minor int, ok bool) {
	v, ok := strings.CutPrefix(proto, "HTTP/")
	if !ok {
		return 0, 0, false
	}
	maj, min, ok := strings.Cut(v, ".")
	a, err1 := strconv.ParseUint(maj, 10, 20)
	b, err2 := strconv.ParseUint(min, 10, 20)
	if !ok || err1 != nil || err2 != nil || a > 1e6 || b > 1e6 {
		return 0, 0, false
	}
	return int(a), int(b), true
}

// exactReader reads left bytes of r: fewer is io.ErrUnexpectedEOF.
type exactReader struct {
	r    io.Reader
	left int64
}

func (e *exactReader) Read(p []byte) (int, error) {
	if e.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > e.left {
		p = p[:e.left]
	}
	n, err := e.r.Read(p)
	e.left -= int64(n)
	if err == io.EOF && e.left > 0 {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// ErrLineTooLong is the error of a chunked body whose chunk-size line is too long.
var ErrLineTooLong = errors.New("httpmsg: chunk line too long")

// maxChunkLine is the longest chunk-size line read, extensions included.
const maxChunkLine = 4096

// NewChunkedReader returns a reader of the data of an HTTP/1.1 chunked body read
// from r (RFC 9112, 7.1), as net/http/httputil's does: it ends at the last chunk
// (leaving its trailer unread), and a body that ends before it is
// io.ErrUnexpectedEOF.
func NewChunkedReader(r io.Reader) io.Reader {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReader(r)
	}
	return &chunkedReader{r: br}
}

type chunkedReader struct {
	r       *bufio.Reader
	trailer bool   // read the trailer after the last chunk, as a message's body ends
	left    uint64 // bytes left in the current chunk
	data    bool   // a chunk has been begun and its CRLF not read
	err     error
}

func (c *chunkedReader) Read(p []byte) (int, error) {
	for c.err == nil && c.left == 0 {
		if c.data {
			c.err = c.crlf()
			c.data = false
			continue
		}
		c.err = c.beginChunk()
	}
	if c.err != nil {
		return 0, c.err
	}
	if uint64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= uint64(n)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		c.err = err
	}
	return n, err
}

// beginChunk reads a chunk-size line.
func (c *chunkedReader) beginChunk() error {
	line, err := c.line()
	if err != nil {
		return err
	}
	if bytes.IndexByte(line, '\r') >= 0 {
		return errors.New("httpmsg: invalid CR in chunked line")
	}
	size, _, _ := bytes.Cut(bytes.TrimRight(line, " \t"), []byte(";"))
	n, err := strconv.ParseUint(string(bytes.TrimRight(size, " \t")), 16, 64)
	if err != nil {
		return fmt.Errorf("httpmsg: invalid chunk size %q", size)
	}
	if n == 0 && c.trailer {
		if _, err := textproto.NewReader(c.r).ReadMIMEHeader(); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return fmt.Errorf("httpmsg: reading the trailer: %w", err)
		}
	}
	if n == 0 {
		return io.EOF
	}
	c.left, c.data = n, true
	return nil
}

// line reads a line ended by CRLF, without it.
func (c *chunkedReader) line() ([]byte, error) {
	l, err := c.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull || len(l) > maxChunkLine {
		return nil, ErrLineTooLong
	}
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	if !bytes.HasSuffix(l, []byte("\r\n")) {
		return nil, errors.New("httpmsg: chunked line ends with bare LF")
	}
	return l[:len(l)-2], nil
}

// crlf reads the CRLF after a chunk's data.
func (c *chunkedReader) crlf() error {
	var b [2]byte
	if _, err := io.ReadFull(c.r, b[:]); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	if b != [2]byte{'\r', '\n'} {
		return errors.New("httpmsg: malformed chunked encoding")
	}
	return nil
}
