package cdxserver_test

import (
	"fmt"
	"net/url"
	"os"

	"github.com/webkeep/webkeep/shared/cdxserver"
)

func Example() {
	v, _ := url.ParseQuery("url=example.com/*&filter=!=status:404&collapse=urlkey&fl=url,status")
	q, err := cdxserver.ParseQuery(v, 5000)
	if err != nil {
		fmt.Println(err)
		return
	}
	index := []string{ // sorted, as an index file holds them
		`com,example)/ 20240101000000 {"url": "http://example.com/", "status": "200"}`,
		`com,example)/ 20240102000000 {"url": "http://example.com/", "status": "200"}`,
		`com,example)/a 20240101000000 {"url": "http://example.com/a", "status": "404"}`,
		`com,example)/b 20240101000000 {"url": "http://example.com/b", "status": "301"}`,
	}
	lines := func(yield func(cdxserver.Line, error) bool) {
		for _, l := range index {
			if !yield(cdxserver.Line{Text: []byte(l), Source: "b1.zip"}, nil) {
				return
			}
		}
	}
	if err := q.Answer(os.Stdout, lines); err != nil {
		fmt.Println(err)
	}
	// Output:
	// com,example)/ 20240101000000 {"url": "http://example.com/", "status": "200"}
	// com,example)/b 20240101000000 {"url": "http://example.com/b", "status": "301"}
}
