package warc

import "testing"

func TestDigestEqual(t *testing.T) {
	const computed = "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5" // SHA-1 of "abc"
	for _, c := range []struct {
		declared     string
		equal, known bool
	}{
		{"sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5", true, true},
		{" SHA1:vgmt4nsha2awvor6evyxqugcnsonbwe5 ", true, true},
		{"sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5===", true, true},
		{"sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE6", false, true},
		{"sha1:a9993e364706816aba3e25717850c26c9cd0d89d", true, true},
		{"sha1:A9993E364706816ABA3E25717850C26C9CD0D89D", true, true},
		{"sha1:a9993e364706816aba3e25717850c26c9cd0d89e", false, true},
		{"sha1:g9993e364706816aba3e25717850c26c9cd0d89d", false, true},
		{"sha1:a9993e364706816aba3e25717850c26c9cd0d89 ", false, true},
		{"sha256:a9993e364706816aba3e25717850c26c9cd0d89d", false, false},
		{"a9993e364706816aba3e25717850c26c9cd0d89d", false, false},
	} {
		equal, known := digestEqual(c.declared, computed)
		if equal != c.equal || known != c.known {
			t.Errorf("digestEqual(%q) = %v, %v; want %v, %v", c.declared, equal, known, c.equal, c.known)
		}
	}
}
