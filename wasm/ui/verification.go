package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/webkeep/webkeep/shared/api"
)

// verificationText says in plain words what importing a WACZ found of it: who signed
// it and when, and whether its files, records and index hold. state is "verified"
// (signed, and all holds), "unsigned" (all holds, no signature), "unchecked" (all
// holds, signed in a team's name, which the browser does not check) or "failed".
func verificationText(v *api.Verification) (summary, state string) {
	checked := fmt.Sprintf("%s, %s and %s", plural(v.Records, "record"), plural(v.IndexLines, "index line"), plural(v.Files, "file"))
	stamp := ""
	if v.Timestamp != "" {
		stamp = fmt.Sprintf(" Timestamped %s by %s (the authority's own signature is checked by webkeep wacz verify, not in the browser).", signedTime(v.Timestamp), orUnknown(v.TimestampAuthority))
	}
	if v.Signed && v.Domain != "" && !v.SignatureValid {
		if v.OK {
			return fmt.Sprintf("Signed in the name of %s on %s; %s verified. The signature and the certificate for %s are checked by webkeep wacz verify, not in the browser.%s",
				v.Domain, signedTime(v.Created), checked, v.Domain, stamp), "unchecked"
		}
		return fmt.Sprintf("Signed in the name of %s on %s, but the WACZ was changed or is damaged: %s (below); %s checked.",
			v.Domain, signedTime(v.Created), plural(v.Failed, "problem"), checked), "failed"
	}
	signer := ""
	if v.Signed {
		whose := "another browser's or person's key"
		if v.OwnKey {
			whose = "this browser's key"
		}
		signer = fmt.Sprintf("Signed by key %s (%s) on %s", v.Fingerprint, whose, signedTime(v.Created))
		if v.Software != "" {
			signer += " with " + v.Software
		}
	}
	failed := plural(v.Failed, "problem")
	switch {
	case v.Signed && v.SignatureValid && v.OK:
		return signer + "; " + checked + " verified." + stamp, "verified"
	case v.Signed && v.SignatureValid:
		return signer + ", but the WACZ was changed or is damaged: " + failed + " (below); " + checked + " checked.", "failed"
	case v.Signed:
		return fmt.Sprintf("The signature does not hold: the WACZ claims key %s, but it did not sign this file; %s (below).", v.Fingerprint, failed), "failed"
	case v.OK:
		return "Not signed. Its " + checked + " verified against its own list of hashes, which anyone could have written.", "unsigned"
	default:
		return "Not signed, and the WACZ does not match its own list of hashes: " + failed + " (below).", "failed"
	}
}

// signedTime renders a signature's time, as the WACZ gives it (RFC 3339), in the
// user's time zone.
func signedTime(s string) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		if strings.TrimSpace(s) == "" {
			return "an unknown date"
		}
		return s
	}
	return localTime(t)
}

func orUnknown(s string) string {
	if s == "" {
		return "an unnamed authority"
	}
	return s
}
