package mergedindex

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"
)

// A Store is the sorted key-value store of one shard or of the directory: a Durable
// Object with SQLite storage in the Worker, MemStore natively. Keys and values are
// strings; keys sort by their bytes.
type Store interface {
	// Do runs a Batch atomically: no other Do of the same store is seen between its
	// conditions, its operations and its scans.
	Do(ctx context.Context, b *Batch) (*Result, error)
}

// A Batch is one atomic call of a Store: if every condition holds, its operations
// are applied; its scans are read afterwards either way.
type Batch struct {
	If    []Cond `json:"if,omitempty"`
	Ops   []Op   `json:"ops,omitempty"`
	Scans []Scan `json:"scans,omitempty"`
}

// A Cond holds when Key holds exactly Value, or, with Absent, when Key holds nothing.
type Cond struct {
	Key    string `json:"key"`
	Value  string `json:"value,omitempty"`
	Absent bool   `json:"absent,omitempty"`
}

// An Op stores Value under Key, or deletes Key (Delete).
type Op struct {
	Key    string `json:"key"`
	Value  string `json:"value,omitempty"`
	Delete bool   `json:"delete,omitempty"`
}

// A Scan reads the entries with Start <= key < End (End "" means no end), in key
// order or, with Reverse, from the last; at most Limit of them (0: no limit). With
// Count it gives only how many there are.
type Scan struct {
	Start   string `json:"start"`
	End     string `json:"end,omitempty"`
	Limit   int    `json:"limit,omitempty"`
	Reverse bool   `json:"reverse,omitempty"`
	Count   bool   `json:"count,omitempty"`
}

// An Entry is one key and its value.
type Entry struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// A Result is what a Batch did: whether its conditions held (Applied), and each
// scan's entries (or count), in the order of Batch.Scans.
type Result struct {
	Applied bool      `json:"applied"`
	Scans   []Entries `json:"scans"`
}

// Entries is what one Scan read.
type Entries struct {
	Entries []Entry `json:"entries"`
	Count   int     `json:"count"`
}

// ErrStore wraps the failures of a Store: the call may or may not have been applied.
var ErrStore = errors.New("mergedindex: store failed")

// Stores opens the Store of a name: a Durable Object namespace's idFromName.
type Stores interface {
	Open(name string) Store
}

// Blobs is the object store the main index's blocks live in (R2 in the Worker).
type Blobs interface {
	// PutBlob stores everything read from r under key (its size is not known
	// beforehand); the object appears whole or not at all.
	PutBlob(ctx context.Context, key string, r io.Reader) error
	// GetBlob reads n bytes of key from offset off.
	GetBlob(ctx context.Context, key string, off, n int64) (io.ReadCloser, error)
	// DeleteBlobs removes keys; missing ones are not an error.
	DeleteBlobs(ctx context.Context, keys ...string) error
}

// MemStores is Stores in memory, for tests and local use: each name a MemStore.
type MemStores struct {
	mu     sync.Mutex
	stores map[string]*MemStore
	// Calls counts the calls of every store (read it under no lock after the work).
	Calls int
}

// Open implements Stores.
func (m *MemStores) Open(name string) Store {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stores == nil {
		m.stores = map[string]*MemStore{}
	}
	s, ok := m.stores[name]
	if !ok {
		s = &MemStore{counter: &m.Calls, counterMu: &m.mu}
		m.stores[name] = s
	}
	return s
}

// Names lists the stores opened, sorted.
func (m *MemStores) Names() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var names []string
	for n := range m.stores {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// MemStore is a Store in memory, with the semantics the Durable Object gives.
type MemStore struct {
	mu        sync.Mutex
	keys      []string // sorted
	values    map[string]string
	counter   *int
	counterMu *sync.Mutex
}

// Do implements Store.
func (s *MemStore) Do(ctx context.Context, b *Batch) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.counter != nil {
		s.counterMu.Lock()
		*s.counter++
		s.counterMu.Unlock()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.values == nil {
		s.values = map[string]string{}
	}
	res := &Result{Applied: true}
	for _, c := range b.If {
		v, ok := s.values[c.Key]
		if c.Absent && ok || !c.Absent && (!ok || v != c.Value) {
			res.Applied = false
			break
		}
	}
	if res.Applied {
		for _, op := range b.Ops {
			i, found := slices.BinarySearch(s.keys, op.Key)
			switch {
			case op.Delete && found:
				s.keys = slices.Delete(s.keys, i, i+1)
				delete(s.values, op.Key)
			case !op.Delete && !found:
				s.keys = slices.Insert(s.keys, i, op.Key)
				fallthrough
			case !op.Delete:
				s.values[op.Key] = op.Value
			}
		}
	}
	for _, sc := range b.Scans {
		lo, _ := slices.BinarySearch(s.keys, sc.Start)
		hi := len(s.keys)
		if sc.End != "" {
			hi, _ = slices.BinarySearch(s.keys, sc.End)
		}
		var out Entries
		if hi > lo {
			if sc.Count {
				out.Count = hi - lo
			} else {
				n := hi - lo
				if sc.Limit > 0 {
					n = min(n, sc.Limit)
				}
				for j := range n {
					k := s.keys[lo+j]
					if sc.Reverse {
						k = s.keys[hi-1-j]
					}
					out.Entries = append(out.Entries, Entry{k, s.values[k]})
				}
				out.Count = n
			}
		}
		res.Scans = append(res.Scans, out)
	}
	return res, nil
}

// Dump returns every entry whose key starts with prefix, for tests.
func (s *MemStore) Dump(prefix string) []Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Entry
	for _, k := range s.keys {
		if strings.HasPrefix(k, prefix) {
			out = append(out, Entry{k, s.values[k]})
		}
	}
	return out
}
