package cdxserver

import (
	"bytes"
	"errors"
	"iter"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/webkeep/webkeep/internal/pyfmt"
	"github.com/webkeep/webkeep/shared/cdx"
)

// cdxj converts a CDX 11 line of pywb's sample_archive/cdx (urlkey timestamp
// original mime status digest redirect robotflags length offset filename) to the
// CDXJ line pywb's indexer writes for it: "-" values left out.
func cdxj(cdx11 string) string {
	f := strings.Fields(cdx11)
	js := []byte("{")
	for i, name := range []string{"url", "mime", "status", "digest", "", "", "length", "offset", "filename"} {
		if v := f[i+2]; name != "" && v != "-" {
			if len(js) > 1 {
				js = append(js, ", "...)
			}
			js = pyfmt.AppendJSONString(js, name)
			js = pyfmt.AppendJSONString(append(js, ": "...), v)
		}
	}
	return f[0] + " " + f[1] + " " + string(js) + "}"
}

// pywbIana is part of pywb 2.6.7's sample_archive/cdx/iana.cdx.
const pywbIana = `org,iana)/ 20140126200624 http://www.iana.org/ text/html 200 OSSAPWJ23L56IYVRW3GFEAR4MCJMGPTB - - 2258 334 iana.warc.gz
org,iana)/_css/2013.1/fonts/opensans-bold.ttf 20140126200625 http://www.iana.org/_css/2013.1/fonts/OpenSans-Bold.ttf application/octet-stream 200 YFUR5ALIWJMWV6FAAFRLVRQNXZQF5HRW - - 117166 198285 iana.warc.gz
org,iana)/_css/2013.1/fonts/opensans-bold.ttf 20140126200654 http://www.iana.org/_css/2013.1/fonts/OpenSans-Bold.ttf warc/revisit - YFUR5ALIWJMWV6FAAFRLVRQNXZQF5HRW - - 548 482544 iana.warc.gz
org,iana)/_css/2013.1/fonts/opensans-bold.ttf 20140126200706 http://www.iana.org/_css/2013.1/fonts/OpenSans-Bold.ttf warc/revisit - YFUR5ALIWJMWV6FAAFRLVRQNXZQF5HRW - - 552 495230 iana.warc.gz
org,iana)/_css/2013.1/fonts/opensans-bold.ttf 20140126200718 http://www.iana.org/_css/2013.1/fonts/OpenSans-Bold.ttf warc/revisit - YFUR5ALIWJMWV6FAAFRLVRQNXZQF5HRW - - 536 566542 iana.warc.gz
org,iana)/_css/2013.1/fonts/opensans-bold.ttf 20140126200738 http://www.iana.org/_css/2013.1/fonts/OpenSans-Bold.ttf warc/revisit - YFUR5ALIWJMWV6FAAFRLVRQNXZQF5HRW - - 552 578743 iana.warc.gz
org,iana)/_css/2013.1/fonts/opensans-bold.ttf 20140126200805 http://www.iana.org/_css/2013.1/fonts/OpenSans-Bold.ttf warc/revisit - YFUR5ALIWJMWV6FAAFRLVRQNXZQF5HRW - - 535 593400 iana.warc.gz
org,iana)/_css/2013.1/fonts/opensans-bold.ttf 20140126200816 http://www.iana.org/_css/2013.1/fonts/OpenSans-Bold.ttf warc/revisit - YFUR5ALIWJMWV6FAAFRLVRQNXZQF5HRW - - 554 608401 iana.warc.gz
org,iana)/_css/2013.1/fonts/opensans-bold.ttf 20140126200826 http://www.iana.org/_css/2013.1/fonts/OpenSans-Bold.ttf warc/revisit - YFUR5ALIWJMWV6FAAFRLVRQNXZQF5HRW - - 550 654593 iana.warc.gz
org,iana)/_css/2013.1/fonts/opensans-bold.ttf 20140126200912 http://www.iana.org/_css/2013.1/fonts/OpenSans-Bold.ttf warc/revisit - YFUR5ALIWJMWV6FAAFRLVRQNXZQF5HRW - - 553 670224 iana.warc.gz
org,iana)/_css/2013.1/fonts/opensans-bold.ttf 20140126200930 http://www.iana.org/_css/2013.1/fonts/OpenSans-Bold.ttf warc/revisit - YFUR5ALIWJMWV6FAAFRLVRQNXZQF5HRW - - 551 699343 iana.warc.gz
org,iana)/_css/2013.1/fonts/opensans-bold.ttf 20140126201055 http://www.iana.org/_css/2013.1/fonts/OpenSans-Bold.ttf warc/revisit - YFUR5ALIWJMWV6FAAFRLVRQNXZQF5HRW - - 552 712719 iana.warc.gz
org,iana)/_css/2013.1/fonts/opensans-bold.ttf 20140126201128 http://www.iana.org/_css/2013.1/fonts/OpenSans-Bold.ttf warc/revisit - YFUR5ALIWJMWV6FAAFRLVRQNXZQF5HRW - - 554 731718 iana.warc.gz
org,iana)/_css/2013.1/fonts/opensans-bold.ttf 20140126201228 http://www.iana.org/_css/2013.1/fonts/OpenSans-Bold.ttf warc/revisit - YFUR5ALIWJMWV6FAAFRLVRQNXZQF5HRW - - 551 745730 iana.warc.gz
org,iana)/_css/2013.1/fonts/opensans-bold.ttf 20140126201240 http://www.iana.org/_css/2013.1/fonts/OpenSans-Bold.ttf warc/revisit - YFUR5ALIWJMWV6FAAFRLVRQNXZQF5HRW - - 551 757988 iana.warc.gz
org,iana)/_css/2013.1/fonts/opensans-bold.ttf 20140126201249 http://www.iana.org/_css/2013.1/fonts/OpenSans-Bold.ttf warc/revisit - YFUR5ALIWJMWV6FAAFRLVRQNXZQF5HRW - - 552 771773 iana.warc.gz
org,iana)/_css/2013.1/fonts/opensans-bold.ttf 20140126201308 https://www.iana.org/_css/2013.1/fonts/OpenSans-Bold.ttf warc/revisit - YFUR5ALIWJMWV6FAAFRLVRQNXZQF5HRW - - 551 783712 iana.warc.gz
org,iana)/_css/2013.1/screen.css 20140126200625 http://www.iana.org/_css/2013.1/screen.css text/css 200 BUAEPXZNN44AIX3NLXON4QDV6OY2H5QD - - 8754 41238 iana.warc.gz
org,iana)/_css/2013.1/screen.css 20140126200653 http://www.iana.org/_css/2013.1/screen.css warc/revisit - BUAEPXZNN44AIX3NLXON4QDV6OY2H5QD - - 533 328367 iana.warc.gz
org,iana)/_css/2013.1/screen.css 20140126200706 http://www.iana.org/_css/2013.1/screen.css warc/revisit - BUAEPXZNN44AIX3NLXON4QDV6OY2H5QD - - 539 489005 iana.warc.gz
org,iana)/_css/2013.1/screen.css 20140126200716 http://www.iana.org/_css/2013.1/screen.css warc/revisit - BUAEPXZNN44AIX3NLXON4QDV6OY2H5QD - - 542 563417 iana.warc.gz
org,iana)/_css/2013.1/screen.css 20140126200737 http://www.iana.org/_css/2013.1/screen.css warc/revisit - BUAEPXZNN44AIX3NLXON4QDV6OY2H5QD - - 528 572623 iana.warc.gz
org,iana)/_css/2013.1/screen.css 20140126200804 http://www.iana.org/_css/2013.1/screen.css warc/revisit - BUAEPXZNN44AIX3NLXON4QDV6OY2H5QD - - 527 589212 iana.warc.gz
org,iana)/_css/2013.1/screen.css 20140126200816 http://www.iana.org/_css/2013.1/screen.css warc/revisit - BUAEPXZNN44AIX3NLXON4QDV6OY2H5QD - - 528 603125 iana.warc.gz
org,iana)/_css/2013.1/screen.css 20140126200825 http://www.iana.org/_css/2013.1/screen.css warc/revisit - BUAEPXZNN44AIX3NLXON4QDV6OY2H5QD - - 527 614971 iana.warc.gz
org,iana)/_css/2013.1/screen.css 20140126200912 http://www.iana.org/_css/2013.1/screen.css warc/revisit - BUAEPXZNN44AIX3NLXON4QDV6OY2H5QD - - 531 661876 iana.warc.gz
org,iana)/_css/2013.1/screen.css 20140126200929 http://www.iana.org/_css/2013.1/screen.css warc/revisit - BUAEPXZNN44AIX3NLXON4QDV6OY2H5QD - - 538 691096 iana.warc.gz
org,iana)/_css/2013.1/screen.css 20140126201054 http://www.iana.org/_css/2013.1/screen.css warc/revisit - BUAEPXZNN44AIX3NLXON4QDV6OY2H5QD - - 543 706476 iana.warc.gz
org,iana)/_css/2013.1/screen.css 20140126201127 http://www.iana.org/_css/2013.1/screen.css warc/revisit - BUAEPXZNN44AIX3NLXON4QDV6OY2H5QD - - 543 725445 iana.warc.gz
org,iana)/_css/2013.1/screen.css 20140126201227 http://www.iana.org/_css/2013.1/screen.css warc/revisit - BUAEPXZNN44AIX3NLXON4QDV6OY2H5QD - - 543 739461 iana.warc.gz
org,iana)/_css/2013.1/screen.css 20140126201239 http://www.iana.org/_css/2013.1/screen.css warc/revisit - BUAEPXZNN44AIX3NLXON4QDV6OY2H5QD - - 541 751731 iana.warc.gz
org,iana)/_css/2013.1/screen.css 20140126201248 http://www.iana.org/_css/2013.1/screen.css warc/revisit - BUAEPXZNN44AIX3NLXON4QDV6OY2H5QD - - 541 764454 iana.warc.gz
org,iana)/_css/2013.1/screen.css 20140126201307 https://www.iana.org/_css/2013.1/screen.css warc/revisit - BUAEPXZNN44AIX3NLXON4QDV6OY2H5QD - - 537 779533 iana.warc.gz
org,iana)/dnssec 20140126201306 http://www.iana.org/dnssec text/html 302 3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ - - 442 772827 iana.warc.gz
org,iana)/dnssec 20140126201307 https://www.iana.org/dnssec text/html 200 PHLRSX73EV3WSZRFXMWDO6BRKTVUSASI - - 2278 773766 iana.warc.gz
org,iana)/domains 20140126200825 http://www.iana.org/domains text/html 200 7UPSCLNWNZP33LGW6OJGSF2Y4CDG4ES7 - - 2912 610534 iana.warc.gz
org,iana)/domains/arpa 20140126201248 http://www.iana.org/domains/arpa text/html 200 QOFZZRN6JIKAL2JRL6ZC2VVG42SPKGHT - - 2939 759039 iana.warc.gz
org,iana)/domains/idn-tables 20140126201127 http://www.iana.org/domains/idn-tables text/html 200 HNCUFTJMOQOGAEY6T56KVC3T7TVLKGEW - - 8118 715878 iana.warc.gz
org,iana)/domains/int 20140126201239 http://www.iana.org/domains/int text/html 200 X32BBNNORV4SPEHTQF5KI5NFHSKTZK6Q - - 2482 746788 iana.warc.gz
org,iana)/domains/reserved 20140126201054 http://www.iana.org/domains/reserved text/html 200 R5AAEQX5XY5X5DG66B23ODN5DUBWRA27 - - 3573 701457 iana.warc.gz
org,iana)/domains/root 20140126200912 http://www.iana.org/domains/root text/html 200 YWA2R6UVWCYNHBZJKBTPYPZ5CJWKGGUX - - 2691 657746 iana.warc.gz
org,iana)/domains/root/db 20140126200927 http://www.iana.org/domains/root/db/ text/html 302 3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ - - 446 671278 iana.warc.gz
org,iana)/domains/root/db 20140126200928 http://www.iana.org/domains/root/db text/html 200 DHXA725IW5VJJFRTWBQT6BEZKRE7H57S - - 18365 672225 iana.warc.gz
org,iana)/domains/root/servers 20140126201227 http://www.iana.org/domains/root/servers text/html 200 AFW34N3S4NK2RJ6QWMVPB5E2AIUETAHU - - 3137 733840 iana.warc.gz`

// pywbDir is the com,example lines of pywb 2.6.7's sample_archive/cdx directory
// (url-agnost-example.cdx, dupes.cdx, example.cdx, example-extra.cdx, bad.cdx),
// in sorted order.
const pywbDir = `com,example)/ 20130729195151 http://test@example.com/ warc/revisit - B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A - - 591 355 example-url-agnostic-revisit.warc.gz
com,example)/ 20140127171200 http://example.com text/html 200 B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A - - 1046 334 dupes.warc.gz
com,example)/ 20140127171251 http://example.com warc/revisit - B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A - - 553 11875 dupes.warc.gz
com,example)/?example=1 20140103030321 http://example.com?example=1 text/html 200 B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A - - 1043 333 example.warc.gz
com,example)/?example=1 20140103030341 http://example.com?example=1 warc/revisit - B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A - - 553 1864 example.warc.gz
com,example)/?example=2 20140103030321 http://example.com?example=2 text/html 200 B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A - - 1987 0 example-extra.warc
com,example)/?example=2 20140603030341 http://example.com?example=2 warc/revisit - B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A - - 504 2701 example-extra.warc
com,example)/?example=2 20140603030351 http://example.com?example=2 warc/revisit - B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36B - - 504 2701 example-extra.warc
com,example)/?example=2 20140703030321 http://example.com?example=2 text/html 200 B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A - - 1987 0 non-existent.warc
com,example)/?example=3 20140603030351 http://example.com?example=3 warc/revisit - B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36B - - 504 2701 example-extra.warc
com,example)/?example=3 20140703030321 http://example.com?example=3 text/html 200 B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A - - 1987 0 non-existent.warc`

// seq returns lines as Answer wants them for q.
func seq(q *Query, lines []Line) iter.Seq2[Line, error] {
	lines = slices.Clone(lines)
	slices.SortStableFunc(lines, Compare)
	if q.Descending() {
		slices.Reverse(lines)
	}
	return func(yield func(Line, error) bool) {
		for _, l := range lines {
			if !yield(l, nil) {
				return
			}
		}
	}
}

func cdxjLines(cdx11, source string) []Line {
	var lines []Line
	for l := range strings.Lines(cdx11) {
		lines = append(lines, Line{Text: []byte(cdxj(strings.TrimSpace(l))), Source: source})
	}
	return lines
}

func answer(t *testing.T, query string, lines []Line) string {
	t.Helper()
	v, err := url.ParseQuery(query)
	if err != nil {
		t.Fatal(err)
	}
	q, err := ParseQuery(v, 0)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	var b bytes.Buffer
	if err := q.Answer(&b, seq(q, lines)); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return b.String()
}

// keys returns the "urlkey timestamp" of each line of cdx11.
func keys(cdx11 string) string {
	var b strings.Builder
	for l := range strings.Lines(cdx11) {
		if f := strings.Fields(l); len(f) > 1 {
			b.WriteString(f[0] + " " + f[1] + "\n")
		}
	}
	return b.String()
}

// TestAnswerPywb reproduces doctests of pywb 2.6.7's
// pywb/warcserver/index/test/test_cdxops.py (all with nosource=true), on the
// CDXJ form of the sample lines they read. want lists "urlkey timestamp" of
// pywb's expected lines, or the whole text output of fl= tests.
func TestAnswerPywb(t *testing.T) {
	iana, dir := cdxjLines(pywbIana, ""), cdxjLines(pywbDir, "")
	opensans := "org,iana)/_css/2013.1/fonts/opensans-bold.ttf "
	screen := "org,iana)/_css/2013.1/screen.css "
	domains := keys(pywbIana[strings.Index(pywbIana, "org,iana)/domains "):])
	for _, tc := range []struct {
		name, query string
		lines       []Line
		want        string
	}{
		{"Limit CDX Stream", "url=http://iana.org/_css/2013.1/fonts/opensans-bold.ttf&limit=3", iana,
			opensans + "20140126200625\n" + opensans + "20140126200654\n" + opensans + "20140126200706\n"},
		{"Reverse CDX Stream", "url=http://iana.org/_css/2013.1/fonts/opensans-bold.ttf&reverse=True&limit=3", iana,
			opensans + "20140126201308\n" + opensans + "20140126201249\n" + opensans + "20140126201240\n"},
		{"From & To", "url=http://example.com/&from=2013&to=2013", dir, "com,example)/ 20130729195151\n"},
		{"From", "url=http://example.com/&from=2014", dir, "com,example)/ 20140127171200\ncom,example)/ 20140127171251\n"},
		{"No results", "url=http://example.com/&to=2012", dir, ""},
		{"No matching results", "url=http://iana.org/dont_have_this&reverse=True&limit=2", iana, ""},
		{"Filter cdx (default: contains)", "url=http://iana.org/domains&matchType=prefix&filter=mimetype:html", iana, domains},
		{"Filter cdx (regex)", "url=http://iana.org/domains&matchType=prefix&filter=~mimetype:.*/html$", iana, domains},
		{"Filter cdx (exact)", "url=http://iana.org/domains&matchType=prefix&filter==mimetype:text/html", iana, domains},
		{"Filter statuscode", "url=http://iana.org/_css/2013.1/screen.css&filter=statuscode:200", iana, screen + "20140126200625\n"},
		{"Filter Alt field name", "url=http://iana.org/_css/2013.1/screen.css&filter=status:200", iana, screen + "20140126200625\n"},
		{"Filter -- no field specified", "url=http://iana.org/_css/2013.1/screen.css&filter=screen.css 20140126200625", iana, screen + "20140126200625\n"},
		{"Filter -- no such field, no matches", "url=http://iana.org/_css/2013.1/screen.css&filter=blah:200", iana, ""},
		{"Filter exact -- (* prefix)", "url=http://example.com*&filter==urlkey:com,example)/?example=1", dir,
			"com,example)/?example=1 20140103030321\ncom,example)/?example=1 20140103030341\n"},
		{"Filter exact invert", "url=http://example.com&matchType=prefix&filter=!=urlkey:com,example)/?example=1&filter=!=urlkey:com,example)/?example=2&filter=!=urlkey:com,example)/?example=3", dir,
			"com,example)/ 20130729195151\ncom,example)/ 20140127171200\ncom,example)/ 20140127171251\n"},
		{"Filter contains", "url=http://example.com&matchType=prefix&filter=urlkey:example=1", dir,
			"com,example)/?example=1 20140103030321\ncom,example)/?example=1 20140103030341\n"},
		{"Filter contains invert", "url=http://example.com&matchType=prefix&filter=!urlkey:example=", dir,
			"com,example)/ 20130729195151\ncom,example)/ 20140127171200\ncom,example)/ 20140127171251\n"},
		{"Filter regex", "url=http://example.com&matchType=prefix&filter=~urlkey:.*example=1$", dir,
			"com,example)/?example=1 20140103030321\ncom,example)/?example=1 20140103030341\n"},
		{"Filter regex invert", "url=http://example.com&matchType=prefix&filter=!~urlkey:.*example=[0-9]$", dir,
			"com,example)/ 20130729195151\ncom,example)/ 20140127171200\ncom,example)/ 20140127171251\n"},
		{"Collapse by timestamp", "url=http://iana.org/_css/2013.1/screen.css&collapseTime=11", iana,
			screen + "20140126200625\n" + screen + "20140126200653\n" + screen + "20140126201054\n"},
		{"Sort by closest timestamp + field select output", "closest=20140126200826&url=http://iana.org/_css/2013.1/fonts/opensans-bold.ttf&fields=timestamp&limit=10&output=text", iana,
			"20140126200826\n20140126200816\n20140126200805\n20140126200912\n20140126200738\n20140126200930\n20140126200718\n20140126200706\n20140126200654\n20140126200625\n"},
		{"In case of both reverse and closest, closest takes precedence", "closest=20140126200826&url=http://iana.org/_css/2013.1/fonts/opensans-bold.ttf&fields=timestamp&limit=3&reverse=True&output=text", iana,
			"20140126200826\n20140126200816\n20140126200805\n"},
		{"closest dnssec 1", "closest=20140126201306&url=http://iana.org/dnssec", iana, "org,iana)/dnssec 20140126201306\norg,iana)/dnssec 20140126201307\n"},
		{"closest dnssec 2", "closest=20140126201307&url=http://iana.org/dnssec", iana, "org,iana)/dnssec 20140126201307\norg,iana)/dnssec 20140126201306\n"},
		{"equal dist prefer earlier", "closest=20140126200700&url=http://iana.org/_css/2013.1/fonts/opensans-bold.ttf&limit=2", iana,
			opensans + "20140126200654\n" + opensans + "20140126200706\n"},
		{"closest 200659", "closest=20140126200659&url=http://iana.org/_css/2013.1/fonts/opensans-bold.ttf&limit=2&fields=timestamp&output=text", iana, "20140126200654\n20140126200706\n"},
		{"closest 200701", "closest=20140126200701&url=http://iana.org/_css/2013.1/fonts/opensans-bold.ttf&limit=2&fields=timestamp&output=text", iana, "20140126200706\n20140126200654\n"},
	} {
		got := answer(t, tc.query, tc.lines)
		if !strings.Contains(tc.query, "output=text") {
			got = keys(got)
		}
		if got != tc.want {
			t.Errorf("%s: %s:\n got %q\nwant %q", tc.name, tc.query, got, tc.want)
		}
	}
	// The lines themselves are the index's, unchanged without a source.
	if got, want := answer(t, "url=http://iana.org/dnssec&limit=1", iana), cdxj(pywbIana[strings.Index(pywbIana, "org,iana)/dnssec"):])+"\n"; !strings.HasPrefix(want, got) || got == "" {
		t.Errorf("dnssec: %q", got)
	}
}

// TestAnswerOutput checks the output forms. Plain cdxj and json are those of
// the teamarchive CDX server before this package (its collector.write).
func TestAnswerOutput(t *testing.T) {
	pywb := `com,example)/ 20240101000000 {"url": "http://example.com/", "mime": "text/html", "status": "200", "digest": "sha1:X", "length": "10", "offset": "0", "filename": "a.warc.gz"}`
	compact := `com,example)/ 20240102000000 {"url":"http://example.com/","status":"200","n":1.50,"b":true}`
	empty := `com,example)/ 20240103000000 {}`
	lines := []Line{{[]byte(pywb), "b1.zip"}, {[]byte(compact), "b\u00e9"}, {[]byte(empty), "c"}}
	for _, tc := range []struct{ query, want string }{
		{"url=example.com", `com,example)/ 20240101000000 {"url": "http://example.com/", "mime": "text/html", "status": "200", "digest": "sha1:X", "length": "10", "offset": "0", "filename": "a.warc.gz", "source": "b1.zip"}
com,example)/ 20240102000000 {"url":"http://example.com/","status":"200","n":1.50,"b":true,"source":"b\u00e9"}
com,example)/ 20240103000000 {"source":"c"}
`},
		{"url=example.com&output=json", `{"urlkey": "com,example)/", "timestamp": "20240101000000", "url": "http://example.com/", "mime": "text/html", "status": "200", "digest": "sha1:X", "length": "10", "offset": "0", "filename": "a.warc.gz", "source": "b1.zip"}
{"urlkey":"com,example)/","timestamp":"20240102000000","url":"http://example.com/","status":"200","n":1.50,"b":true,"source":"b\u00e9"}
{"urlkey":"com,example)/","timestamp":"20240103000000","source":"c"}
`},
		// fl= as pywb's to_cdxj and to_json: in order, once, present ones only.
		{"url=example.com&fl=status,url,timestamp,status,mimetype", `com,example)/ 20240101000000 {"status": "200", "url": "http://example.com/"}
com,example)/ 20240102000000 {"status":"200","url":"http://example.com/"}
com,example)/ 20240103000000 {}
`},
		{"url=example.com&fields=source,timestamp,n&output=json", `{"source": "b1.zip", "timestamp": "20240101000000"}
{"source":"b\u00e9","timestamp":"20240102000000","n":1.50}
{"source":"c","timestamp":"20240103000000"}
`},
		// output=text as pywb's to_text: values, "-" for a missing field.
		{"url=example.com&output=text", `com,example)/ 20240101000000 http://example.com/ text/html 200 sha1:X 10 0 a.warc.gz b1.zip
com,example)/ 20240102000000 http://example.com/ 200 1.5 True bé
com,example)/ 20240103000000 c
`},
		{"url=example.com&output=text&fl=urlkey,timestamp,mimetype,mime,b,source", `com,example)/ 20240101000000 - text/html - b1.zip
com,example)/ 20240102000000 - - True bé
com,example)/ 20240103000000 - - - c
`},
		{"url=example.com&output=json&sort=reverse&limit=2", `{"urlkey":"com,example)/","timestamp":"20240103000000","source":"c"}
{"urlkey":"com,example)/","timestamp":"20240102000000","url":"http://example.com/","status":"200","n":1.50,"b":true,"source":"b\u00e9"}
`},
		{"url=example.com&filter=~source:b&filter=!=n:1.5&filter=b:True", ""},
		{"url=example.com&filter=~source:b&filter==n:1.5&filter=b:True&fl=source", `com,example)/ 20240102000000 {"source":"b\u00e9"}
`},
	} {
		if got := answer(t, tc.query, lines); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.query, got, tc.want)
		}
	}
	// Without a source, nothing is added, and text is the line itself.
	for _, l := range lines {
		l.Source = ""
		for _, output := range []string{"cdxj", "text"} {
			if got := answer(t, "url=example.com&output="+output, []Line{l}); got != string(l.Text)+"\n" {
				t.Errorf("%s without source: %s", output, got)
			}
		}
	}
}

// TestAnswerCollapse checks collapse= as the Internet Archive's
// CollapseFieldFilter applies it, and that with sort=reverse it keeps the lines
// it keeps in ascending order.
func TestAnswerCollapse(t *testing.T) {
	var lines []Line
	for _, s := range []string{
		`com,example)/ 20240101000000 {"digest": "A", "status": "200"}`,
		`com,example)/ 20240101000001 {"digest": "A", "status": "200"}`,
		`com,example)/ 20240101010000 {"digest": "B", "status": "200"}`,
		`com,example)/ 20240102000000 {"digest": "B", "status": "404"}`,
		`com,example)/ 20240102000001 {"digest": "A", "status": "404"}`,
		`com,example)/ 20250101000000 {"digest": "A"}`,
	} {
		lines = append(lines, Line{Text: []byte(s)})
	}
	for _, tc := range []struct{ query, want string }{
		{"url=example.com&collapse=digest&fl=timestamp&output=text", "20240101000000\n20240101010000\n20240102000001\n"},
		{"url=example.com&collapse=digest&fl=timestamp&output=text&sort=reverse", "20240102000001\n20240101010000\n20240101000000\n"},
		{"url=example.com&collapse=digest&fl=timestamp&output=text&sort=reverse&limit=2", "20240102000001\n20240101010000\n"},
		{"url=example.com&collapse=timestamp:8&fl=timestamp&output=text", "20240101000000\n20240102000000\n20250101000000\n"},
		{"url=example.com&collapse=timestamp:8&fl=timestamp&output=text&sort=reverse", "20250101000000\n20240102000000\n20240101000000\n"},
		{"url=example.com&collapse=statuscode&fl=timestamp&output=text&reverse=1", "20250101000000\n20240102000000\n20240101000000\n"},
		{"url=example.com&collapse=timestamp:8&collapse=status&fl=timestamp&output=text", "20240101000000\n20240102000000\n20250101000000\n"},
		// Chained: ...0101010000 has a new digest, which the digest collapse
		// remembers, but the status collapse drops it; so ...0102000000 has
		// an unchanged digest.
		{"url=example.com&collapse=digest&collapse=status&fl=timestamp&output=text", "20240101000000\n20240102000001\n"},
		{"url=example.com&collapseTime=8&fl=timestamp&output=text", "20240101000000\n20240102000000\n20250101000000\n"},
		{"url=example.com&collapse=timestamp:8&closest=20240102000001&fl=timestamp&output=text", "20240102000000\n20240101000000\n20250101000000\n"},
		{"url=example.com&filter=!digest:B&collapse=digest&fl=timestamp&output=text", "20240101000000\n"},
	} {
		if got := answer(t, tc.query, lines); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.query, got, tc.want)
		}
	}
}

// TestAnswerStops checks that Answer reads no further than it must.
func TestAnswerStops(t *testing.T) {
	lines := cdxjLines(pywbIana, "")
	for _, tc := range []struct {
		query string
		read  int
	}{
		{"url=http://iana.org/_css/2013.1/fonts/opensans-bold.ttf&limit=3", 4},
		{"url=http://iana.org/dnssec", 36},
		{"url=http://iana.org/dnssec&sort=reverse", 12},
		{"url=http://iana.org/dnssec&sort=reverse&limit=1", 10},
		{"url=http://iana.org/_css/2013.1/fonts/opensans-bold.ttf&closest=20140126200625&limit=1", 18},
	} {
		v, _ := url.ParseQuery(tc.query)
		q, _ := ParseQuery(v, 0)
		read := 0
		counted := func(yield func(Line, error) bool) {
			for l, err := range seq(q, lines) {
				read++
				if !yield(l, err) {
					return
				}
			}
		}
		if err := q.Answer(&bytes.Buffer{}, counted); err != nil || read != tc.read {
			t.Errorf("%s: read %d lines, want %d (%v)", tc.query, read, tc.read, err)
		}
	}
}

func TestAnswerErrors(t *testing.T) {
	q, _ := ParseQuery(url.Values{"url": {"example.com"}}, 0)
	var b bytes.Buffer
	bad := []Line{{Text: []byte(`com,example)/ 2024 {"x": "1"}`)}, {Text: []byte("com,example)/ 2025 not json"), Source: "s.zip"}}
	if err := q.Answer(&b, seq(q, bad)); !errors.Is(err, cdx.ErrLine) || !strings.Contains(err.Error(), "s.zip") || b.Len() != 0 {
		t.Errorf("bad line: %v, wrote %q", err, b.String())
	}
	errRead := errors.New("read failed")
	failing := func(yield func(Line, error) bool) {
		if yield(bad[0], nil) {
			yield(Line{}, errRead)
		}
	}
	if err := q.Answer(&b, failing); err != errRead || b.Len() != 0 {
		t.Errorf("failing read: %v, wrote %q", err, b.String())
	}
}

// TestCompare orders the lines of pywb's "Merge Sort Multipe CDX Sources"
// doctest (test_cdxops.py: dupes.cdx and iana.cdx, url http://iana.org/) as
// pywb's merge does.
func TestCompare(t *testing.T) {
	dupes := cdxjLines(`org,iana)/ 20140127171238 http://www.iana.org/ warc/revisit - OSSAPWJ23L56IYVRW3GFEAR4MCJMGPTB - - 536 2678 dupes.warc.gz
org,iana)/ 20140127171238 http://iana.org unk 302 3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ - - 343 1858 dupes.warc.gz`, "dupes")
	lines := append(dupes, cdxjLines(pywbIana, "iana")...)
	for _, desc := range []bool{false, true} {
		q := &Query{Start: "org,iana)/", End: "org,iana)/!", Output: "text", Fields: []string{"timestamp", "url", "source"}, Reverse: desc}
		var b bytes.Buffer
		if err := q.Answer(&b, seq(q, lines)); err != nil {
			t.Fatal(err)
		}
		want := []string{"20140126200624 http://www.iana.org/ iana\n", "20140127171238 http://iana.org dupes\n", "20140127171238 http://www.iana.org/ dupes\n"}
		if desc {
			slices.Reverse(want)
		}
		if b.String() != strings.Join(want, "") {
			t.Errorf("descending %v:\n%s", desc, b.String())
		}
	}
	if c := Compare(Line{Text: []byte("a 1 {}"), Source: "b"}, Line{Text: []byte("a 1 {}"), Source: "a"}); c != 1 {
		t.Errorf("Compare by source: %d", c)
	}
}

// TestFields checks the fields as pywb's CDXObject holds them after json.loads
// and its aggregator's add_source, through output=text.
func TestFields(t *testing.T) {
	for _, tc := range []struct{ line, source, want string }{
		{`a 1 {"s": 1, "x": -0, "f": 1E5, "g": 0.1, "t": true, "n": null, "o": {"a": [1]}, "e": "\u00e9\n"}`, "b",
			"a 1 1 0 100000.0 0.1 True None {\"a\": [1]} é\n b"},
		// A repeated key keeps its place and takes the last value; a source is prefixed.
		{`a 1 {"url": "u", "source": "old", "original": "v"}`, "new", "a 1 v new:old"},
	} {
		q := &Query{Start: "a", End: "b", Output: "text"}
		var b bytes.Buffer
		if err := q.Answer(&b, seq(q, []Line{{Text: []byte(tc.line), Source: tc.source}})); err != nil || b.String() != tc.want+"\n" {
			t.Errorf("%s:\n got %q, %v\nwant %q", tc.line, b.String(), err, tc.want+"\n")
		}
	}
}

func TestMayMatch(t *testing.T) {
	q := &Query{Start: "com,example)/b", End: "com,example)/c"}
	for _, tc := range []struct {
		first, last string
		cut, want   bool
	}{
		{"com,example)/a", "com,example)/b 2024", false, true},
		{"com,example)/c", "com,example)/d", false, false},
		{"com,example)/", "com,example)/a", false, false},
		{"com,example)/", "com,example)/", true, true},
		{"a", "z", false, true},
	} {
		if got := q.MayMatch(tc.first, tc.last, tc.cut); got != tc.want {
			t.Errorf("MayMatch(%q, %q, %v) = %v", tc.first, tc.last, tc.cut, got)
		}
	}
}
