package cdx

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"testing"
)

// requestVector is one line of testdata/pywb-requests.jsonl. The expected
// values were computed by running pywb 2.6.7's MethodQueryCanonicalizer
// (pywb/warcserver/inputrequest.py at tag v-2.6.7; want_url, want_body) and
// pywb 2.8.4's (want_url_28, want_body_28) under CPython 3.11.7, with
// Py3AMF 0.8.10 for AMF bodies; see testdata/README.md.
type requestVector struct {
	Name       string      `json:"name"`
	Method     string      `json:"method"`
	URL        string      `json:"url"`
	Headers    [][2]string `json:"headers"`
	Body       string      `json:"body_base64"`
	WantURL    string      `json:"want_url"`
	WantBody   string      `json:"want_body"`
	WantURL28  *string     `json:"want_url_28"`
	WantBody28 *string     `json:"want_body_28"`
}

func (v *requestVector) request(t testing.TB) *Request {
	body, err := base64.StdEncoding.DecodeString(v.Body)
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{}
	for _, kv := range v.Headers {
		h[kv[0]] = append(h[kv[0]], kv[1])
	}
	return &Request{Method: v.Method, URL: v.URL, Header: h, Body: body}
}

func readJSONL[T any](t testing.TB, name string) []T {
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for line := 1; sc.Scan(); line++ {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s:%d: %v", name, line, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestEncodeRequestPywbVectors(t *testing.T) {
	for _, v := range readJSONL[requestVector](t, "testdata/pywb-requests.jsonl") {
		r := v.request(t)
		url, body := EncodeRequest(r)
		if url != v.WantURL || body != v.WantBody {
			t.Errorf("%s (pywb 2.6.7):\n got  %q %q\n want %q %q", v.Name, url, body, v.WantURL, v.WantBody)
		}
		if v.WantURL28 == nil {
			// pywb 2.8.4 raised (int(inf)); our Pywb28 adds nothing.
			continue
		}
		url, body = Pywb28.EncodeRequest(r)
		if url != *v.WantURL28 || body != *v.WantBody28 {
			t.Errorf("%s (pywb 2.8.4):\n got  %q %q\n want %q %q", v.Name, url, body, *v.WantURL28, *v.WantBody28)
		}
	}
}

// surtVector is one line of testdata/surt.jsonl, computed by running
// surt.surt(url) of the surt 0.3.1 package under CPython 3.11.7; error names
// the Python exception when surt raised.
type surtVector struct {
	URL   string `json:"url"`
	Want  string `json:"want"`
	Error string `json:"error"`
}

func TestSURTVectors(t *testing.T) {
	for _, v := range readJSONL[surtVector](t, "testdata/surt.jsonl") {
		got, err := SURT(v.URL)
		if v.Error != "" {
			if err == nil && got != v.URL {
				t.Errorf("SURT(%q) = %q, want an error (%s)", v.URL, got, v.Error)
			}
			continue
		}
		if err != nil || got != v.Want {
			t.Errorf("SURT(%q) = %q, %v; want %q", v.URL, got, err, v.Want)
		}
	}
}
