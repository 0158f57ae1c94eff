package notary

import (
	"errors"
	"strings"
	"testing"
)

func TestParseLeaf(t *testing.T) {
	const sha = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	good := Leaf{Name: "site.zip", Upload: "20240901T120000.000000000Z-0123456789abcdef", SHA256: sha, Size: 4}
	for _, tc := range []struct {
		name string
		in   string
		want *Leaf // nil: an error
	}{
		{"good", "webkeep-bundle site.zip 20240901T120000.000000000Z-0123456789abcdef " + sha + " 4", &good},
		{"size 0", "webkeep-bundle a b " + sha + " 0", &Leaf{Name: "a", Upload: "b", SHA256: sha}},
		{"large size", "webkeep-bundle a b " + sha + " 9223372036854775807", &Leaf{Name: "a", Upload: "b", SHA256: sha, Size: 1<<63 - 1}},
		{"trailing newline", "webkeep-bundle a b " + sha + " 4\n", nil},
		{"two spaces", "webkeep-bundle  a b " + sha + " 4", nil},
		{"other prefix", "webkeep-bundles a b " + sha + " 4", nil},
		{"four fields", "webkeep-bundle a " + sha + " 4", nil},
		{"six fields", "webkeep-bundle a b c " + sha + " 4", nil},
		{"uppercase hex", "webkeep-bundle a b " + strings.ToUpper(sha) + " 4", nil},
		{"short hash", "webkeep-bundle a b " + sha[1:] + " 4", nil},
		{"leading zero", "webkeep-bundle a b " + sha + " 04", nil},
		{"plus sign", "webkeep-bundle a b " + sha + " +4", nil},
		{"negative", "webkeep-bundle a b " + sha + " -4", nil},
		{"size overflows", "webkeep-bundle a b " + sha + " 9223372036854775808", nil},
		{"tab in name", "webkeep-bundle a\tb c " + sha + " 4", nil},
		{"non-ASCII name", "webkeep-bundle é b " + sha + " 4", nil},
		{"name too long", "webkeep-bundle " + strings.Repeat("a", maxField+1) + " b " + sha + " 4", nil},
		{"empty", "", nil},
	} {
		got, err := ParseLeaf(tc.in)
		switch {
		case tc.want == nil && err == nil:
			t.Errorf("%s: ParseLeaf(%q) = %+v, want an error", tc.name, tc.in, got)
		case tc.want == nil && !errors.Is(err, ErrLeaf):
			t.Errorf("%s: %v is not ErrLeaf", tc.name, err)
		case tc.want != nil && err != nil:
			t.Errorf("%s: ParseLeaf(%q): %v", tc.name, tc.in, err)
		case tc.want != nil && (got != *tc.want || got.String() != tc.in):
			t.Errorf("%s: ParseLeaf(%q) = %+v (%q)", tc.name, tc.in, got, got.String())
		}
	}
}

func TestBundleLeaf(t *testing.T) {
	l, err := BundleLeaf(strings.NewReader("test"), "site.zip", "u1")
	if err != nil {
		t.Fatal(err)
	}
	if want := "webkeep-bundle site.zip u1 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 4"; l.String() != want {
		t.Errorf("BundleLeaf = %q, want %q", l, want)
	}
	if _, err := BundleLeaf(strings.NewReader("x"), "a name", "u1"); !errors.Is(err, ErrLeaf) {
		t.Errorf("a name with a space: %v", err)
	}
}

func TestParseHead(t *testing.T) {
	const h = "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="
	for _, tc := range []struct {
		name, in string
		ok       bool
		origin   string
		n        int64
	}{
		{"checkpoint", "example.com/log\n12\n" + h + "\n", true, "example.com/log", 12},
		{"with extensions", "example.com/log\n12\n" + h + "\nextra line\n", true, "example.com/log", 12},
		{"empty tree", "o\n0\n" + h + "\n", true, "o", 0},
		{"origin with spaces inside", "Team archive\n1\n" + h + "\n", true, "Team archive", 1},
		{"no final newline", "o\n12\n" + h, false, "", 0},
		{"two lines", "o\n12\n", false, "", 0},
		{"empty origin", "\n12\n" + h + "\n", false, "", 0},
		{"origin with a trailing space", "o \n12\n" + h + "\n", false, "", 0},
		{"negative size", "o\n-1\n" + h + "\n", false, "", 0},
		{"leading zero", "o\n012\n" + h + "\n", false, "", 0},
		{"short hash", "o\n12\nAAAA\n", false, "", 0},
		{"hash not base64", "o\n12\n" + strings.Replace(h, "+", "-", 1) + "\n", false, "", 0},
		{"not UTF-8", "o\xff\n12\n" + h + "\n", false, "", 0},
		{"go.sum tree", "go.sum database tree\n12\n" + h + "\n", true, "go.sum database tree", 12},
	} {
		got, err := ParseHead([]byte(tc.in))
		if (err == nil) != tc.ok {
			t.Errorf("%s: ParseHead(%q): %v", tc.name, tc.in, err)
			continue
		}
		if err != nil {
			if !errors.Is(err, ErrHead) {
				t.Errorf("%s: %v is not ErrHead", tc.name, err)
			}
			continue
		}
		if got.Origin != tc.origin || got.Tree.N != tc.n || got.Tree.Hash.String() != h {
			t.Errorf("%s: ParseHead = %+v", tc.name, got)
		}
		if tc.name == "checkpoint" && string(FormatHead(got)) != tc.in {
			t.Errorf("FormatHead = %q, want %q", FormatHead(got), tc.in)
		}
	}
}

func TestParseProof(t *testing.T) {
	const a, b = "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", "bjQLnP+zepicpUTmu3gKLHiQHT+zNzh2hRGjBhevoB0="
	for _, tc := range []struct {
		name, in string
		n        int // hashes; -1: an error
	}{
		{"lines", a + "\n" + b + "\n", 2},
		{"lines, blank lines and spaces", "\n  " + a + "  \n\n" + b, 2},
		{"empty file", "", 0},
		{"proof answer", `{"index": 1, "treeSize": 3, "proof": ["` + a + `", "` + b + `"]}`, 2},
		{"empty proof", `{"index": 0, "treeSize": 1, "proof": []}`, 0},
		{"upload answer", `{"name": "x.zip", "notary": {"index": 0, "proof": ["` + a + `"]}}`, 1},
		{"upload answer, not logged", `{"name": "x.zip", "notary": {"error": "store down"}}`, -1},
		{"JSON without a proof", `{"index": 0}`, -1},
		{"bad JSON", `{"proof": [`, -1},
		{"proof of numbers", `{"proof": [1, 2]}`, -1},
		{"short hash", "AAAA\n", -1},
		{"not base64", "!!!\n", -1},
		{"too many", strings.Repeat(a+"\n", maxProof+1), -1},
	} {
		got, err := ParseProof([]byte(tc.in))
		switch {
		case tc.n < 0 && err == nil:
			t.Errorf("%s: ParseProof accepted it: %v", tc.name, got)
		case tc.n >= 0 && (err != nil || len(got) != tc.n):
			t.Errorf("%s: ParseProof = %v, %v; want %d hashes", tc.name, got, err, tc.n)
		case tc.n == 2 && (got[0].String() != a || got[1].String() != b):
			t.Errorf("%s: ParseProof = %v", tc.name, got)
		}
	}
}

func TestParseSignerKey(t *testing.T) {
	skey, vkey, err := GenerateKey("archive.example/notary")
	if err != nil {
		t.Fatal(err)
	}
	s, v, err := ParseSignerKey(skey + "\n")
	if err != nil || v != vkey || s.Name() != "archive.example/notary" {
		t.Fatalf("ParseSignerKey = %v, %q, %v; want the verifier %q", s, v, err, vkey)
	}
	if _, _, err := GenerateKey("a name"); !errors.Is(err, ErrKey) {
		t.Errorf("GenerateKey with a space: %v", err)
	}
	for _, bad := range []string{"", vkey, "PRIVATE+KEY+n+00000000+AQ==", skey[:len(skey)-4] + "AAA=", strings.Replace(skey, "archive", "other", 1)} {
		if _, _, err := ParseSignerKey(bad); !errors.Is(err, ErrKey) {
			t.Errorf("ParseSignerKey(%q): %v", bad, err)
		}
	}
}
