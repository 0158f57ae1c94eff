package teamarchive_test

import (
	"fmt"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/webkeep/webkeep/shared/teamarchive"
)

func Example() {
	srv := teamarchive.NewServer(teamarchive.Config{
		Bucket: teamarchive.NewMemBucket(),
		Tokens: teamarchive.ParseTokens("alice:s3cret"),
	})
	bundle, _ := os.ReadFile("testdata/sample-bundle.zip")
	put := httptest.NewRequest("PUT", "/api/bundles/team.zip", strings.NewReader(string(bundle)))
	put.Header.Set("Authorization", "Bearer s3cret")
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, put)
	fmt.Println(w.Code)

	q := httptest.NewRequest("GET", "/api/cdx?url=example.org", nil)
	q.Header.Set("Authorization", "Bearer s3cret")
	w = httptest.NewRecorder()
	srv.ServeHTTP(w, q)
	line := w.Body.String()
	// Each line names its bundle ("source") and the upload that stored it.
	fmt.Println(line[:strings.Index(line, " {")], line[strings.Index(line, `"filename"`):strings.Index(line, `, "upload"`)])
	// Output:
	// 201
	// org,example)/ 20240602030405 "filename": "webkeep-sample.warc.gz", "source": "team.zip"
}
