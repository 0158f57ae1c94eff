package datatxt_test

import (
	"fmt"
	"strings"

	"github.com/webkeep/webkeep/shared/datatxt"
)

func ExampleFile_Allowed() {
	f, err := datatxt.Parse(strings.NewReader(`# /robots.txt for http://www.fict.org/
User-agent: unhipbot
Disallow: /

User-agent: *
Disallow: /org/plans.html
Allow: /org/
Disallow: /
`))
	if err != nil {
		panic(err)
	}
	fmt.Println(f.Allowed("UnhipBot/0.1", "/org/about.html"))
	fmt.Println(f.Allowed("FigTree/0.1 Robot", "/org/about.html"))
	fmt.Println(f.Allowed("FigTree/0.1 Robot", "/org/plans.html"))
	fmt.Println(f.Allowed("UnhipBot/0.1", "/robots.txt"))
	// Output:
	// false
	// true
	// false
	// true
}

func ExampleFile_Datasets() {
	f, err := datatxt.Parse(strings.NewReader(`- path: iris/
  name: iris
  description: Fisher's iris data set.
- path: [mtcars/data.csv, mtcars/data.rds]
  name: mtcars
  license: CC0-1.0
`))
	if err != nil {
		panic(err)
	}
	fmt.Println(f.Format)
	for _, d := range f.Datasets() {
		fmt.Printf("%s %v license=%q\n", d.Name, d.Paths, d.License)
	}
	// Output:
	// yaml
	// iris [iris/] license=""
	// mtcars [mtcars/data.csv mtcars/data.rds] license="CC0-1.0"
}
