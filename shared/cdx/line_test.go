package cdx

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestSplitLine(t *testing.T) {
	for _, tc := range []struct {
		line, key, ts, fields string
		err                   string
	}{
		{`org,example)/ 20240101000000 {"url": "http://example.org/"}`, "org,example)/", "20240101000000", `{"url": "http://example.org/"}`, ""},
		{`org,example)/ 2024 {}`, "org,example)/", "2024", `{}`, ""},
		{`org,example)/ 20240101000000 {"a":1}  `, "org,example)/", "20240101000000", `{"a":1}`, ""},
		{`org,example)/`, "", "", "", "no space after the key"},
		{` 20240101000000 {}`, "", "", "", "no space after the key"},
		{`k 2024010100000012 {}`, "", "", "", "not 1 to 14 digits"},
		{`k 2024x {}`, "", "", "", "not 1 to 14 digits"},
		{`k 20240101000000 [1]`, "", "", "", "not a JSON object"},
		{`k 20240101000000 {"a":}`, "", "", "", "not a JSON object"},
	} {
		k, ts, f, err := SplitLine([]byte(tc.line))
		switch {
		case tc.err != "":
			if err == nil || !errors.Is(err, ErrLine) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: %v, want an ErrLine saying %q", tc.line, err, tc.err)
			}
		case err != nil || string(k) != tc.key || string(ts) != tc.ts || string(f) != tc.fields:
			t.Errorf("%q: %q %q %q %v", tc.line, k, ts, f, err)
		}
	}
}

// The lines AppendLine writes read back through a LineReader; a bad line is named and
// skipped.
func TestLineReaderReadsWhatAppendLineWrites(t *testing.T) {
	var b []byte
	entries := []Entry{
		{URLKey: "org,example)/", Timestamp: "20240101000000", URL: "http://example.org/", Mime: "text/html", Status: "200", Digest: "X", Length: 10, Offset: 0, Filename: "a.warc.gz"},
		{URLKey: "org,example)/api?__wb_method=post&a=1", Timestamp: "20240101000001", URL: "http://example.org/api", Method: "POST", RequestBody: "a=1", Filename: "a.warc.gz"},
	}
	for _, e := range entries {
		b = e.AppendLine(b, Pywb267)
	}
	b = append(b, "\nnot a line\n"...)
	b = entries[0].AppendLine(b, WarcioJS)
	r := NewLineReader(strings.NewReader(string(b)))
	var keys []string
	var bad int
	for {
		k, _, _, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if !strings.Contains(err.Error(), "line 4") {
				t.Errorf("the bad line: %v", err)
			}
			bad++
			continue
		}
		keys = append(keys, string(k))
	}
	if bad != 1 || len(keys) != 3 || keys[1] != entries[1].URLKey {
		t.Errorf("keys %q, %d bad", keys, bad)
	}
}

func FuzzSplitLine(f *testing.F) {
	f.Add([]byte(`org,example)/ 20240101000000 {"url": "http://example.org/"}`))
	f.Add([]byte(`k 1 {}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		k, ts, fields, err := SplitLine(line)
		if err != nil {
			return
		}
		if len(k) == 0 || len(ts) == 0 || len(ts) > 14 || fields[0] != '{' {
			t.Fatalf("accepted %q: %q %q %q", line, k, ts, fields)
		}
	})
}

// ParseEntry reads back every field AppendLine writes, in each dialect.
func TestParseEntryIsTheInverseOfAppendLine(t *testing.T) {
	entries := []Entry{
		{URLKey: "org,example)/", Timestamp: "20240101000000", URL: "http://example.org/", Mime: "text/html", Status: "200",
			Digest: "ABC", Length: 10, Offset: 5, Filename: "a.warc.gz", MimeDetected: "text/html", Metadata: `{"a":1}`},
		{URLKey: "org,example)/api?__wb_method=post&a=1", Timestamp: "20240101000001", URL: "http://example.org/api",
			Mime: "application/json", Status: "201", Digest: "DEF", Length: 812, Offset: 40960, Method: "POST",
			RequestBody: "a=1&note=café \"q\"", Filename: "a.warc.gz"},
	}
	for _, d := range []Dialect{Pywb267, Pywb28, WarcioJS} {
		for _, e := range entries {
			line := e.AppendLine(nil, d)
			got, err := ParseEntry(line[:len(line)-1])
			if err != nil || got != e {
				t.Errorf("%s: %s\n read %+v, %v", d, line, got, err)
			}
		}
	}
	if _, err := ParseEntry([]byte(`k 20240101000000 {"offset":"-1"}`)); err == nil || !errors.Is(err, ErrLine) {
		t.Errorf("a negative offset: %v", err)
	}
}
