package urlrules

import (
	"errors"
	"os"
	"reflect"
	"testing"
)

func compileFile(t *testing.T, name string) *Rules {
	t.Helper()
	src, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := Compile(name, src)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

type matchCase struct {
	url       string
	domain    string
	website   string
	options   map[string]string
	canonical string
	err       error
}

func checkMatches(t *testing.T, rs *Rules, tests []matchCase) {
	t.Helper()
	for _, tt := range tests {
		m, err := rs.Match(tt.url)
		if tt.err != nil {
			if !errors.Is(err, tt.err) {
				t.Errorf("%s: Match = %+v, %v; want %v", tt.url, m, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.url, err)
			continue
		}
		want := &Match{URL: tt.url, Domain: tt.domain, Website: tt.website, Options: tt.options, Canonical: tt.canonical}
		if want.Options == nil {
			want.Options = map[string]string{}
		}
		if !reflect.DeepEqual(m, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.url, m, want)
		}
	}
}

// The document's long_form example: "test.3.59.w.en.example.org" gives the
// website test.www.example.org with version 3.59 and language en, and
// "snap.6.22.wwww.fr.example.org would become snap.www.example.org".
// Language is in the canonalize namespace, so the canonical URL keeps it.
func TestMatchLongForm(t *testing.T) {
	checkMatches(t, compileFile(t, "long_form.rules"), []matchCase{
		{url: "test.3.59.w.en.example.org", domain: "example.org", website: "test.www.example.org",
			options: map[string]string{"version": "3.59", "language": "en"}, canonical: "http://test.www.en.example.org/"},
		{url: "snap.6.22.wwww.fr.example.org", domain: "example.org", website: "snap.www.example.org",
			options: map[string]string{"version": "6.22", "language": "fr"}, canonical: "http://snap.www.fr.example.org/"},
		// Defaults: "When the version is not specified in the URI, use 1.0."
		{url: "http://Test.WW.Example.ORG/Some/Path?x=1#top", domain: "example.org", website: "test.www.example.org",
			options: map[string]string{"version": "1.0", "language": ""}, canonical: "http://test.www.example.org/Some/Path?x=1"},
		// www is required: "we do not allow the empty string".
		{url: "test.3.59.example.org", err: ErrNoDomainRule},
		{url: "test.wwwww.example.org", err: ErrNoDomainRule},
		{url: "example.org", err: ErrNoDomainRule},
	})
}

func TestMatchDocumentSubdomainExamples(t *testing.T) {
	checkMatches(t, compileFile(t, "four_variables.rules"), []matchCase{
		{url: "3.5.snap.en.www.example.com", domain: "example.com", website: "snap.www.example.com",
			options: map[string]string{"version": "3.5", "language": "en"}, canonical: "http://snap.www.example.com/"},
		// "we always replace that entry, even when <nothing> is used".
		{url: "snap.example.com", domain: "example.com", website: "snap.www.example.com",
			options: map[string]string{"version": "1.0", "language": ""}, canonical: "http://snap.www.example.com/"},
		{url: "http://foo.snap.m2osw.com/", domain: "m2osw.com", website: "foo.snap.m2osw.com",
			canonical: "http://foo.snap.m2osw.com/"},
		{url: "http://foo.bar.baz.m2osw.com/", err: ErrNoDomainRule},
	})
}

// The document's canonicalization example: "the URL http://en.m2osw.com/ is
// canonalized into http://www.m2osw.com/en/", plus the website rules'
// protocol, port, path and query parts.
func TestMatchCanonalize(t *testing.T) {
	checkMatches(t, compileFile(t, "m2osw.rules"), []matchCase{
		{url: "http://en.m2osw.com/", domain: "m2osw.com", website: "www.m2osw.com",
			options: map[string]string{"language": "en", "page": "1", "sort": "asc"}, canonical: "http://www.m2osw.com/en/?sort=asc"},
		{url: "http://www.m2osw.com/en/", domain: "m2osw.com", website: "www.m2osw.com",
			options: map[string]string{"language": "en", "page": "1", "sort": "asc"}, canonical: "http://www.m2osw.com/en/?sort=asc"},
		// Nowhere in the URL: the default of the official position.
		{url: "https://m2osw.com/about", domain: "m2osw.com", website: "www.m2osw.com",
			options: map[string]string{"language": "en", "page": "1", "sort": "asc"}, canonical: "http://www.m2osw.com/en/about?sort=asc"},
		// In two places: the official position wins.
		{url: "http://de.m2osw.com/fr/a/b.html?page=3&sort=desc&utm=x", domain: "m2osw.com", website: "www.m2osw.com",
			options: map[string]string{"language": "fr", "page": "3", "sort": "desc"}, canonical: "http://www.m2osw.com/fr/a/b.html?sort=desc&utm=x"},
		// The path variable matches a whole segment only.
		{url: "http://www.m2osw.com/english/", domain: "m2osw.com", website: "www.m2osw.com",
			options: map[string]string{"language": "en", "page": "1", "sort": "asc"}, canonical: "http://www.m2osw.com/en/english/?sort=asc"},
		// A query value the rule does not accept fails the rule.
		{url: "http://www.m2osw.com/?page=last", err: ErrNoWebsiteRule},
		// HTTPS on port 8888 is the admin website; the canonical URL keeps
		// HTTPS because the rule allows nothing else.
		{url: "https://www.m2osw.com:8888/admin/users", domain: "m2osw.com", website: "www.m2osw.com:8888/admin",
			options: map[string]string{"language": "en"}, canonical: "https://www.m2osw.com:8888/admin/users"},
		{url: "http://www.m2osw.com:8888/admin/users", domain: "m2osw.com", website: "www.m2osw.com:8888",
			options: map[string]string{"language": "en", "page": "1", "sort": "asc"}, canonical: "http://www.m2osw.com:8888/en/admin/users?sort=asc"},
		{url: "ftp://www.m2osw.com/", err: ErrNoWebsiteRule},
		{url: "http://ww.en.fr.m2osw.com/", err: ErrNoDomainRule},
	})
}

// The document's "Test 1" and the query that names a website.
func TestMatchWebsiteKeys(t *testing.T) {
	checkMatches(t, compileFile(t, "example_net.rules"), []matchCase{
		{url: "http://staff.example.net/snap/hours/2011-10", domain: "example.net", website: "staff.example.net/snap",
			canonical: "http://staff.example.net/snap/hours/2011-10"},
		{url: "http://www.example.net/snap/book/seo", domain: "example.net", website: "www.example.net/snap",
			canonical: "http://www.example.net/snap/book/seo"},
		{url: "http://www.example.net/snap", domain: "example.net", website: "www.example.net/snap",
			canonical: "http://www.example.net/snap/"},
		// The path may come in the q parameter.
		{url: "http://www.example.net/?q=snap/book/seo&x=1", domain: "example.net", website: "www.example.net/snap",
			canonical: "http://www.example.net/snap/book/seo?x=1"},
		{url: "http://snap.example.net/?site=abc", domain: "example.net", website: "snap.example.net?site=abc",
			canonical: "http://snap.example.net/?site=abc"},
		{url: "http://example.net/snapshot", domain: "example.net", website: "example.net",
			canonical: "http://example.net/snapshot"},
		{url: "http://a.b.example.net/", err: ErrNoDomainRule},
	})
}

func TestMatchRegisteredDomain(t *testing.T) {
	rs, err := Compile("any", []byte(`any { protocol = any; }`))
	if err != nil {
		t.Fatal(err)
	}
	checkMatches(t, rs, []matchCase{
		{url: "http://a.b.example.co.uk/x", domain: "example.co.uk", website: "a.b.example.co.uk",
			canonical: "http://a.b.example.co.uk/x"},
		{url: "http://user:pw@127.0.0.1:8080", domain: "127.0.0.1", website: "127.0.0.1:8080",
			canonical: "http://127.0.0.1:8080/"},
		{url: "http://[::1]/", domain: "::1", website: "[::1]", canonical: "http://[::1]/"},
		{url: "http://localhost./", domain: "localhost", website: "localhost", canonical: "http://localhost/"},
		{url: "http://", err: ErrURL},
		{url: "http://a b/", err: ErrURL},
		{url: "]", err: ErrURL},
	})
}

// Hosts are matched in their Unicode form (UTS #46): the ASCII ("xn--") and the
// Unicode spellings of a name, in any case or width, give the same match, written
// in ASCII; a rule may name a sub-domain in Unicode ("läden"); the public suffix is
// found for either spelling (公司.cn and рф are on the list as xn-- names).
func TestMatchInternationalHosts(t *testing.T) {
	rs, err := Compile("idn", []byte(`shops { optional shop = website("läden|shop", "shop"); }
any { protocol = any; }`))
	if err != nil {
		t.Fatal(err)
	}
	bücher := matchCase{domain: "xn--bcher-kva.de", website: "shop.xn--bcher-kva.de", canonical: "http://shop.xn--bcher-kva.de/a"}
	var tests []matchCase
	for _, u := range []string{"http://läden.bücher.de/a", "http://LÄDEN.BÜCHER.DE/a", "http://xn--lden-loa.xn--bcher-kva.de/a", "http://ｌäｄｅｎ.bücher.de/a"} {
		c := bücher
		c.url = u
		tests = append(tests, c)
	}
	tests = append(tests,
		matchCase{url: "http://shop.xn--e1afmkfd.xn--p1ai/", domain: "xn--e1afmkfd.xn--p1ai", website: "shop.xn--e1afmkfd.xn--p1ai", canonical: "http://shop.xn--e1afmkfd.xn--p1ai/"},
		matchCase{url: "http://shop.пример.рф/", domain: "xn--e1afmkfd.xn--p1ai", website: "shop.xn--e1afmkfd.xn--p1ai", canonical: "http://shop.xn--e1afmkfd.xn--p1ai/"},
		matchCase{url: "http://shop.例子.公司.cn/", domain: "xn--fsqu00a.xn--55qx5d.cn", website: "shop.xn--fsqu00a.xn--55qx5d.cn", canonical: "http://shop.xn--fsqu00a.xn--55qx5d.cn/"},
		matchCase{url: "http://Shop.My_Host.org/", domain: "my_host.org", website: "shop.my_host.org", canonical: "http://shop.my_host.org/"},
	)
	checkMatches(t, rs, tests)
}
