package search

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseQuery(t *testing.T) {
	day := func(s string) time.Time { t, _ := time.Parse("2006-01-02", s); return t }
	tests := []struct {
		in      string
		clauses []string // text, "-" prefixed when excluded, quoted when a phrase
		filters []Filter
	}{
		{"Zürich lake", []string{"Zürich", "lake"}, nil},
		{`"exact phrase" -word -"not this"`, []string{`"exact phrase"`, "-word", `-"not this"`}, nil},
		{"site:Example.com. method:POST status:4xx", nil, []Filter{
			{Key: "site", Value: "example.com"}, {Key: "method", Value: "POST"}, {Key: "status", Value: "4xx", lo: 400, hi: 499}}},
		{"from:2024-01-01 to:2024-02 cats", []string{"cats"}, []Filter{
			{Key: "from", Value: "2024-01-01", t: day("2024-01-01")}, {Key: "to", Value: "2024-02", t: day("2024-03-01")}}},
		{`session:"my session" -type:image status:200-299`, nil, []Filter{
			{Key: "session", Value: "my session"}, {Key: "type", Value: "image", Exclude: true}, {Key: "status", Value: "200-299", lo: 200, hi: 299}}},
		{"10:30 http://example.com/x - ---", []string{"10:30", "http://example.com/x"}, nil},
		{"东京都", []string{"东京都"}, nil},
		{`a"b c"d`, []string{"a", `"b c"`, "d"}, nil},
	}
	for _, tt := range tests {
		q, err := ParseQuery(tt.in)
		if err != nil {
			t.Errorf("ParseQuery(%q): %v", tt.in, err)
			continue
		}
		var got []string
		for _, c := range q.Clauses {
			s := c.Text
			if c.Phrase {
				s = `"` + s + `"`
			}
			if c.Exclude {
				s = "-" + s
			}
			got = append(got, s)
		}
		if !reflect.DeepEqual(got, tt.clauses) {
			t.Errorf("ParseQuery(%q) clauses %q, want %q", tt.in, got, tt.clauses)
		}
		if !reflect.DeepEqual(q.Filters, tt.filters) {
			t.Errorf("ParseQuery(%q) filters %+v, want %+v", tt.in, q.Filters, tt.filters)
		}
	}
}

func TestParseQueryErrors(t *testing.T) {
	tests := []struct {
		in     string
		offset int
		token  string
		msg    string
	}{
		{`cats "unclosed phrase`, 5, `"unclosed phrase`, "quote not closed"},
		{`a -"open`, 3, `"open`, "quote not closed"},
		{"from:2024-13-01", 0, "from:2024-13-01", "not a date"},
		{"x to:yesterday", 2, "to:yesterday", "not a date"},
		{"color:red", 0, "color:red", "unknown filter"},
		{"status:abc", 0, "status:abc", "not a status"},
		{"status:299-200", 0, "status:299-200", "not a status"},
		{"cats site:", 5, "site:", "empty value"},
		{"site:. cats", 0, "site:.", "not a host name"},
		{`session:"open`, 8, `"open`, "quote not closed"},
	}
	for _, tt := range tests {
		_, err := ParseQuery(tt.in)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("ParseQuery(%q): %v, want a SyntaxError", tt.in, err)
			continue
		}
		if se.Offset != tt.offset || se.Token != tt.token || !strings.Contains(se.Msg, tt.msg) {
			t.Errorf("ParseQuery(%q): %+v, want at %d %q: %s", tt.in, se, tt.offset, tt.token, tt.msg)
		}
	}
	for _, in := range []string{"", "   ", "- ... !!"} {
		if _, err := ParseQuery(in); !errors.Is(err, ErrEmptyQuery) {
			t.Errorf("ParseQuery(%q): %v, want ErrEmptyQuery", in, err)
		}
	}
}
