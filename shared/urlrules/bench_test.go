package urlrules

import (
	"os"
	"testing"
)

func BenchmarkCompile(b *testing.B) {
	src, err := os.ReadFile("testdata/m2osw.rules")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Compile("m2osw.rules", src); err != nil {
			b.Fatal(err)
		}
	}
}

func benchMatch(b *testing.B, file, url string) {
	src, err := os.ReadFile("testdata/" + file)
	if err != nil {
		b.Fatal(err)
	}
	rs, err := Compile(file, src)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := rs.Match(url); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMatchLongForm(b *testing.B) {
	benchMatch(b, "long_form.rules", "http://test.3.59.w.en.example.org/a/b?c=d")
}

func BenchmarkMatchWebsiteRules(b *testing.B) {
	benchMatch(b, "m2osw.rules", "http://de.m2osw.com/fr/a/b.html?page=3&sort=desc&utm=x")
}
