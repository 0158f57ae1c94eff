package recorder_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/webkeep/webkeep/shared/recorder/recordertest"
)

func TestRecorderPOSTWithBodyReadWhenFinished(t *testing.T) {
	binary := "\x00\x01\xff\xfe"
	b := &recordertest.Browser{Answer: func(method string, p map[string]any) (any, error) {
		if method == "Network.getResponseBody" {
			return map[string]any{"body": b64("{\"ok\":true}"), "base64Encoded": true}, nil
		}
		return map[string]any{}, nil
	}}
	got := record(t, b, []recordertest.Event{
		// ExtraInfo may come before its request: it must still be used.
		{Method: "Network.requestWillBeSentExtraInfo", Params: `{"requestId":"1","headers":{"Content-Type":"application/octet-stream","Content-Length":"4","Cookie":"a=b"}}`},
		{Method: "Network.requestWillBeSent", Params: `{"requestId":"1","type":"Fetch","wallTime":1700000000.5,"request":{"url":"http://example.org/api","method":"POST","headers":{"Content-Type":"application/octet-stream"},"hasPostData":true,"postDataEntries":[{"bytes":"` + b64(binary) + `"}]}}`},
		{Method: "Network.responseReceived", Params: `{"requestId":"1","response":{"url":"http://example.org/api","status":200,"statusText":"OK","protocol":"http/1.1","remoteIPAddress":"127.0.0.1","headers":{"Content-Type":"application/json","Content-Length":"11"}}}`},
		{Method: "Network.loadingFinished", Params: `{"requestId":"1"}`},
	})
	if len(got) != 1 {
		t.Fatalf("got %d exchanges, want 1", len(got))
	}
	ex := got[0]
	if string(ex.ReqBody) != binary {
		t.Errorf("request body %q, want %q", ex.ReqBody, binary)
	}
	if ex.ReqHeader.Get("Cookie") != "a=b" || ex.ReqHeader.Get("Content-Length") != "4" {
		t.Errorf("request headers are not the wire headers: %v", ex.ReqHeader)
	}
	if string(ex.RespBody) != `{"ok":true}` || ex.Status != 200 || ex.RemoteIP != "127.0.0.1" {
		t.Errorf("response: status %d ip %q body %q", ex.Status, ex.RemoteIP, ex.RespBody)
	}
	if ex.Started.Unix() != 1700000000 {
		t.Errorf("started %v, want the event's wall time", ex.Started)
	}
	if c := b.Sent("Network.streamResourceContent"); len(c) != 0 {
		t.Errorf("a small body of a worker's fetch was streamed: %v", c)
	}
}

func TestRecorderMarksHiddenFileBytes(t *testing.T) {
	body := "--X\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.bin\"\r\n\r\n\r\n--X--\r\n"
	b := &recordertest.Browser{Answer: func(method string, p map[string]any) (any, error) {
		if method == "Network.getRequestPostData" {
			return map[string]any{"postData": body}, nil
		}
		return map[string]any{}, nil
	}}
	got := record(t, b, []recordertest.Event{
		{Method: "Network.requestWillBeSent", Params: `{"requestId":"6","request":{"url":"http://example.org/up","method":"POST","headers":{"Content-Type":"multipart/form-data; boundary=X"},"hasPostData":true}}`},
		{Method: "Network.requestWillBeSentExtraInfo", Params: `{"requestId":"6","headers":{"Content-Type":"multipart/form-data; boundary=X","Content-Length":"200"}}`},
		{Method: "Network.responseReceived", Params: `{"requestId":"6","response":{"status":200,"headers":{}}}`},
		{Method: "Network.loadingFinished", Params: `{"requestId":"6"}`},
	})
	if len(got) != 1 {
		t.Fatalf("got %d exchanges", len(got))
	}
	if !got[0].ReqTruncated || !strings.Contains(got[0].ReqNote, "79 of its 200 bytes") || !strings.Contains(got[0].ReqNote, "file chosen by the user") {
		t.Errorf("hidden file bytes not marked: truncated=%v note=%q", got[0].ReqTruncated, got[0].ReqNote)
	}
}

func TestRecorderMarksBodiesTheBrowserKeeps(t *testing.T) {
	tests := []struct {
		name, answer, note string
	}{
		// A File or Blob sent with XHR or fetch(): the event says there is a body, the
		// browser gives none of it.
		{"blob", "No post data available for the request", "request body hidden by the browser (a file or blob the page sent): the archived request body lacks its bytes"},
		{"other error", "Target closed", "request body not available from the browser: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := &recordertest.Browser{Answer: func(method string, p map[string]any) (any, error) {
				if method == "Network.getRequestPostData" {
					return nil, errors.New(tc.answer)
				}
				return map[string]any{}, nil
			}}
			got := record(t, b, []recordertest.Event{
				{Method: "Network.requestWillBeSent", Params: `{"requestId":"7","request":{"url":"http://example.org/ajax?qqfile=a.png","method":"POST","headers":{"Content-Type":"application/octet-stream"},"hasPostData":true}}`},
				{Method: "Network.responseReceived", Params: `{"requestId":"7","response":{"status":200,"headers":{}}}`},
				{Method: "Network.loadingFinished", Params: `{"requestId":"7"}`},
			})
			if len(got) != 1 {
				t.Fatalf("got %d exchanges", len(got))
			}
			if !got[0].ReqTruncated || !strings.HasPrefix(got[0].ReqNote, tc.note) || len(got[0].ReqBody) != 0 {
				t.Errorf("truncated=%v note=%q body=%q, want truncated, a note beginning %q", got[0].ReqTruncated, got[0].ReqNote, got[0].ReqBody, tc.note)
			}
		})
	}
}
