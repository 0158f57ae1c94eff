package main

import (
	"strings"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/api"
)

func TestVerificationText(t *testing.T) {
	fp := strings.Repeat("ab", 32)
	created := "2024-05-06T08:00:00Z"
	at := localTime(time.Date(2024, 5, 6, 8, 0, 0, 0, time.UTC))
	for _, tc := range []struct {
		v           api.Verification
		want, state string
	}{
		{api.Verification{OK: true, Signed: true, SignatureValid: true, OwnKey: true, Fingerprint: fp, Created: created, Software: "webkeep", Records: 14, IndexLines: 7, Files: 5},
			"Signed by key " + fp + " (this browser's key) on " + at + " with webkeep; 14 records, 7 index lines and 5 files verified.", "verified"},
		{api.Verification{Signed: true, SignatureValid: true, Fingerprint: fp, Created: created, Records: 1, IndexLines: 1, Files: 1, Failed: 2},
			"Signed by key " + fp + " (another browser's or person's key) on " + at + ", but the WACZ was changed or is damaged: 2 problems (below); 1 record, 1 index line and 1 file checked.", "failed"},
		{api.Verification{Signed: true, Fingerprint: fp, Failed: 1},
			"The signature does not hold: the WACZ claims key " + fp + ", but it did not sign this file; 1 problem (below).", "failed"},
		{api.Verification{OK: true, Records: 2, IndexLines: 1, Files: 4},
			"Not signed. Its 2 records, 1 index line and 4 files verified against its own list of hashes, which anyone could have written.", "unsigned"},
		{api.Verification{Failed: 3}, "Not signed, and the WACZ does not match its own list of hashes: 3 problems (below).", "failed"},
		{api.Verification{OK: true, Signed: true, SignatureValid: true, OwnKey: true, Fingerprint: fp, Created: created, Records: 2, IndexLines: 1, Files: 4,
			Timestamp: created, TimestampAuthority: "CN=Test TSA"},
			"Signed by key " + fp + " (this browser's key) on " + at + "; 2 records, 1 index line and 4 files verified. Timestamped " + at +
				" by CN=Test TSA (the authority's own signature is checked by webkeep wacz verify, not in the browser).", "verified"},
		{api.Verification{OK: true, Signed: true, Domain: "archive.team.example", Created: created, Records: 2, IndexLines: 1, Files: 4, Timestamp: created},
			"Signed in the name of archive.team.example on " + at + "; 2 records, 1 index line and 4 files verified. The signature and the certificate for archive.team.example are checked by webkeep wacz verify, not in the browser." +
				" Timestamped " + at + " by an unnamed authority (the authority's own signature is checked by webkeep wacz verify, not in the browser).", "unchecked"},
		{api.Verification{Signed: true, Domain: "archive.team.example", Created: created, Failed: 1, Records: 2, IndexLines: 1, Files: 4},
			"Signed in the name of archive.team.example on " + at + ", but the WACZ was changed or is damaged: 1 problem (below); 2 records, 1 index line and 4 files checked.", "failed"},
	} {
		got, state := verificationText(&tc.v)
		if got != tc.want || state != tc.state {
			t.Errorf("%+v:\n got %q, %s\nwant %q, %s", tc.v, got, state, tc.want, tc.state)
		}
	}
}
