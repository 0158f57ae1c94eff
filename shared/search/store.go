package search

import (
	"errors"
	"slices"
	"strings"
	"sync"
)

// ErrNotFound is returned by a Store's Get for a key it does not hold.
var ErrNotFound = errors.New("search: key not found")

// A Store is the key-value store an Index lives in: byte values under string
// keys, scanned in key order (byte-wise, which for the keys the index writes,
// all valid UTF-8 below U+FFFF, is also the order of IndexedDB's string keys).
type Store interface {
	// Get returns the value under key, or ErrNotFound. The caller does not
	// modify it; the Store may reuse it after the next Put or Delete.
	Get(key string) ([]byte, error)
	// Put sets the value under key. The Store keeps no reference to value.
	Put(key string, value []byte) error
	// Delete removes key; deleting a missing key is not an error.
	Delete(key string) error
	// Scan calls fn for each key that starts with prefix, in ascending order,
	// until fn returns false. fn does not modify the store.
	Scan(prefix string, fn func(key string, value []byte) bool) error
}

// A MultiGetter is a Store that reads many keys in one call: a Search reads the
// fields of every document that matches, and a store where each read is a
// transaction (IndexedDB) reads them all in one.
type MultiGetter interface {
	Store
	// GetMany returns the values under keys, in their order; nil for a key the
	// store does not hold.
	GetMany(keys []string) ([][]byte, error)
}

// getMany reads keys from s, in one call when s is a MultiGetter.
func getMany(s Store, keys []string) ([][]byte, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	if mg, ok := s.(MultiGetter); ok {
		return mg.GetMany(keys)
	}
	out := make([][]byte, len(keys))
	for i, k := range keys {
		v, err := s.Get(k)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// A MemStore is a Store in memory, safe for concurrent use. The zero value is
// an empty store.
type MemStore struct {
	mu     sync.Mutex
	m      map[string][]byte
	sorted []string // keys in order, perhaps with deleted ones; nil when unknown
	added  []string // keys added since sorted was made
}

// NewMemStore returns an empty MemStore.
func NewMemStore() *MemStore { return &MemStore{} }

// Get returns the value under key.
func (s *MemStore) Get(key string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[key]
	if !ok {
		return nil, ErrNotFound
	}
	return v, nil
}

// Put sets the value under key to a copy of value.
func (s *MemStore) Put(key string, value []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string][]byte{}
	}
	if _, ok := s.m[key]; !ok {
		s.added = append(s.added, key)
	}
	s.m[key] = slices.Clone(value)
	return nil
}

// Delete removes key.
func (s *MemStore) Delete(key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, key)
	return nil
}

// Scan calls fn for the keys that start with prefix, in order. fn must not call
// the store's methods.
func (s *MemStore) Scan(prefix string, fn func(key string, value []byte) bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sort()
	i, _ := slices.BinarySearch(s.sorted, prefix)
	for ; i < len(s.sorted) && strings.HasPrefix(s.sorted[i], prefix); i++ {
		k := s.sorted[i]
		v, ok := s.m[k]
		if !ok {
			continue
		}
		if !fn(k, v) {
			break
		}
	}
	return nil
}

// sort brings s.sorted up to date: the keys added since are sorted and merged
// in, and deleted keys dropped.
func (s *MemStore) sort() {
	if len(s.added) == 0 && len(s.sorted) <= 2*len(s.m)+16 {
		return
	}
	slices.Sort(s.added)
	merged := make([]string, 0, len(s.m))
	a, b := s.sorted, s.added
	for len(a) > 0 || len(b) > 0 {
		var k string
		if len(b) == 0 || len(a) > 0 && a[0] < b[0] {
			k, a = a[0], a[1:]
		} else {
			k, b = b[0], b[1:]
		}
		if _, ok := s.m[k]; !ok {
			continue
		}
		if n := len(merged); n > 0 && merged[n-1] == k {
			continue
		}
		merged = append(merged, k)
	}
	s.sorted, s.added = merged, nil
}

// Len returns the number of keys held.
func (s *MemStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}

// Size returns the bytes of the keys and values held.
func (s *MemStore) Size() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for k, v := range s.m {
		n += len(k) + len(v)
	}
	return n
}
