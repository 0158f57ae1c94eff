// Package wacz writes WACZ 1.1.1 files (Web Archive Collection Zipped,
// https://specs.webrecorder.net/wacz/1.1.1/), the packaging of WARC files,
// their index and their pages that ReplayWeb.page opens.
//
// A WACZ is a ZIP file holding
//
//	archive/*.warc.gz           the WARC/1.x files, stored (not compressed again)
//	indexes/index.cdx.gz        the sorted CDXJ index in gzip blocks, stored
//	indexes/index.idx           one line per block: its first key, offset and length
//	pages/pages.jsonl           a header line, then one JSON line per page
//	datapackage.json            the manifest: every file's path, size and SHA-256
//	datapackage-digest.json     the SHA-256 of datapackage.json, signed when
//	                            Options.Signer is set (wacz-auth 0.1.0)
//
// The index is written as a ZipNum compressed index (the "cdxj-gzip-1.0" format of
// cdxj-indexer, as py-wacz and js-wacz write it), which wabac.js loads block by
// block on demand. A Writer streams everything: WARC files are copied through,
// and their sizes and hashes are computed as they pass, so memory stays bounded
// whatever their size.
package wacz

import (
	"context"
	"errors"
	"time"
)

// Version is the WACZ version written in datapackage.json.
const Version = "1.1.1"

// DefaultBlockLines is the number of CDXJ lines in each gzip block of
// indexes/index.cdx.gz when Options.BlockLines is zero: py-wacz's value, which
// matches ArchiveWeb.page.
const DefaultBlockLines = 1024

// Paths of the files inside a WACZ (section "Directory Layout").
const (
	ArchiveDir      = "archive/"
	IndexPath       = "indexes/index.cdx.gz"
	IndexIDXPath    = "indexes/index.idx"
	PagesPath       = "pages/pages.jsonl"
	DatapackagePath = "datapackage.json"
	DigestPath      = "datapackage-digest.json"
)

// Format names written inside the files.
const (
	profile     = "data-package"   // datapackage.json "profile"
	pagesFormat = "json-pages-1.0" // pages.jsonl header "format"
	indexFormat = "cdxj-gzip-1.0"  // index.idx "!meta" "format"
)

var (
	// ErrName reports a WARC name that is not a plain file name ending in .warc
	// or .warc.gz (gzip data must be named .warc.gz, anything else .warc).
	ErrName = errors.New("wacz: invalid WARC file name")
	// ErrWARC reports an archive that is not a WARC/1.0 or WARC/1.1 file: replay
	// tools read no other version (convert WARC 0.9 with the warc package first).
	ErrWARC = errors.New("wacz: not a WARC/1.x file")
	// ErrDuplicate reports a second file with the same path, or a second index or
	// page list.
	ErrDuplicate = errors.New("wacz: file already added")
	// ErrIndex reports a CDXJ index that is malformed, not sorted, or refers to a
	// WARC file that the WACZ does not hold.
	ErrIndex = errors.New("wacz: invalid CDXJ index")
	// ErrPage reports a page without a URL or a timestamp.
	ErrPage = errors.New("wacz: invalid page")
	// ErrIncomplete reports a WACZ closed without any WARC file or without an
	// index, both of which the specification requires.
	ErrIncomplete = errors.New("wacz: incomplete package")
	// ErrClosed reports a call on a closed Writer.
	ErrClosed = errors.New("wacz: writer closed")
)

// Options describe the collection; they go into datapackage.json.
type Options struct {
	// Title is a one-sentence title of the collection.
	Title string
	// Description is a longer description, in Markdown.
	Description string
	// Created is when the WACZ was made, written as "created" and "modified" and
	// as the time of the ZIP entries; zero means now.
	Created time.Time
	// Software names the program that made the WACZ; empty means "webkeep".
	Software string
	// BlockLines is the number of CDXJ lines per gzip block of the index; zero
	// means DefaultBlockLines.
	BlockLines int
	// Authority, when set, signs the WACZ: datapackage-digest.json then holds the
	// signedData of wacz-auth 0.1.0 it gives (see sign.go).
	Authority Authority
	// Signer, when set and Authority is not, signs the WACZ in the anonymous form:
	// it is short for Authority: &KeyAuthority{Signer: Signer, Software: Software}.
	Signer Signer
	// SignedAt is the signature's "created"; zero means when Close signs.
	SignedAt time.Time
	// Context bounds the signing (a timestamp authority or a team archive asked
	// over the network); nil means context.Background().
	Context context.Context
}

// A Page is an entry point into the collection: one line of pages/pages.jsonl.
// The first page added is the collection's main page (mainPageUrl and
// mainPageDate in datapackage.json).
type Page struct {
	// ID identifies the page; when empty one is derived from its URL and time.
	ID string
	// URL is the page's address (required).
	URL string
	// TS is when the page was captured (required); written in RFC 3339, UTC.
	TS time.Time
	// Title is the page's title, Text the text extracted from it, and Size the
	// bytes of the page and all its resources; each is written when set.
	Title string
	Text  string
	Size  int64
}

// pageLine is a Page as pages.jsonl holds it.
type pageLine struct {
	ID    string `json:"id"`
	URL   string `json:"url"`
	TS    string `json:"ts"`
	Title string `json:"title,omitempty"`
	Text  string `json:"text,omitempty"`
	Size  int64  `json:"size,omitempty"`
}

// pagesHeader is the first line of pages.jsonl.
type pagesHeader struct {
	Format  string `json:"format"`
	ID      string `json:"id"`
	Title   string `json:"title"`
	HasText bool   `json:"hasText,omitempty"`
}

// resource is one file of the WACZ as datapackage.json lists it.
type resource struct {
	Name  string `json:"name"`
	Path  string `json:"path"`
	Hash  string `json:"hash"`
	Bytes int64  `json:"bytes"`
}

// datapackage is the manifest, with the properties the specification requires
// (profile, wacz_version, resources) and those it recommends.
type datapackage struct {
	Profile      string     `json:"profile"`
	WACZVersion  string     `json:"wacz_version"`
	Title        string     `json:"title,omitempty"`
	Description  string     `json:"description,omitempty"`
	Created      string     `json:"created"`
	Modified     string     `json:"modified"`
	Software     string     `json:"software"`
	MainPageURL  string     `json:"mainPageUrl,omitempty"`
	MainPageDate string     `json:"mainPageDate,omitempty"`
	Resources    []resource `json:"resources"`
}

// digestFile is datapackage-digest.json.
type digestFile struct {
	Path       string      `json:"path"`
	Hash       string      `json:"hash"`
	SignedData *SignedData `json:"signedData,omitempty"`
}
