package teamarchive

import (
	"net/url"
	"slices"
	"strings"
	"testing"
)

func FuzzValidName(f *testing.F) {
	for _, s := range []string{"team.zip", "../x", "%2e%2e", "a..b", ".env", "x/y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if ValidName(name) == nil {
			if strings.Contains(name, "..") || strings.ContainsAny(name, "/\\%\x00") || name[0] == '.' {
				t.Errorf("accepted %q", name)
			}
			if u := (&url.URL{Path: "/" + name}).EscapedPath(); u != "/"+name {
				t.Errorf("%q changes when escaped: %q", name, u)
			}
		}
	})
}

func FuzzParseRange(f *testing.F) {
	for _, s := range []string{"bytes=0-499", "bytes=-5", "bytes=9-", "bytes=5-1", "bytes=0-0,1-1", "bytes=0-9, 20-29,2000-", "bytes=20-29,0-9", "bytes=0-9,5-15", "bytes=0-1,,4-5"} {
		f.Add(s, int64(1000))
	}
	f.Fuzz(func(t *testing.T, header string, size int64) {
		if size < 0 {
			size = -size
		}
		r, partial, err := parseRange(header, size)
		if partial && (err != nil || r.Offset < 0 || r.Length <= 0 || r.Offset+r.Length > size) {
			t.Errorf("parseRange(%q, %d) = %+v, %v", header, size, r, err)
		}
		// Several ranges: each within the object, in order, none overlapping.
		rgs, err := parseRanges(header, size)
		if len(rgs) > maxRanges || (err != nil && rgs != nil) {
			t.Errorf("parseRanges(%q, %d) = %d ranges, %v", header, size, len(rgs), err)
		}
		for i, r := range rgs {
			if r.Offset < 0 || r.Length <= 0 || r.Offset+r.Length > size || (i > 0 && r.Offset < rgs[i-1].Offset+rgs[i-1].Length) {
				t.Errorf("parseRanges(%q, %d) = %+v", header, size, rgs)
			}
		}
	})
}

var uploadMethods = []string{"GET", "POST", "PUT", "DELETE", "HEAD", "PATCH"}

// FuzzUploadRoutes sends hostile paths, part numbers and completion bodies to an
// upload in parts: no panic, no failure of the server's own (5xx), and nothing is
// ever stored outside the upload's own keys.
func FuzzUploadRoutes(f *testing.F) {
	for _, s := range []struct{ method, suffix, body string }{
		{"PUT", "/1", "part"}, {"PUT", "/0", "x"}, {"PUT", "/99999999999999999999", "x"}, {"PUT", "/-1", "x"},
		{"PUT", "/1/..", "x"}, {"POST", "", `{"parts": 1}`}, {"POST", "", `{"parts": -1, "size": 1e99}`},
		{"POST", "", `{"sha256": 5}`}, {"POST", "", "\x00\xff"}, {"GET", "/..%2f..", ""}, {"DELETE", "%2f", ""},
	} {
		f.Add(uint8(slices.Index(uploadMethods, s.method)), s.suffix, []byte(s.body))
	}
	f.Fuzz(func(t *testing.T, m uint8, suffix string, body []byte) {
		method := uploadMethods[int(m)%len(uploadMethods)]
		s, b, _ := newPartsServer(t)
		u := createUpload(t, s, "f.zip")
		path := "/api/uploads/f.zip/" + u.Upload + suffix
		if _, err := url.ParseRequestURI(path); err != nil || strings.ContainsAny(suffix, " \t\r\n#?") {
			return // no client can send it
		}
		w := do(t, s, req{method: method, path: path, token: "-", body: body})
		if w.Code >= 500 {
			t.Errorf("%s %q: %d %s", method, suffix, w.Code, w.Body.String())
		}
		for _, k := range b.Keys() {
			if !strings.HasPrefix(k, "uploads/f.zip/"+u.Upload) && !strings.HasPrefix(k, "parts/f.zip/"+u.Upload+"/") &&
				!strings.HasPrefix(k, "data/f.zip/"+u.Upload) && !strings.HasPrefix(k, "cdx/f.zip/"+u.Upload) && k != "index/f.zip" {
				t.Errorf("%s %q stored %s", method, suffix, k)
			}
		}
	})
}
