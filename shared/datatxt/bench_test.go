package datatxt

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// A robots.txt of 200 records of 10 rules each, with escapes to decode.
func benchFile() []byte {
	var b bytes.Buffer
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&b, "User-agent: bot%d\n", i)
		for j := 0; j < 10; j++ {
			fmt.Fprintf(&b, "Disallow: /private%%7E%d/%d/\n", i, j)
		}
		b.WriteString("\n")
	}
	b.WriteString("User-agent: *\nDisallow: /org/plans.html\nAllow: /org/\nAllow: /serv\nAllow: /~mak\nDisallow: /\n")
	return b.Bytes()
}

func BenchmarkParse(b *testing.B) {
	data := benchFile()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAllowed(b *testing.B) {
	f, err := Parse(bytes.NewReader(benchFile()))
	if err != nil {
		b.Fatal(err)
	}
	// The worst case: no named record matches, every record is scanned,
	// then the "*" record's five rules.
	for b.Loop() {
		if f.Allowed("webkeep/1.0", "/%7Emak/mak.html") != true {
			b.Fatal("wrong answer")
		}
	}
}

func BenchmarkParseYAML(b *testing.B) {
	var sb strings.Builder
	for i := 0; i < 500; i++ {
		fmt.Fprintf(&sb, "- path: set%d/data.csv\n  name: set%d\n  description: dataset number %d\n  rows: %d\n", i, i, i, i*10)
	}
	data := []byte(sb.String())
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}
