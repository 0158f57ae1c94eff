package datatxt

import (
	"strconv"
	"strings"
	"time"

	"github.com/webkeep/webkeep/shared/httpmsg"
)

// DefaultExpiry is how long a file stays fresh when its response carries no
// cache directives, as the draft says.
const DefaultExpiry = 7 * 24 * time.Hour

// Expiry returns when a file fetched at now with the given response header
// must be verified again. Cache-Control wins over Expires (RFC 9111):
// no-store and no-cache make it stale at once, max-age (less the Age header)
// sets the lifetime. Otherwise Expires is honoured, measured against the
// response's Date when there is one so that clock skew does not count; an
// Expires that does not parse means already expired. With none of these (and
// no Pragma: no-cache) the file expires after DefaultExpiry.
func Expiry(header httpmsg.Header, now time.Time) time.Time {
	if cc := header.Values("Cache-Control"); len(cc) > 0 {
		maxAge, found := -1, false
		for _, v := range cc {
			for _, d := range strings.Split(v, ",") {
				name, arg, _ := strings.Cut(strings.TrimSpace(d), "=")
				switch strings.ToLower(strings.TrimSpace(name)) {
				case "no-store", "no-cache":
					return now
				case "max-age":
					n, err := strconv.Atoi(strings.Trim(strings.TrimSpace(arg), `"`))
					if err != nil || n < 0 {
						return now // RFC 9111 4.2.1: an invalid max-age is stale
					}
					if !found {
						maxAge, found = n, true
					}
				}
			}
		}
		if found {
			if age, err := strconv.Atoi(strings.TrimSpace(header.Get("Age"))); err == nil && age > 0 {
				maxAge -= age
			}
			if maxAge <= 0 {
				return now
			}
			return now.Add(time.Duration(maxAge) * time.Second)
		}
	}
	if exp, ok := header["Expires"]; ok && len(exp) > 0 {
		t, err := httpmsg.ParseTime(exp[0])
		if err != nil {
			return now
		}
		if date, err := httpmsg.ParseTime(header.Get("Date")); err == nil {
			t = now.Add(t.Sub(date))
		}
		if t.Before(now) {
			return now
		}
		return t
	}
	for _, p := range header.Values("Pragma") {
		if strings.Contains(strings.ToLower(p), "no-cache") {
			return now
		}
	}
	return now.Add(DefaultExpiry)
}
