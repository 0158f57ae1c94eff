package recorder

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// The expected bodies are what browsers' own serializers write: Node.js 20's
// URLSearchParams (the HTML standard's urlencoded serializer, as Firefox's form
// submission) and undici's FormData (the standard's multipart/form-data encoding).
func TestRebuildFormBody(t *testing.T) {
	urlencodedFields := []FormField{
		{"name", "Ada Lovelace"}, {"note", "x=1&y=2 café"}, {"sym", "*-._~!'()/?#[]@$,;:"}, {"nl", "a\r\nb"},
		{"cjk", "中文"}, {"plus", "a+b%20"}, {"", "empty name"}, {"emoji", "😀"},
	}
	const urlencoded = "name=Ada+Lovelace&note=x%3D1%26y%3D2+caf%C3%A9&sym=*-._%7E%21%27%28%29%2F%3F%23%5B%5D%40%24%2C%3B%3A&nl=a%0D%0Ab&cjk=%E4%B8%AD%E6%96%87&plus=a%2Bb%2520&=empty+name&emoji=%F0%9F%98%80"
	const boundary = "----formdata-undici-088983945205"
	multipartFields := []FormField{{"title", "upload test"}, {"a\"b\r\nc", "v\r\nw"}}
	const multipart = "------formdata-undici-088983945205\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nupload test\r\n------formdata-undici-088983945205\r\nContent-Disposition: form-data; name=\"a%22b%0D%0Ac\"\r\n\r\nv\r\nw\r\n------formdata-undici-088983945205--\r\n"
	tests := []struct {
		name        string
		contentType string
		length      int64
		fields      []FormField
		body        string
		truncated   bool
		note        string // a part of the note
	}{
		{"urlencoded, length known", "application/x-www-form-urlencoded", int64(len(urlencoded)), urlencodedFields, urlencoded, false, "length matches"},
		{"urlencoded, length not known", "application/x-www-form-urlencoded", -1, urlencodedFields, urlencoded, false, "encodes its forms)"},
		{"urlencoded with a charset parameter", "application/x-www-form-urlencoded; charset=UTF-8", -1, urlencodedFields[:1], "name=Ada+Lovelace", false, WhyRebuilt},
		{"urlencoded, another length sent", "application/x-www-form-urlencoded", 3, urlencodedFields[:1], "name=Ada+Lovelace", true, "17 bytes where the request sent 3"},
		{"a repeated name", "application/x-www-form-urlencoded", 11, []FormField{{"a", "1"}, {"a", "3"}, {"b", "2"}}, "a=1&a=3&b=2", true, `named "a" are reported together`},
		{"numbered names", "application/x-www-form-urlencoded", 7, []FormField{{"1", "x"}, {"b", "y"}}, "1=x&b=y", true, "named by numbers"},
		{"one numbered name", "application/x-www-form-urlencoded", 3, []FormField{{"1", "x"}}, "1=x", false, WhyRebuilt},
		{"a name that is not an index", "application/x-www-form-urlencoded", 8, []FormField{{"01", "x"}, {"b", "y"}}, "01=x&b=y", false, WhyRebuilt},
		{"multipart, length matches", "multipart/form-data; boundary=" + boundary, int64(len(multipart)), multipartFields, multipart, false, "length matches"},
		{"multipart with a file part", "multipart/form-data; boundary=" + boundary, int64(len(multipart)) + 100, multipartFields, multipart, true, "file part"},
		{"multipart, length not known", "multipart/form-data; boundary=" + boundary, -1, multipartFields, multipart, true, "cannot be ruled out"},
		{"multipart without a boundary", "multipart/form-data", 10, multipartFields, "", true, "names no boundary"},
		{"another type", "text/plain", 10, multipartFields, "", true, `type "text/plain"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, note, truncated := rebuildFormBody(tt.contentType, tt.length, tt.fields)
			if string(body) != tt.body {
				t.Errorf("body\n got %q\nwant %q", body, tt.body)
			}
			if truncated != tt.truncated {
				t.Errorf("truncated %v, want %v (note %q)", truncated, tt.truncated, note)
			}
			if !strings.Contains(note, tt.note) {
				t.Errorf("note %q does not say %q", note, tt.note)
			}
		})
	}
}

// FuzzRebuildFormBody reads each rebuilt body back with the standard library's
// parsers: the fields come back as they were given.
func FuzzRebuildFormBody(f *testing.F) {
	f.Add("name", "Ada Lovelace", "title", "x=1&y=2 café\r\n")
	f.Add("", "", "a+b", "%zz")
	f.Fuzz(func(t *testing.T, name1, value1, name2, value2 string) {
		fields := []FormField{{name1, value1}, {name2, value2}}
		body, _, _ := rebuildFormBody("application/x-www-form-urlencoded", -1, fields)
		got, err := url.ParseQuery(string(body))
		if err != nil {
			t.Fatalf("%q: %v", body, err)
		}
		want := url.Values{}
		for _, f := range fields {
			want[f.Name] = append(want[f.Name], f.Value)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("urlencoded %q read back as %v, want %v", body, got, want)
		}
		const boundary = "webkeep-fuzz-boundary"
		for _, s := range []string{name1, name2} {
			// mime/multipart reads names of printable ASCII without quotes or
			// backslashes as the browsers write them (the standard escapes quotes and
			// line breaks, which it does not undo; it undoes backslashes).
			if s == "" || strings.IndexFunc(s, func(r rune) bool { return r < ' ' || r > '~' || r == '"' || r == '\\' }) >= 0 {
				return
			}
		}
		if strings.Contains(value1+value2, boundary) {
			return
		}
		body, _, _ = rebuildFormBody("multipart/form-data; boundary="+boundary, -1, fields)
		r := multipart.NewReader(bytes.NewReader(body), boundary)
		for i, f := range fields {
			part, err := r.NextRawPart()
			if err != nil {
				t.Fatalf("multipart %q: part %d: %v", body, i, err)
			}
			b, err := io.ReadAll(part)
			if err != nil || part.FormName() != f.Name || string(b) != f.Value {
				t.Fatalf("multipart part %d read back as %q=%q (%v), want %q=%q", i, part.FormName(), b, err, f.Name, f.Value)
			}
		}
		if _, err := r.NextRawPart(); err != io.EOF {
			t.Fatalf("multipart %q: after the fields: %v", body, err)
		}
	})
}
