package cdxserver

import (
	"bytes"
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/webkeep/webkeep/internal/pyfmt"
	"github.com/webkeep/webkeep/shared/cdx"
)

func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{
		"url=*.example.com&from=2024&to=202406&limit=5&output=json",
		"url=http://example.com/api&method=post&requestBody=a%3D1%26b%3D2",
		"url=example.com/a*&filter=!~mimetype:text/.*&filter==status:200&collapse=timestamp:10&fl=urlkey,timestamp",
		"url=example.com&closest=20140126200826&sort=closest&limit=3&reverse=1",
		"url=example.com&page=1&pageSize=4&showNumPages=true&output=text",
		"url=example.com&filter=~url:(&matchType=regex",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, _ := url.ParseQuery(s)
		q, err := ParseQuery(v, 100)
		if err != nil {
			if !errors.Is(err, ErrQuery) {
				t.Fatalf("%q: %v does not wrap ErrQuery", s, err)
			}
			return
		}
		if q.Limit < 1 || q.Limit > 100 || !slices.Contains([]string{"cdxj", "json", "text"}, q.Output) || q.Page < 0 || q.PageSize < 0 {
			t.Fatalf("%q: %+v", s, q)
		}
		for _, f := range q.Filters {
			g, err := ParseFilter(f.String())
			if err != nil || g.String() != f.String() {
				t.Fatalf("%q: filter %q reparsed as %q, %v", s, f.String(), g.String(), err)
			}
		}
	})
}

// legacyAnswer is the teamarchive CDX server's query before this package
// (cdxquery.go collector.scan and collector.write) over one sorted index: the
// Limit smallest lines of the range and times, "source" added.
func legacyAnswer(q *Query, lines []Line) (string, bool) {
	var kept []Line
	for _, l := range lines {
		if s := string(l.Text); s < q.Start || s >= q.End {
			continue
		}
		_, ts, _, err := cdx.SplitLine(l.Text)
		if err != nil {
			return "", false
		}
		if q.From != "" && string(ts) < q.From || q.To != "" && string(ts) > q.To {
			continue
		}
		kept = append(kept, l)
	}
	slices.SortStableFunc(kept, Compare)
	kept = kept[:min(len(kept), q.Limit)]
	var buf []byte
	for _, l := range kept {
		key, ts, js, _ := cdx.SplitLine(l.Text)
		sep, colon := ", ", ": "
		if !bytes.Contains(js, []byte(`": `)) {
			sep, colon = ",", ":"
		}
		if q.Output == "json" {
			buf = append(buf, `{"urlkey"`...)
			buf = append(buf, colon...)
			buf = pyfmt.AppendJSONString(buf, string(key))
			buf = append(buf, sep+`"timestamp"`+colon...)
			buf = pyfmt.AppendJSONString(buf, string(ts))
			if inner := bytes.TrimSpace(js[1 : len(js)-1]); len(inner) > 0 {
				buf = append(buf, sep...)
				buf = append(buf, inner...)
			}
		} else {
			buf = append(buf, key...)
			buf = append(buf, ' ')
			buf = append(buf, ts...)
			buf = append(buf, ' ')
			buf = append(buf, bytes.TrimRight(js[:len(js)-1], " ")...)
			if len(bytes.TrimSpace(js[1:len(js)-1])) == 0 {
				sep = ""
			}
		}
		buf = append(buf, sep+`"source"`+colon...)
		buf = pyfmt.AppendJSONString(buf, l.Source)
		buf = append(buf, "}\n"...)
	}
	return string(buf), true
}

func FuzzAnswer(f *testing.F) {
	pywb := `com,example)/ 20240101000000 {"url": "http://example.com/", "mime": "text/html", "status": "200", "digest": "A", "length": "10", "offset": "0", "filename": "a.warc.gz"}`
	compact := `com,example)/ 20240102 {"url":"http://example.com/","status":"404","digest":"A","n":1.5e3,"x":[1,{"y":null}]}`
	data := pywb + "\n" + compact + "\ncom,example)/ 2025 {}\ncom,example)/a 20240101000000 {\"url\": \"http://example.com/a\", \"digest\": \"\\u00e9\"}\n"
	for _, s := range []string{
		"url=example.com", "url=example.com&output=json&limit=2", "url=example.com*&sort=reverse&collapse=digest&limit=2",
		"url=example.com&filter=~digest:A&filter=!status:404&fl=digest,urlkey&output=text", "url=*.example.com&closest=2024&limit=2&output=json",
		"url=example.com/*&collapseTime=4&reverse=1&from=2024&to=2024", "url=example.com&fl=n,x,url&output=json",
	} {
		f.Add(s, data, false)
		f.Add(s, data, true)
	}
	f.Add("url=example.com", pywb+"\ncom,example)/ 20240101 broken\n", false)
	f.Fuzz(func(t *testing.T, query, data string, noSource bool) {
		v, _ := url.ParseQuery(query)
		q, err := ParseQuery(v, 50)
		if err != nil {
			return
		}
		var lines []Line
		for i, s := range strings.Split(data, "\n") {
			if strings.TrimSpace(s) == "" {
				continue
			}
			l := Line{Text: []byte(s), Source: [...]string{"a.zip", "b.zip", "é"}[i%3]}
			if noSource {
				l.Source = ""
			}
			lines = append(lines, l)
		}
		run := func(q *Query) (string, error) {
			var b bytes.Buffer
			err := q.Answer(&b, seq(q, lines))
			if err != nil && b.Len() > 0 {
				t.Fatalf("%q: wrote %q and failed: %v", query, b.String(), err)
			}
			return b.String(), err
		}
		got, err := run(q)
		if err != nil {
			if !errors.Is(err, cdx.ErrLine) {
				t.Fatalf("%q: %v", query, err)
			}
			return
		}
		if q.Output != "text" && strings.Count(got, "\n") > q.Limit {
			t.Fatalf("%q: more than %d lines:\n%s", query, q.Limit, got)
		}
		plain := len(q.Filters) == 0 && len(q.Collapse) == 0 && q.CollapseTime == 0 && q.Fields == nil && !q.Reverse && q.Closest == ""
		if want, ok := legacyAnswer(q, lines); plain && !noSource && q.Output != "text" && ok && got != want {
			t.Fatalf("%q: not the former output:\n got %s\nwant %s", query, got, want)
		}
		// Descending is the ascending answer reversed, collapsed in ascending order.
		if q.Descending() && q.Output != "text" {
			asc := *q
			asc.Reverse, asc.Limit = false, 0
			all, err := run(&asc)
			if err != nil {
				return
			}
			want := strings.SplitAfter(all, "\n")
			want = want[:len(want)-1]
			slices.Reverse(want)
			if w := strings.Join(want[:min(len(want), q.Limit)], ""); got != w {
				t.Fatalf("%q: descending:\n got %s\nwant %s", query, got, w)
			}
		}
	})
}
