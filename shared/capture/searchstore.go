package capture

import (
	"errors"
	"sort"
	"strings"

	"github.com/webkeep/webkeep/shared/search"
)

// A BulkStore is a Store that reads many values in one call. IndexedDB is one: a
// read costs the service worker a transaction, and a search reads a few dozen
// posting blocks and the fields of every document that matches.
type BulkStore interface {
	Store
	// Scan returns the keys with the prefix, sorted, and their values.
	Scan(prefix string) (keys []string, values [][]byte, err error)
	// GetMany returns the values under keys, in their order; nil for a key the
	// store does not hold.
	GetMany(keys []string) ([][]byte, error)
}

// searchStore is the search index's store (search.Store) over the service's
// store, its keys under a prefix. What the index writes is held until commit,
// which puts it in one transaction (BatchStore) with what the caller adds: the
// note of how far the index has read a session is in the store with the postings
// of what it read, or neither is.
type searchStore struct {
	store  Store
	prefix string
	// held are the values written since the last commit; nil marks a delete.
	held map[string][]byte
}

func newSearchStore(store Store, prefix string) *searchStore {
	return &searchStore{store: store, prefix: prefix, held: map[string][]byte{}}
}

// Get returns the value of key: held, or in the store.
func (s *searchStore) Get(key string) ([]byte, error) {
	if v, ok := s.held[key]; ok {
		if v == nil {
			return nil, search.ErrNotFound
		}
		return v, nil
	}
	v, err := s.store.Get(s.prefix + key)
	if errors.Is(err, ErrNotFound) {
		return nil, search.ErrNotFound
	}
	return v, err
}

// GetMany returns the values under keys (search.MultiGetter): held, or read from
// the store, in one call when it is a BulkStore.
func (s *searchStore) GetMany(keys []string) ([][]byte, error) {
	out := make([][]byte, len(keys))
	var missing []string
	var at []int
	for i, k := range keys {
		if v, ok := s.held[k]; ok {
			out[i] = v
			continue
		}
		missing = append(missing, s.prefix+k)
		at = append(at, i)
	}
	if len(missing) == 0 {
		return out, nil
	}
	if bs, ok := s.store.(BulkStore); ok {
		values, err := bs.GetMany(missing)
		if err != nil {
			return nil, err
		}
		for j, v := range values {
			out[at[j]] = v
		}
		return out, nil
	}
	for j, k := range missing {
		v, err := s.store.Get(k)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out[at[j]] = v
	}
	return out, nil
}

// Put holds value under key until the next commit.
func (s *searchStore) Put(key string, value []byte) error {
	if value == nil {
		value = []byte{}
	}
	s.held[key] = value
	return nil
}

// Delete holds the removal of key until the next commit.
func (s *searchStore) Delete(key string) error {
	s.held[key] = nil
	return nil
}

// Scan calls fn with each key with the prefix and its value, in key order: the
// store's, with what is held over them.
func (s *searchStore) Scan(prefix string, fn func(key string, value []byte) bool) error {
	var keys []string
	var values [][]byte
	if ss, ok := s.store.(BulkStore); ok {
		var err error
		if keys, values, err = ss.Scan(s.prefix + prefix); err != nil {
			return err
		}
	} else {
		var err error
		if keys, err = s.store.Keys(s.prefix + prefix); err != nil {
			return err
		}
		values = make([][]byte, len(keys))
		for i, k := range keys {
			if values[i], err = s.store.Get(k); err != nil {
				return err
			}
		}
	}
	merged := make(map[string][]byte, len(keys))
	for i, k := range keys {
		merged[strings.TrimPrefix(k, s.prefix)] = values[i]
	}
	for k, v := range s.held {
		if strings.HasPrefix(k, prefix) {
			merged[k] = v
		}
	}
	order := make([]string, 0, len(merged))
	for k, v := range merged {
		if v != nil {
			order = append(order, k)
		}
	}
	sort.Strings(order)
	for _, k := range order {
		if !fn(k, merged[k]) {
			break
		}
	}
	return nil
}

// commit writes what is held, and the caller's keys and values (of the service's
// store, not under the prefix), in one transaction when the store can; then the
// removals, which a store makes one prefix at a time. A removal that fails leaves
// a key the index no longer names, which does no harm.
func (s *searchStore) commit(keys []string, values [][]byte) error {
	var removed []string
	for k, v := range s.held {
		if v == nil {
			removed = append(removed, s.prefix+k)
			continue
		}
		keys = append(keys, s.prefix+k)
		values = append(values, v)
	}
	if len(keys) > 0 {
		if err := putBatch(s.store, keys, values); err != nil {
			return err
		}
	}
	clear(s.held)
	// Every key of the index's is the whole of no other key's beginning
	// (shared/search, "Index layout"): removing a key as a prefix removes it alone.
	for _, k := range removed {
		if err := s.store.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// drop forgets what is held: the index is opened again from the store.
func (s *searchStore) drop() { clear(s.held) }
