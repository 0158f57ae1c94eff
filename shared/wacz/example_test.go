package wacz_test

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/webkeep/webkeep/shared/cdx"
	"github.com/webkeep/webkeep/shared/wacz"
)

// Example packs a WARC/1.1 file, its CDXJ index and one page into a WACZ, then
// lists what the WACZ holds.
func Example() {
	const name = "appendix-b-1.1.warc.gz"
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		panic(err)
	}

	// The index: the cdx package computes pywb's CDXJ lines and sorts them.
	var cdxj bytes.Buffer
	cw := cdx.NewWriter(&cdxj, cdx.Pywb267)
	if err := new(cdx.Indexer).Index(bytes.NewReader(data), name, cw.Write); err != nil {
		panic(err)
	}
	if err := cw.Close(); err != nil {
		panic(err)
	}

	var out bytes.Buffer // an *os.File in real use
	w := wacz.NewWriter(&out, wacz.Options{
		Title:   "Appendix B",
		Created: time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC),
	})
	if err := w.AddWARC(name, bytes.NewReader(data)); err != nil {
		panic(err)
	}
	if err := w.AddIndex(cdxj.Bytes()); err != nil {
		panic(err)
	}
	err = w.AddPages([]wacz.Page{{
		URL:   "http://www.archive.org/images/logo.jpg",
		TS:    time.Date(2005, 7, 8, 1, 1, 1, 0, time.UTC),
		Title: "The Archive's logo",
	}})
	if err != nil {
		panic(err)
	}
	if err := w.Close(); err != nil {
		panic(err)
	}

	zr, err := zip.NewReader(bytes.NewReader(out.Bytes()), int64(out.Len()))
	if err != nil {
		panic(err)
	}
	for _, f := range zr.File {
		method := "deflate"
		if f.Method == zip.Store {
			method = "store"
		}
		fmt.Printf("%-30s %s\n", f.Name, method)
	}

	// The manifest (the index's hashes and sizes depend on the gzip compressor, so
	// only the WARC's are shown).
	rc, err := zr.Open(wacz.DatapackagePath)
	if err != nil {
		panic(err)
	}
	var dp struct {
		Profile     string `json:"profile"`
		Version     string `json:"wacz_version"`
		MainPageURL string `json:"mainPageUrl"`
		Resources   []struct {
			Path, Hash string
			Bytes      int64
		} `json:"resources"`
	}
	if err := json.NewDecoder(rc).Decode(&dp); err != nil {
		panic(err)
	}
	fmt.Println(dp.Profile, dp.Version, dp.MainPageURL)
	for _, r := range dp.Resources {
		if r.Path == wacz.ArchiveDir+name {
			fmt.Println(r.Path, r.Bytes, r.Hash)
		} else {
			fmt.Println(r.Path)
		}
	}
	// Output:
	// archive/appendix-b-1.1.warc.gz store
	// indexes/index.cdx.gz           store
	// indexes/index.idx              deflate
	// pages/pages.jsonl              deflate
	// datapackage.json               deflate
	// datapackage-digest.json        deflate
	// data-package 1.1.1 http://www.archive.org/images/logo.jpg
	// archive/appendix-b-1.1.warc.gz 4552 sha256:ff0671fd7cda5bc098b1ac4e795160c40718885ac1bc7cbe68c1cf8dff082e24
	// indexes/index.cdx.gz
	// indexes/index.idx
	// pages/pages.jsonl
}
