package cdx_test

import (
	"fmt"
	"os"

	"github.com/webkeep/webkeep/shared/cdx"
	"github.com/webkeep/webkeep/shared/httpmsg"
)

func ExampleEncodeRequest() {
	body := `{"type": "event", "id": 44.0, "values": [true, false, null]}`
	r := &cdx.Request{
		Method: "POST",
		URL:    "http://example.org/events",
		Header: httpmsg.Header{"Content-Type": {"application/json"}, "Content-Length": {fmt.Sprint(len(body))}},
		Body:   []byte(body),
	}
	url, query := cdx.EncodeRequest(r)
	key, _ := cdx.SURT(url)
	fmt.Println(url)
	fmt.Println(query)
	fmt.Println(key)
	url, _ = cdx.Pywb28.EncodeRequest(r)
	fmt.Println(url)
	// Output:
	// http://example.org/events?__wb_method=POST&type=event&id=44.0&values=True&values.2_=False&values.3_=None
	// type=event&id=44.0&values=True&values.2_=False&values.3_=None
	// org,example)/events?__wb_method=post&id=44.0&type=event&values=true&values.2_=false&values.3_=none
	// http://example.org/events?__wb_method=POST&type=event&id=44&values=true&values.2_=false&values.3_=null
}

func ExampleWriter() {
	w := cdx.NewWriter(os.Stdout, cdx.Pywb267)
	for _, u := range []string{"http://www.example.com/b", "http://example.com/a"} {
		key, _ := cdx.SURT(u)
		w.Write(&cdx.Entry{URLKey: key, Timestamp: "20240101000000", URL: u, Mime: "text/html",
			Status: "200", Digest: "VL2MMHO4YXUKFWV63YHTWSBM3GXKSQ2N", Length: 300, Filename: "a.warc.gz"})
	}
	w.Close()
	// Output:
	// com,example)/a 20240101000000 {"url": "http://example.com/a", "mime": "text/html", "status": "200", "digest": "VL2MMHO4YXUKFWV63YHTWSBM3GXKSQ2N", "length": "300", "offset": "0", "filename": "a.warc.gz"}
	// com,example)/b 20240101000000 {"url": "http://www.example.com/b", "mime": "text/html", "status": "200", "digest": "VL2MMHO4YXUKFWV63YHTWSBM3GXKSQ2N", "length": "300", "offset": "0", "filename": "a.warc.gz"}
}
