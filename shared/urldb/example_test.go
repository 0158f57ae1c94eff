package urldb_test

import (
	"fmt"
	"os"

	"github.com/webkeep/webkeep/shared/httpmsg"
	"github.com/webkeep/webkeep/shared/urldb"
)

// Load a database given as files (as the extension receives them), look a URL
// up and judge a response for its record.
func Example() {
	data, err := os.ReadFile("testdata/wwt-url-database/wwtweb.blob.core.windows.net.yaml")
	if err != nil {
		panic(err)
	}
	db, err := urldb.LoadFiles(urldb.File{Name: "db/wwtweb.blob.core.windows.net.yaml", Data: data})
	if err != nil {
		panic(err)
	}
	d, rec, ok := db.Lookup("http://WWTWEB.blob.core.windows.net/drops/./WWTSDK.msi#x")
	fmt.Println(ok, d.Name, rec.Path, rec.ContentLength)

	v := urldb.CheckResponse(rec, urldb.Response{
		Status: 200,
		Header: httpmsg.Header{"Content-Type": {"application/octet-stream"}},
		Length: 12, SHA256: make([]byte, 32),
	})
	fmt.Println(v.OK, v.Code, v.Problem)
	// Output:
	// true wwtweb.blob.core.windows.net /drops/WWTSDK.msi 3052032
	// false length content length changed from 3052032 to 12
}

// Add a record and write the domain file as wwturldb would.
func ExampleDomain_Encode() {
	db, _ := urldb.LoadFiles(urldb.File{Name: "example.com.yaml", Data: []byte("---\nhttps: true\n---\n_path: /z\ncontent-type: text/html\n")})
	d := db.Domain("example.com")
	rec, _ := urldb.NewRecord("/a", urldb.Response{Status: 302, Header: httpmsg.Header{"Location": {"/z"}}}, false)
	rec.AddCategory("frontend")
	d.Insert(rec)
	os.Stdout.Write(d.Encode())
	// Output:
	// ---
	// https: true
	// ---
	// _path: /a
	// categories:
	// - frontend
	// content-type: X-302-Redirect
	// ---
	// _path: /z
	// content-type: text/html
}
