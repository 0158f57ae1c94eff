//go:build js && wasm

package jsglue

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"syscall/js"
	"testing"

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
