package urldb

import (
	"cmp"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// Encode returns the domain file as wwturldb writes it: the metadata document,
// then the records sorted by path in code-point order, each document with its
// keys sorted. A later record with the same path as an earlier one replaces it.
func (d *Domain) Encode() []byte {
	e := newEmitter()
	e.buf = make([]byte, 0, 64+len(d.Records)*160)
	e.document(d.Meta)
	for _, r := range sortedRecords(d.Records) {
		e.document(r.asMap())
	}
	return e.buf
}

// WriteTo writes the domain file to w, as Encode returns it.
func (d *Domain) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(d.Encode())
	return int64(n), err
}

func sortedRecords(recs []*Record) []*Record {
	byPath := make(map[string]int, len(recs))
	out := make([]*Record, 0, len(recs))
	for _, r := range recs {
		if i, ok := byPath[r.Path]; ok {
			out[i] = r
			continue
		}
		byPath[r.Path] = len(out)
		out = append(out, r)
	}
	slices.SortStableFunc(out, func(a, b *Record) int { return cmp.Compare(a.Path, b.Path) })
	return out
}

// asMap is wwturldb's Record.as_dict: the extra keys, then the known ones.
func (r *Record) asMap() Map {
	m := make(Map, 0, len(r.Extra)+5)
	m = append(m, r.Extra...)
	m.Set("_path", r.Path)
	m.Set("content-type", r.ContentType)
	if r.Static() {
		m.Set("content-length", r.ContentLength)
		m.Set("content-sha256", hex.EncodeToString(r.ContentSHA256))
	}
	if len(r.Categories) > 0 {
		cats := make([]any, len(r.Categories))
		for i, c := range r.Categories {
			cats[i] = c
		}
		m.Set("categories", cats)
	}
	return m
}

// WriteFile writes the domain to dir/<name>.yaml through a temporary file in
// the same directory and an atomic rename, keeping the mode of the file it
// replaces. It refuses to write a domain that was not read completely.
func WriteFile(dir string, d *Domain) error {
	if d.Incomplete {
		return &Error{File: d.Name + ".yaml", Err: ErrIncomplete}
	}
	target := filepath.Join(dir, d.Name+".yaml")
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(target); err == nil {
		mode = fi.Mode().Perm()
	}
	f, err := os.CreateTemp(dir, d.Name+".*.tmp")
	if err != nil {
		return err
	}
	_, err = f.Write(d.Encode())
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), target)
	}
	if err != nil {
		return errors.Join(err, os.Remove(f.Name()))
	}
	return nil
}
