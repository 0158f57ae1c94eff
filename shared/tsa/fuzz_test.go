package tsa_test

import (
	"os"
	"testing"

	"github.com/webkeep/webkeep/shared/tsa"
)

// FuzzParse: no answer of a timestamp authority crashes or hangs Parse, nor
// Verify; what Parse reads it reads whole.
func FuzzParse(f *testing.F) {
	resp, err := os.ReadFile("testdata/reply.tsr")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(resp)
	f.Add(resp[:len(resp)/2])
	f.Add([]byte{0x30, 0x03, 0x02, 0x01, 0x02})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := tsa.Parse(b)
		if err == nil && (st.Token == nil || st.Time.IsZero() && len(st.Digest) == 0 && st.Serial == "") {
			t.Errorf("parsed, but read nothing: %+v", st)
		}
		tsa.Verify(b, nil, tsa.VerifyOptions{})
	})
}
