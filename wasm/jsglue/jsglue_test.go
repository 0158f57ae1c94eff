//go:build js && wasm

package jsglue

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"syscall/js"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/httpmsg"
	"github.com/webkeep/webkeep/wasm/jspromise"
)

// chunkedRequest returns a fetch Request whose body is a ReadableStream of n chunks
// of size bytes (chunk i filled with byte i), and a function that says how many
// chunks the stream has been asked for so far.
func chunkedRequest(n, size int) (js.Value, func() int) {
	f := js.Global().Get("Function").New("n", "size", `
		let pulls = 0;
		const body = new ReadableStream({
			pull(c) {
				if (pulls === n) { c.close(); return; }
				c.enqueue(new Uint8Array(size).fill(pulls & 255));
				pulls++;
			},
		}, { highWaterMark: 0 });
		const request = new Request("http://core.test/api/upload?x=1", {
			method: "POST", body, duplex: "half", headers: { "Content-Type": "application/zip" },
		});
		return { request, pulls: () => pulls };
	`)
	v := f.Invoke(n, size)
	return v.Get("request"), func() int { return v.Call("pulls").Int() }
}

func TestServeStreamsTheRequestBodyIntoTheHandler(t *testing.T) {
	const chunks, size = 64, 64 << 10
	request, pulls := chunkedRequest(chunks, size)
	var pulledAtStart int
	h := httpmsg.HandlerFunc(func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		if r.Method != "POST" || r.URL.Path != "/api/upload" || r.URL.Query().Get("x") != "1" || r.Header.Get("Content-Type") != "application/zip" || r.ContentLength != -1 {
			httpmsg.Error(w, fmt.Sprintf("request: %s %s %q %d", r.Method, r.URL, r.Header, r.ContentLength), httpmsg.StatusBadRequest)
			return
		}
		first := make([]byte, 10)
		if _, err := io.ReadFull(r.Body, first); err != nil {
			httpmsg.Error(w, err.Error(), httpmsg.StatusBadRequest)
			return
		}
		pulledAtStart = pulls()
		sum := sha256.New()
		sum.Write(first)
		n, err := io.Copy(sum, r.Body)
		if err != nil {
			httpmsg.Error(w, err.Error(), httpmsg.StatusBadRequest)
			return
		}
		fmt.Fprintf(w, "%d %x", n+10, sum.Sum(nil))
	})
	res, err := jspromise.Await(Serve(h, request))
	if err != nil {
		t.Fatal(err)
	}
	text, err := jspromise.Await(res.Call("text"))
	if err != nil {
		t.Fatal(err)
	}
	want := sha256.New()
	for i := 0; i < chunks; i++ {
		b := make([]byte, size)
		for j := range b {
			b[j] = byte(i)
		}
		want.Write(b)
	}
	if got, w := text.String(), fmt.Sprintf("%d %s", chunks*size, hex.EncodeToString(want.Sum(nil))); got != w || res.Get("status").Int() != 200 {
		t.Fatalf("answer %d %q, want %q", res.Get("status").Int(), got, w)
	}
	// The handler read its first bytes while most of the body was still to come.
	if pulledAtStart > 4 {
		t.Errorf("the stream had given %d of %d chunks when the handler read its first bytes: the body was read ahead", pulledAtStart, chunks)
	}
}

func TestServeGivesARequestWithoutBodyNoBody(t *testing.T) {
	request := js.Global().Get("Request").New("http://core.test/api/status")
	h := httpmsg.HandlerFunc(func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		b, err := io.ReadAll(r.Body)
		fmt.Fprintf(w, "%s %d %d %v", r.Method, r.ContentLength, len(b), err)
	})
	res, err := jspromise.Await(Serve(h, request))
	if err != nil {
		t.Fatal(err)
	}
	text, _ := jspromise.Await(res.Call("text"))
	if got := text.String(); got != "GET 0 0 <nil>" {
		t.Errorf("answer %q", got)
	}
}

func TestStreamReaderSaysAStreamErroredWithUndefined(t *testing.T) {
	stream := js.Global().Get("Function").New(`
		return new ReadableStream({
			start(c) { c.enqueue(new Uint8Array([1, 2, 3])); },
			pull(c) { c.error(undefined); },
		});
	`).Invoke()
	r := NewStreamReader(stream)
	defer r.Close()
	b, err := io.ReadAll(r)
	if len(b) != 3 {
		t.Errorf("read %v before the error, want the first chunk's 3 bytes", b)
	}
	if err == nil || err.Error() != "reading a stream: promise rejected with undefined" {
		t.Fatalf("error %v, want the stream's rejection said", err)
	}
}

// awaitWithin awaits a promise for at most d, and says whether it settled.
func awaitWithin(p js.Value, d time.Duration) (js.Value, error, bool) {
	type result struct {
		v   js.Value
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := jspromise.Await(p)
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err, true
	case <-time.After(d):
		return js.Undefined(), nil, false
	}
}

func TestServeAnswersWholeOrStreamed(t *testing.T) {
	for _, tc := range []struct {
		name string
		// write writes the answer; release is closed once the test has the Response
		// (or has given up on it), for a handler that waits for it.
		write    func(w httpmsg.ResponseWriter, release <-chan struct{})
		early    bool // the Response comes before the handler ends
		status   int
		body     string
		bodySize int
	}{
		{name: "a small answer, whole once the handler ends", status: 201, body: `{"ok":true}`,
			write: func(w httpmsg.ResponseWriter, _ <-chan struct{}) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(201)
				io.WriteString(w, `{"ok":true}`)
			}},
		{name: "a handler that fails before a chunk is sent answers 500 and says why", status: 500, body: "broken: half an answer",
			write: func(w httpmsg.ResponseWriter, _ <-chan struct{}) {
				io.WriteString(w, `{"records":[`)
				panic("broken: half an answer")
			}},
		{name: "no body for a 204", status: 204,
			write: func(w httpmsg.ResponseWriter, _ <-chan struct{}) {
				w.WriteHeader(204)
				if _, err := io.WriteString(w, "refused"); err != httpmsg.ErrBodyNotAllowed {
					panic(fmt.Sprintf("a body written to a 204: %v, want ErrBodyNotAllowed", err))
				}
			}},
		{name: "a chunk written streams before the handler ends", early: true, status: 200, bodySize: streamChunk + 5,
			write: func(w httpmsg.ResponseWriter, release <-chan struct{}) {
				w.Write(make([]byte, streamChunk+1))
				<-release
				w.Write(make([]byte, 4))
			}},
		{name: "a flush streams a small answer before the handler ends", early: true, status: 200, body: "head tail",
			write: func(w httpmsg.ResponseWriter, release <-chan struct{}) {
				io.WriteString(w, "head ")
				w.(interface{ Flush() }).Flush()
				<-release
				io.WriteString(w, "tail")
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			release := make(chan struct{})
			ended := make(chan struct{})
			h := httpmsg.HandlerFunc(func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
				defer close(ended)
				tc.write(w, release)
			})
			res, err, settled := awaitWithin(Serve(h, js.Global().Get("Request").New("http://core.test/api/x")), 5*time.Second)
			handlerEnded := false
			select {
			case <-ended:
				handlerEnded = true
			default:
			}
			close(release)
			if !settled {
				t.Fatal("no Response within 5 s")
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.early == handlerEnded {
				t.Errorf("the Response came with the handler ended: %v, want %v", handlerEnded, !tc.early)
			}
			if got := res.Get("status").Int(); got != tc.status {
				t.Errorf("status %d, want %d", got, tc.status)
			}
			buf, err := jspromise.Await(res.Call("arrayBuffer"))
			if err != nil {
				t.Fatal(err)
			}
			body := Bytes(buf)
			if tc.bodySize > 0 && len(body) != tc.bodySize || tc.bodySize == 0 && string(body) != tc.body {
				t.Errorf("body of %d bytes %.40q, want %d bytes %q", len(body), body, tc.bodySize, tc.body)
			}
		})
	}
}
