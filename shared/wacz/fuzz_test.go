//go:build !js

package wacz_test

import (
	"bytes"
	"testing"

	"github.com/webkeep/webkeep/shared/wacz"
)

// checkReport fails on a report that contradicts itself: a WACZ of anyone's making is
// checked, and whatever it holds, the check ends with a report or an error, never a
// panic.
func checkReport(t *testing.T, rep *wacz.Report, err error) {
	t.Helper()
	if err != nil {
		return
	}
	if rep == nil {
		t.Fatal("no report and no error")
	}
	if len(rep.Problems) > wacz.MaxProblems || rep.Failed < len(rep.Problems) {
		t.Fatalf("%d problems listed, %d failed", len(rep.Problems), rep.Failed)
	}
	for _, p := range rep.Problems {
		if p.Msg == "" || p.File == "" {
			t.Fatalf("a problem that does not say what or where: %+v", p)
		}
	}
}

// FuzzVerify checks WACZ files as they come: a ZIP, its names, its sizes and its
// compression mangled.
func FuzzVerify(f *testing.F) {
	signed := testWACZ(f, newKey(f))
	unsigned := testWACZ(f, nil)
	f.Add(signed)
	f.Add(unsigned)
	f.Add([]byte("PK\x03\x04 not a zip"))
	f.Add([]byte{})
	stored := unzipFiles(f, unsigned)
	for i := range stored {
		stored[i].method = 0
	}
	f.Add(rezip(f, stored))
	f.Fuzz(func(t *testing.T, data []byte) {
		rep, err := wacz.Verify(bytes.NewReader(data), int64(len(data)), wacz.VerifyOptions{})
		checkReport(t, rep, err)
	})
}

// FuzzVerifyPackage checks WACZ files whose ZIP is sound and whose package files are
// not: datapackage.json, datapackage-digest.json and pages.jsonl as the fuzzer makes
// them, in a WACZ whose WARC files and index are a real one's. A ZIP's checksum stops
// most mangled bytes before any of them is parsed, so these are zipped anew.
func FuzzVerifyPackage(f *testing.F) {
	files := unzipFiles(f, testWACZ(f, newKey(f)))
	get := func(name string) []byte {
		for _, z := range files {
			if z.name == name {
				return z.data
			}
		}
		return nil
	}
	f.Add(get(wacz.DatapackagePath), get(wacz.DigestPath), get(wacz.PagesPath))
	f.Add([]byte(`{"resources":[{"path":"../x","hash":"sha256:zz","bytes":-1}]}`), []byte(`{"hash":"sha256:","signedData":{"hash":1}}`), []byte("{\n"))
	f.Add([]byte(`{"resources":null}`), []byte(`null`), []byte(`{"format":"json-pages-1.0"}`+"\n"+`{"url":1}`))
	f.Fuzz(func(t *testing.T, datapackage, digest, pages []byte) {
		out := make([]zipFile, 0, len(files))
		for _, z := range files {
			switch z.name {
			case wacz.DatapackagePath:
				z.data = datapackage
			case wacz.DigestPath:
				z.data = digest
			case wacz.PagesPath:
				z.data = pages
			}
			out = append(out, z)
		}
		data := rezip(t, out)
		rep, err := wacz.Verify(bytes.NewReader(data), int64(len(data)), wacz.VerifyOptions{})
		checkReport(t, rep, err)
		if bytes.Equal(datapackage, get(wacz.DatapackagePath)) && bytes.Equal(digest, get(wacz.DigestPath)) && bytes.Equal(pages, get(wacz.PagesPath)) && (err != nil || !rep.OK()) {
			t.Fatalf("the WACZ as written fails its check: %v %v", err, rep.Problems)
		}
	})
}
