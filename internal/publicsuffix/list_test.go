package publicsuffix

import (
	"testing"

	xpublicsuffix "golang.org/x/net/publicsuffix"
)

// TestSameAsXNet holds the copy to golang.org/x/net/publicsuffix of the module's
// go.mod: every label of the table, alone, under names and over them, and names of
// each kind of rule (wildcard, exception, private, unknown, IP, malformed).
func TestSameAsXNet(t *testing.T) {
	domains := []string{
		"", ".", "com", "example.com", "www.example.com", "amazon.co.uk", "www.books.amazon.co.uk",
		"foo.bar.ck", "www.ck", "city.kawasaki.jp", "a.b.kawasaki.jp", "foo.blogspot.com",
		"foo.github.io", "a.b.c.appspot.com", "example.zz", "a.example.zz", "127.0.0.1", "[::1]",
		"example..com", ".example.com", "example.com.", "xn--85x722f.xn--55qx5d.cn", "bücher.de",
	}
	for i := uint32(0); i < uint32(len(nodes)/5); i++ {
		label := nodeLabel(i)
		domains = append(domains, label, "a."+label, "b.a."+label, label+".com", "x."+label+".jp")
	}
	for _, d := range domains {
		got, gotICANN := PublicSuffix(d)
		want, wantICANN := xpublicsuffix.PublicSuffix(d)
		if got != want || gotICANN != wantICANN {
			t.Errorf("PublicSuffix(%q) = %q, %v; x/net: %q, %v", d, got, gotICANN, want, wantICANN)
		}
		got, gotErr := EffectiveTLDPlusOne(d)
		want, wantErr := xpublicsuffix.EffectiveTLDPlusOne(d)
		if got != want || (gotErr == nil) != (wantErr == nil) {
			t.Errorf("EffectiveTLDPlusOne(%q) = %q, %v; x/net: %q, %v", d, got, gotErr, want, wantErr)
		}
	}
	if len(domains) < 1000 {
		t.Errorf("only %d names compared", len(domains))
	}
}
