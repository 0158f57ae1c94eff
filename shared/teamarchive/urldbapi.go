package teamarchive

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/webkeep/webkeep/shared/urldb"
)

// DomainInfo describes one file of the shared URL database.
type DomainInfo struct {
	Domain   string    `json:"domain"`
	File     string    `json:"file"`
	ETag     string    `json:"etag"` // quoted, as in the ETag header
	Size     int64     `json:"size"`
	Uploader string    `json:"uploader"`
	Updated  time.Time `json:"updated"`
}

func domainInfo(o *Object) DomainInfo {
	file := strings.TrimPrefix(o.Key, prefixURLDB)
	return DomainInfo{
		Domain: strings.TrimSuffix(file, ".yaml"), File: file, ETag: `"` + o.ETag + `"`,
		Size: o.Size, Uploader: o.Meta["uploader"], Updated: o.Uploaded,
	}
}

// getURLDB serves the whole database: a zip of its domain files (what
// urldb.LoadZip and the extension's "Load team database" read), or with
// ?format=json the list of files and their ETags. The ETag covers every file's.
func (s *Server) getURLDB(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	var files []Object
	cursor := ""
	for {
		page, err := s.cfg.Bucket.List(ctx, prefixURLDB, cursor, maxListLimit)
		if err != nil {
			return err
		}
		files = append(files, page.Objects...)
		if !page.Truncated {
			break
		}
		cursor = page.Cursor
	}
	h := sha256.New()
	for _, o := range files {
		fmt.Fprintf(h, "%s %s\n", o.Key, o.ETag)
	}
	etag := `"` + hex.EncodeToString(h.Sum(nil)[:16]) + `"`
	w.Header().Set("ETag", etag)
	if r.URL.Query().Get("format") == "json" {
		list := []DomainInfo{}
		for i := range files {
			list = append(list, domainInfo(&files[i]))
		}
		writeJSON(w, http.StatusOK, map[string]any{"domains": list})
		return nil
	}
	if etagListed(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Content-Disposition", `attachment; filename="urldb.zip"`)
	if r.Method == http.MethodHead {
		return nil
	}
	zw := zip.NewWriter(w)
	for _, o := range files {
		_, rc, err := s.cfg.Bucket.Get(ctx, o.Key, nil)
		if errors.Is(err, ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		f, err := zw.CreateHeader(&zip.FileHeader{Name: strings.TrimPrefix(o.Key, prefixURLDB), Method: zip.Deflate, Modified: o.Uploaded})
		if err == nil {
			_, err = io.Copy(f, rc)
		}
		rc.Close()
		if err != nil {
			return err
		}
	}
	return zw.Close()
}

func (s *Server) getDomain(w http.ResponseWriter, r *http.Request, domain string) error {
	o, rc, err := s.cfg.Bucket.Get(r.Context(), prefixURLDB+domain+".yaml", nil)
	if errors.Is(err, ErrNotExist) {
		return httpErr(http.StatusNotFound, "no URL database file %s.yaml", domain)
	}
	if err != nil {
		return err
	}
	defer rc.Close()
	etag := `"` + o.ETag + `"`
	w.Header().Set("ETag", etag)
	if etagListed(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	w.Header().Set("Content-Type", "application/yaml; charset=utf-8")
	w.Header().Set("Content-Length", strconv.FormatInt(o.Size, 10))
	w.Header().Set("Last-Modified", o.Uploaded.UTC().Format(http.TimeFormat))
	if r.Method == http.MethodHead {
		return nil
	}
	_, err = io.Copy(w, rc)
	return err
}

// putDomain validates a domain file with the loader the extension and the CLI use,
// then stores it under its precondition: If-Match "etag" replaces that version,
// If-None-Match * creates; with neither, it creates, and refuses (428) to replace a
// file the writer has not seen, so no write is silently lost.
func (s *Server) putDomain(w http.ResponseWriter, r *http.Request, domain, uploader string) error {
	ctx := r.Context()
	file := domain + ".yaml"
	if r.ContentLength > s.cfg.MaxDomainFileSize {
		return httpErr(http.StatusRequestEntityTooLarge, "%s: %d bytes exceed the limit of %d", file, r.ContentLength, s.cfg.MaxDomainFileSize)
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, s.cfg.MaxDomainFileSize+1))
	if err != nil {
		return httpErr(http.StatusBadRequest, "%s: reading the body: %v", file, err)
	}
	if int64(len(data)) > s.cfg.MaxDomainFileSize {
		return httpErr(http.StatusRequestEntityTooLarge, "%s: more than %d bytes", file, s.cfg.MaxDomainFileSize)
	}
	d, err := urldb.ReadDomain(file, bytes.NewReader(data))
	if err != nil {
		return &apiError{status: http.StatusUnprocessableEntity, err: err}
	}
	if d.Incomplete {
		return httpErr(http.StatusUnprocessableEntity, "%s: %v", file, urldb.ErrIncomplete)
	}

	key := prefixURLDB + file
	opts := PutOptions{ContentType: "application/yaml; charset=utf-8", Meta: map[string]string{"uploader": uploader}}
	ifMatch, ifNoneMatch := r.Header.Get("If-Match"), r.Header.Get("If-None-Match")
	switch {
	case ifMatch != "":
		tag, ok := strongETag(ifMatch)
		if !ok {
			return httpErr(http.StatusBadRequest, "If-Match: want one strong entity tag, got %q", clip(ifMatch))
		}
		opts.IfMatch = tag
	case ifNoneMatch != "":
		if strings.TrimSpace(ifNoneMatch) != "*" {
			return httpErr(http.StatusBadRequest, "If-None-Match: only * is meaningful on PUT, got %q", clip(ifNoneMatch))
		}
		opts.IfNoneMatch = true
	default:
		if cur, err := s.cfg.Bucket.Head(ctx, key); err == nil {
			w.Header().Set("ETag", `"`+cur.ETag+`"`)
			return httpErr(http.StatusPreconditionRequired, "%s exists: send If-Match with the ETag you read", file)
		} else if !errors.Is(err, ErrNotExist) {
			return err
		}
		opts.IfNoneMatch = true
	}
	o, err := s.cfg.Bucket.Put(ctx, key, bytes.NewReader(data), int64(len(data)), opts)
	if errors.Is(err, ErrPrecondition) {
		if cur, err := s.cfg.Bucket.Head(ctx, key); err == nil {
			w.Header().Set("ETag", `"`+cur.ETag+`"`)
		}
		return httpErr(http.StatusPreconditionFailed, "%s was changed by someone else (or does not exist / already exists): read it again and merge", file)
	}
	if err != nil {
		return err
	}
	status := http.StatusOK
	if opts.IfNoneMatch {
		status = http.StatusCreated
	}
	w.Header().Set("ETag", `"`+o.ETag+`"`)
	info := domainInfo(o)
	info.Uploader = uploader
	writeJSON(w, status, struct {
		DomainInfo
		Records int `json:"records"`
	}{info, len(d.Records)})
	return nil
}

// strongETag reads an If-Match value holding one strong entity tag.
func strongETag(v string) (string, bool) {
	v = strings.TrimSpace(v)
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' || strings.ContainsAny(v[1:len(v)-1], `",`) {
		return "", false
	}
	return v[1 : len(v)-1], true
}

// etagListed reports whether an If-None-Match value lists etag (weak comparison).
func etagListed(header, etag string) bool {
	for t := range strings.SplitSeq(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == strings.TrimPrefix(etag, "W/") {
			return true
		}
	}
	return false
}
