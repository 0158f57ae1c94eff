package recorder

import (
	"fmt"
	"testing"
)

func TestParseHeadBlock(t *testing.T) {
	tests := []struct {
		text, reason string
		header       Fields
		ok           bool
	}{
		{"HTTP/1.1 200 OK\r\nA: 1\r\nA: 2\r\nB:  x \r\n\r\n", "OK", Fields{{"A", "1"}, {"A", "2"}, {"B", "x"}}, true},
		{"HTTP/1.0 404\r\nX: a\r\n  folded\r\nbad line\r\n", "", Fields{{"X", "a folded"}}, true},
		{"HTTP/1.1 302 Found Here\nLocation: /\n", "Found Here", Fields{{"Location", "/"}}, true},
		{"", "", nil, false},
		{"garbage\r\nA: 1", "", nil, false},
	}
	for _, tt := range tests {
		reason, header, ok := parseHeadBlock(tt.text)
		if reason != tt.reason || ok != tt.ok || fmt.Sprint(header) != fmt.Sprint(tt.header) {
			t.Errorf("parseHeadBlock(%q) = %q, %v, %v; want %q, %v, %v", tt.text, reason, header, ok, tt.reason, tt.header, tt.ok)
		}
	}
}

func FuzzParseHeadBlock(f *testing.F) {
	f.Add("HTTP/1.1 200 OK\r\nSet-Cookie: a=b\r\nSet-Cookie: c=d\r\n\r\n")
	f.Add("HTTP/1.1 302\n  x\n:\n")
	f.Fuzz(func(t *testing.T, text string) {
		_, header, ok := parseHeadBlock(text)
		if !ok && header != nil {
			t.Fatal("fields from a block that is not a response head")
		}
		for _, kv := range header {
			if !httpToken(kv.Name) {
				t.Fatalf("bad field name %q", kv.Name)
			}
		}
	})
}
