package search

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"
)

// The rank table: the numbers a search ranks and filters by (a document's text
// and title lengths, status and time), for rankBlockDocs documents in a value,
// so that ranking the documents a common word matches reads a value per
// rankBlockDocs of them rather than one each. Its values are under keyRank and
// the number of the block (the documents' ids shifted right by rankShift), as a
// document key is written; each holds a rankEntrySize-byte entry per document
// of its block up to the last one added (little-endian: text length uint32,
// title length uint16, status uint16, time int64 in Unix milliseconds, 0 for
// none); a text length of absentLength marks a document not there.
const (
	keyRank       = "n/"
	rankShift     = 10
	rankBlockDocs = 1 << rankShift
	rankEntrySize = 16
	absentLength  = math.MaxUint32
)

func rankKey(id DocID) string { return keyRank + docKey(id>>rankShift) }

// clamped returns r with its numbers bounded as the rank table bounds them,
// so that a search ranks a document alike from its record or the table.
func (r record) clamped() record {
	r.length = min(max(r.length, 0), absentLength-1)
	r.titleLen = min(max(r.titleLen, 0), math.MaxUint16)
	r.status = min(max(r.status, 0), math.MaxUint16)
	return r
}

// setRank writes entries into the rank blocks: each id's record, or, for a nil
// record, its absence.
func (ix *Index) setRank(ids []DocID, recs []*record) error {
	blocks := map[string][]byte{}
	var order []string
	for i, id := range ids {
		key := rankKey(id)
		b, ok := blocks[key]
		if !ok {
			v, err := ix.store.Get(key)
			if err != nil && err != ErrNotFound {
				return fmt.Errorf("search: rank table: %w", err)
			}
			b = append([]byte(nil), v...)
			order = append(order, key)
		}
		slot := int(id&(rankBlockDocs-1)) * rankEntrySize
		for len(b) < slot+rankEntrySize {
			b = binary.LittleEndian.AppendUint32(b, absentLength)
			b = append(b, make([]byte, rankEntrySize-4)...)
		}
		e := b[slot : slot+rankEntrySize]
		if r := recs[i]; r == nil {
			binary.LittleEndian.PutUint32(e, absentLength)
		} else {
			c := r.clamped()
			binary.LittleEndian.PutUint32(e, uint32(c.length))
			binary.LittleEndian.PutUint16(e[4:], uint16(c.titleLen))
			binary.LittleEndian.PutUint16(e[6:], uint16(c.status))
			var ms int64
			if !r.time.IsZero() {
				ms = r.time.UnixMilli()
			}
			binary.LittleEndian.PutUint64(e[8:], uint64(ms))
		}
		blocks[key] = b
	}
	for _, key := range order {
		if err := ix.store.Put(key, blocks[key]); err != nil {
			return fmt.Errorf("search: rank table: %w", err)
		}
	}
	return nil
}

// sparseRank is how many documents of a rank block a search needs at most to
// read their records (a hundred bytes or so each) rather than the block (16
// KiB): a rare word's documents are a few in each block.
const sparseRank = 16

// rankOf reads the numbers of the documents ids (sorted) from the rank table:
// found[i] says whether the table has document ids[i], recs[i] its numbers. A
// block the table lacks (an index written before it had one) finds nothing,
// nor does one of which ids has sparseRank documents at most (their records
// are read instead). cache, when not nil, holds the table's values read before
// and keeps those read now, for a search that ranks its candidates in rounds.
func (ix *Index) rankOf(ids []DocID, cache map[string][]byte) (recs []record, found []bool, err error) {
	var keys []string
	for i := 0; i < len(ids); {
		k := rankKey(ids[i])
		j := i + 1
		for j < len(ids) && rankKey(ids[j]) == k {
			j++
		}
		if _, ok := cache[k]; !ok && j-i > sparseRank {
			keys = append(keys, k)
		}
		i = j
	}
	values, err := getMany(ix.store, keys)
	if err != nil {
		return nil, nil, fmt.Errorf("search: rank table: %w", err)
	}
	if cache == nil {
		cache = make(map[string][]byte, len(keys))
	}
	for i, k := range keys {
		cache[k] = values[i]
	}
	recs, found = make([]record, len(ids)), make([]bool, len(ids))
	var b []byte
	for i, id := range ids {
		if i == 0 || rankKey(id) != rankKey(ids[i-1]) {
			b = cache[rankKey(id)]
		}
		slot := int(id&(rankBlockDocs-1)) * rankEntrySize
		if slot+rankEntrySize > len(b) {
			continue
		}
		e := b[slot : slot+rankEntrySize]
		length := binary.LittleEndian.Uint32(e)
		if length == absentLength {
			continue
		}
		r := record{length: int(length), titleLen: int(binary.LittleEndian.Uint16(e[4:])), status: int(binary.LittleEndian.Uint16(e[6:]))}
		if ms := int64(binary.LittleEndian.Uint64(e[8:])); ms != 0 {
			r.time = time.UnixMilli(ms).UTC()
		}
		recs[i], found[i] = r, true
	}
	return recs, found, nil
}
