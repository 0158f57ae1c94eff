package search

import (
	"errors"
	"fmt"
)

// StoredText returns the text the index keeps of a document (its first
// Options.StoredText bytes): what a caller that searched with Options.Text
// returning "" reads afterwards for the snippets of the results it keeps. It
// returns "" for a document whose text is not kept.
func (ix *Index) StoredText(id DocID) (string, error) {
	v, err := ix.store.Get(keyText + docKey(id))
	if errors.Is(err, ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("search: text of %d: %w", id, err)
	}
	text, err := decompressText(v)
	if err != nil {
		return "", fmt.Errorf("search: text of %d: %w", id, err)
	}
	return text, nil
}

// Documents calls fn for each document the index has written, in id order,
// with its fields and the text it keeps of it (whole when it was no longer than
// Options.StoredText), until fn returns false: what merging indexes reads.
// Documents still pending are written first.
func (ix *Index) Documents(fn func(id DocID, d Document) bool) error {
	ix.mu.Lock()
	err := ix.flush()
	ix.mu.Unlock()
	if err != nil {
		return err
	}
	type entry struct {
		id  DocID
		rec record
	}
	// The records first (the store may not be used from within its Scan).
	var batch []entry
	var bad error
	next := keyDoc
	for {
		batch = batch[:0]
		err := ix.store.Scan(keyDoc, func(key string, value []byte) bool {
			if key < next {
				return true
			}
			id, err := parseDocKey(key[len(keyDoc):])
			if err == nil {
				var rec record
				if rec, err = decodeRecord(value, false); err == nil {
					batch = append(batch, entry{id, rec})
				}
			}
			if err != nil {
				bad = fmt.Errorf("search: key %q: %w", key, err)
				return false
			}
			return len(batch) < 256
		})
		if err == nil {
			err = bad
		}
		if err != nil {
			return err
		}
		for _, e := range batch {
			text, err := ix.StoredText(e.id)
			if err != nil {
				return err
			}
			d := Document{Session: e.rec.session, URL: e.rec.url, Time: e.rec.time, Method: e.rec.method,
				Status: e.rec.status, Mime: e.rec.mime, Ref: e.rec.ref, Title: e.rec.title, Text: text}
			if !fn(e.id, d) {
				return nil
			}
		}
		if len(batch) < 256 {
			return nil
		}
		next = keyDoc + docKey(batch[len(batch)-1].id+1)
	}
}
