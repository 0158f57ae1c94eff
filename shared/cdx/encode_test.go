package cdx

import (
	"strconv"
	"strings"
	"testing"

	"github.com/webkeep/webkeep/shared/httpmsg"
)

func req(method, url, ctype string, body string) *Request {
	h := httpmsg.Header{}
	if ctype != "" {
		h.Set("Content-Type", ctype)
	}
	if body != "" {
		h.Set("Content-Length", strconv.Itoa(len(body)))
	}
	return &Request{Method: method, URL: url, Header: h, Body: []byte(body)}
}

// Vectors from the draft "CDX for non-GET requests" (specs/cdx-non-get-requests.txt),
// corrected by specs/RULINGS.md where pywb 2.6.7 differs.
func TestEncodeRequestSpecExamples(t *testing.T) {
	tests := []struct {
		name string
		r    *Request
		want string
	}{
		{"method, no query", req("POST", "http://example.org/", "", ""), "http://example.org/?__wb_method=POST"},
		{"method, query", req("POST", "http://example.org/?page=1", "", ""), "http://example.org/?page=1&__wb_method=POST"},
		{"method, trailing &", req("POST", "http://example.org/?foo&", "", ""), "http://example.org/?foo&&__wb_method=POST"},
		{"binary", req("POST", "http://example.org/chat", "", "hello"), "http://example.org/chat?__wb_method=POST&__wb_post_data=aGVsbG8="},
		// The draft's JSON example; pywb names members by their own name
		// (no dotted path), so the nested "type" and "id" collide and are
		// numbered (RULINGS.md).
		{"json", req("POST", "http://example.org/events", "application/json", `{
   "type": "event",
   "id": 44.0,
   "values": [true, false, null],
   "source": {
      "type": "component",
      "id": "a+b&c= d",
      "values": [3, 4]
   }
}`), "http://example.org/events?__wb_method=POST&type=event&id=44.0&values=True&values.2_=False&values.3_=None&type.2_=component&id.2_=a%2Bb%26c%3D+d&values.4_=3&values.5_=4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := EncodeRequest(tt.r)
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// Vectors from pywb 2.6.7's own tests (pywb/warcserver/test/test_inputreq.py,
// TestPostQueryExtract).
func TestEncodeRequestPywbTests(t *testing.T) {
	post := "foo=bar&dir=%2Fbaz"
	binary := "\x816l`L\xa04P\x0e\xe0r\x02\xb5\x89\x19\x00fP\xdb\x0e\xb0\x02,"
	withLen := func(r *Request, n string) *Request { r.Header.Set("Content-Length", n); return r }
	tests := []struct {
		r    *Request
		want string
	}{
		{req("POST", "http://example.com/", "application/x-www-form-urlencoded", post), "http://example.com/?__wb_method=POST&foo=bar&dir=/baz"},
		{req("POST", "http://example.com/?123=ABC", "application/x-www-form-urlencoded", post), "http://example.com/?123=ABC&__wb_method=POST&foo=bar&dir=/baz"},
		{req("POST", "http://example.com/", "application/json", `{"a": "b", "c": {"a": 2}, "d": "e"}`), "http://example.com/?__wb_method=POST&a=b&a.2_=2&d=e"},
		{req("PUT", "http://example.com/", "application/x-www-form-urlencoded", post), "http://example.com/?__wb_method=PUT&foo=bar&dir=/baz"},
		{req("POST", "http://example.com/", "application/octet-stream", post), "http://example.com/?__wb_method=POST&__wb_post_data=Zm9vPWJhciZkaXI9JTJGYmF6"},
		{req("POST", "http://example.com/pathbar?id=123", "text/plain", post), "http://example.com/pathbar?id=123&__wb_method=POST&__wb_post_data=Zm9vPWJhciZkaXI9JTJGYmF6"},
		{withLen(req("POST", "http://example.com/", "application/x-www-form-urlencoded", post), "0"), "http://example.com/?__wb_method=POST"},
		{withLen(req("POST", "http://example.com/", "application/x-www-form-urlencoded", post), "abc"), "http://example.com/?__wb_method=POST"},
		{withLen(req("POST", "http://example.com/", "application/x-www-form-urlencoded", post), strconv.Itoa(len(post)-4)), "http://example.com/?__wb_method=POST&foo=bar&dir=%2"},
		{withLen(req("POST", "http://example.com/", "application/x-www-form-urlencoded", post), strconv.Itoa(len(post)+4)), "http://example.com/?__wb_method=POST&foo=bar&dir=/baz"},
		{req("POST", "http://example.com/", "application/x-www-form-urlencoded", binary), "http://example.com/?__wb_method=POST&__wb_post_data=gTZsYEygNFAO4HICtYkZAGZQ2w6wAiw="},
		{req("POST", "http://example.com/", "multipart/form-data", post), "http://example.com/?__wb_method=POST&__wb_post_data=Zm9vPWJhciZkaXI9JTJGYmF6"},
		{req("OPTIONS", "http://example.com/", "", ""), "http://example.com/?__wb_method=OPTIONS"},
		{req("HEAD", "http://example.com/", "", ""), "http://example.com/?__wb_method=HEAD"},
		{req("GET", "http://example.com/", "application/json", `{"a":1}`), "http://example.com/"},
	}
	for i, tt := range tests {
		got, _ := EncodeRequest(tt.r)
		if got != tt.want {
			t.Errorf("%d: got  %s\nwant %s", i, got, tt.want)
		}
	}
}

func TestQueryCap(t *testing.T) {
	body := strings.Repeat("é", 5000)
	_, q := EncodeRequest(req("POST", "http://x/", "application/x-www-form-urlencoded", body))
	if n := len([]rune(q)); n != MaxQueryLength {
		t.Errorf("cap counts %d characters, want %d", n, MaxQueryLength)
	}
}
