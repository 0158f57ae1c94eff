package notary

import (
	"testing"

	"golang.org/x/mod/sumdb/tlog"
)

// FuzzParseLeaf: what ParseLeaf accepts, Leaf.String writes back byte for byte.
func FuzzParseLeaf(f *testing.F) {
	f.Add("webkeep-bundle site.zip 20240901T120000.000000000Z-0123456789abcdef 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 4")
	f.Add("webkeep-bundle a b 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 04")
	f.Add("webkeep-bundle a  b c 1")
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseLeaf(s)
		if err != nil {
			return
		}
		if l.String() != s || l.Check() != nil {
			t.Fatalf("ParseLeaf(%q) = %+v, written back %q", s, l, l.String())
		}
	})
}

// FuzzParseHead: what ParseHead accepts, FormatHead writes back as its first three
// lines, and reads again the same.
func FuzzParseHead(f *testing.F) {
	f.Add([]byte("example.com/log\n12\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n"))
	f.Add([]byte("o\n0\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\next\n"))
	f.Add([]byte("o\n-0\nAAAA\n"))
	f.Fuzz(func(t *testing.T, text []byte) {
		h, err := ParseHead(text)
		if err != nil {
			return
		}
		out := FormatHead(h)
		if len(out) > len(text) || string(text[:len(out)]) != string(out) {
			t.Fatalf("ParseHead(%q) = %+v, written back %q", text, h, out)
		}
		if h2, err := ParseHead(out); err != nil || h2 != h {
			t.Fatalf("ParseHead(FormatHead(%+v)) = %+v, %v", h, h2, err)
		}
	})
}

// FuzzOpenHead: no signed head opens with a key that did not sign it.
func FuzzOpenHead(f *testing.F) {
	const vkey = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
	f.Add([]byte("PeterNeumann\n1\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n\n— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n"))
	f.Fuzz(func(t *testing.T, msg []byte) {
		if h, err := OpenHead(msg, vkey); err == nil {
			t.Fatalf("OpenHead(%q) = %+v with a key whose signer the fuzzer does not have", msg, h)
		}
	})
}

// FuzzParseProof: what ParseProof accepts is at most maxProof hashes, which
// EncodeProof and DecodeProof round trip.
func FuzzParseProof(f *testing.F) {
	f.Add([]byte("47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n"))
	f.Add([]byte(`{"notary": {"proof": ["47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="]}}`))
	f.Add([]byte(`{"proof": null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseProof(data)
		if err != nil {
			return
		}
		if len(p) > maxProof {
			t.Fatalf("%d hashes", len(p))
		}
		back, err := DecodeProof(EncodeProof(p))
		if err != nil || len(back) != len(p) {
			t.Fatalf("round trip: %v, %v", back, err)
		}
		for i := range p {
			if back[i] != p[i] {
				t.Fatalf("round trip: hash %d", i)
			}
		}
	})
}

// FuzzParseState: what parseState accepts is a consistent tree, which encodes back
// to the same text and takes an append.
func FuzzParseState(f *testing.F) {
	st := state{tree: tlog.Tree{Hash: emptyHash()}}
	for i := range 7 {
		st, _, _ = st.append(tlog.RecordHash(testLeaf(i)))
		f.Add(st.encode())
	}
	f.Add("1\nAAAA\nAAAA")
	f.Fuzz(func(t *testing.T, s string) {
		st, err := parseState(s)
		if err != nil {
			return
		}
		if st.encode() != s {
			t.Fatalf("parseState(%q) encodes back as %q", s, st.encode())
		}
		if _, _, err := st.append(tlog.RecordHash([]byte("x"))); err != nil {
			t.Fatalf("append to %q: %v", s, err)
		}
	})
}

// FuzzParseSignerKey: a key ParseSignerKey accepts signs heads its verifier key opens.
func FuzzParseSignerKey(f *testing.F) {
	f.Add("PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz")
	f.Add("PRIVATE+KEY+x+00000000+AQ==")
	f.Fuzz(func(t *testing.T, skey string) {
		l, err := New(nil, skey)
		if err != nil || !l.Signed() {
			return
		}
		msg, err := l.SignHead(tlog.Tree{N: 1, Hash: tlog.RecordHash(nil)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := OpenHead(msg, l.VerifierKey()); err != nil {
			t.Fatalf("a head signed with %q does not open with %q: %v", skey, l.VerifierKey(), err)
		}
	})
}
