package tsa_test

import (
	"bytes"
	"encoding/pem"
	"os"
	"strings"
	"testing"

	"github.com/webkeep/webkeep/shared/tsa"
)

// FuzzParse: no answer of a timestamp authority crashes or hangs Parse, nor
// Verify; what Parse reads, it reads whole and consistently.
func FuzzParse(f *testing.F) {
	resp, err := os.ReadFile("testdata/reply.tsr")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(resp)
	for _, n := range []int{1, 2, 10, 40, len(resp) / 4, len(resp) / 2, len(resp) - 200, len(resp) - 1} {
		f.Add(resp[:n])
	}
	f.Add(append(bytes.Clone(resp), 0))
	f.Add([]byte{0x30, 0x03, 0x02, 0x01, 0x02})                         // rejection
	f.Add([]byte{0x30, 0x07, 0x30, 0x05, 0x02, 0x01, 0x02, 0x03, 0x00}) // rejection, failInfo of no bits
	f.Add([]byte{})
	data, _ := os.ReadFile("testdata/data.txt")
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := tsa.Parse(b)
		if err == nil {
			if !bytes.Equal(st.Response, b) || len(st.Token) == 0 || st.Time.IsZero() || st.Serial == "" || st.Hash == "" || st.Policy == "" {
				t.Errorf("parsed, but read part: %+v", st)
			}
			certs := st.CertificatesPEM()
			for i, rest := 0, []byte(certs); ; i++ {
				var block *pem.Block
				if block, rest = pem.Decode(rest); block == nil {
					if i != len(st.Certificates) || strings.TrimSpace(string(rest)) != "" {
						t.Errorf("CertificatesPEM has %d of %d certificates", i, len(st.Certificates))
					}
					break
				}
				if !bytes.Equal(block.Bytes, st.Certificates[i]) {
					t.Errorf("CertificatesPEM's certificate %d differs", i)
				}
			}
			st.Covers(data)
		}
		if _, verr := tsa.Verify(b, data, tsa.VerifyOptions{}); verr == nil && err != nil {
			t.Errorf("Verify holds where Parse fails: %v", err)
		}
	})
}
