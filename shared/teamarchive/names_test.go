package teamarchive

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestValidName(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"webkeep-20240102.zip", true},
		{"a", true},
		{"A_b-c.warc.gz", true},
		{strings.Repeat("a", MaxNameLength), true},
		{"", false},
		{strings.Repeat("a", MaxNameLength+1), false},
		{"..", false},
		{"../secret", false},
		{"a/../b", false},
		{"a..b", false},
		{".hidden", false},
		{"-flag", false},
		{"name.", false},
		{"%2e%2e", false},
		{"a%2Fb", false},
		{"a\\b", false},
		{"a b", false},
		{"a\x00b", false},
		{"ünïcode", false},
		{"index/x", false},
	} {
		err := ValidName(tc.name)
		if (err == nil) != tc.ok {
			t.Errorf("ValidName(%q) = %v, want ok=%v", tc.name, err, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrName) {
			t.Errorf("ValidName(%q) error %v is not ErrName", tc.name, err)
		}
	}
}

func TestValidDomainFile(t *testing.T) {
	for _, tc := range []struct {
		file, domain string
	}{
		{"example.com.yaml", "example.com"},
		{"wwtfiles.blob.core.windows.net.yaml", "wwtfiles.blob.core.windows.net"},
		{"localhost.yaml", "localhost"},
		{"example.com", ""},
		{".yaml", ""},
		{"Example.com.yaml", ""},
		{"-a.com.yaml", ""},
		{"a-.com.yaml", ""},
		{"a..com.yaml", ""},
		{"../x.yaml", ""},
		{"a%2f.yaml", ""},
		{strings.Repeat("a", 64) + ".com.yaml", ""},
	} {
		got, err := ValidDomainFile(tc.file)
		if got != tc.domain || (err == nil) != (tc.domain != "") {
			t.Errorf("ValidDomainFile(%q) = %q, %v; want %q", tc.file, got, err, tc.domain)
		}
	}
}

func TestTokens(t *testing.T) {
	tokens := ParseTokens(" alice:s3cret-a , ,bare-secret,bob:")
	if len(tokens) != 3 || tokens[0] != (Token{"alice", "s3cret-a"}) || tokens[2].Secret != "bob:" {
		t.Fatalf("ParseTokens = %+v", tokens)
	}
	// sha256("bare-secret") begins 2e5f5b0d... is not needed: the name must not
	// contain the secret and must be stable.
	if n := tokens[1].Name; !strings.HasPrefix(n, "token-") || len(n) != 14 || strings.Contains(n, "bare") {
		t.Errorf("bare token name %q", n)
	}
	for _, tc := range []struct {
		header    string
		name      string
		presented bool
	}{
		{"Bearer s3cret-a", "alice", true},
		{"bearer s3cret-a", "alice", true},
		{"Bearer bare-secret", tokens[1].Name, true},
		{"Bearer s3cret-", "", true},
		{"Bearer s3cret-ab", "", true},
		{"Bearer ", "", true},
		{"Basic YWxpY2U6eA==", "", false},
		{"s3cret-a", "", false},
		{"", "", false},
	} {
		r := httptest.NewRequest("GET", "/api/bundles", nil)
		if tc.header != "" {
			r.Header.Set("Authorization", tc.header)
		}
		name, presented := authenticate(tokens, r)
		if name != tc.name || presented != tc.presented {
			t.Errorf("authenticate(%q) = %q, %v; want %q, %v", tc.header, name, presented, tc.name, tc.presented)
		}
	}
}
