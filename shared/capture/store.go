package capture

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/webkeep/webkeep/shared/recorder"
)

// ErrNotFound is returned by a Store for a key it does not hold.
var ErrNotFound = errors.New("capture: not found")

// Store keeps values under string keys. In the extension it is IndexedDB, which keeps
// what was written across service-worker and browser restarts; natively it is a
// directory or memory. Keys sort as byte strings. The recorder spools bodies in the
// same storage, so the interface is the recorder's; the stores here return
// ErrNotFound from Get for a missing key.
type Store = recorder.Store

// A BatchStore is a Store that puts several values in one transaction: after a
// crash it holds all of them or none. IndexedDB is one, and a transaction costs the
// service worker more than the puts in it.
type BatchStore interface {
	Store
	PutBatch(keys []string, values [][]byte) error
}

// putBatch puts values under keys, in one transaction when the store can.
func putBatch(s Store, keys []string, values [][]byte) error {
	if bs, ok := s.(BatchStore); ok {
		return bs.PutBatch(keys, values)
	}
	for i, k := range keys {
		if err := s.Put(k, values[i]); err != nil {
			return err
		}
	}
	return nil
}

// MemStore is a Store in memory, for tests and short-lived tools.
type MemStore struct {
	mu sync.Mutex
	m  map[string][]byte
}

// NewMemStore returns an empty MemStore.
func NewMemStore() *MemStore { return &MemStore{m: make(map[string][]byte)} }

// Put stores a copy of value.
func (s *MemStore) Put(key string, value []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[key] = bytes.Clone(value)
	return nil
}

// Get returns the value of key.
func (s *MemStore) Get(key string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[key]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, key)
	}
	return v, nil
}

// Keys returns the sorted keys with the prefix.
func (s *MemStore) Keys(prefix string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var keys []string
	for k := range s.m {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys, nil
}

// Delete removes the keys with the prefix.
func (s *MemStore) Delete(prefix string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range s.m {
		if strings.HasPrefix(k, prefix) {
			delete(s.m, k)
		}
	}
	return nil
}

// DirStore is a Store in a directory: one file per key, the key escaped into a file
// name, so no key can name a path outside the directory.
type DirStore struct{ dir string }

// NewDirStore returns a DirStore in dir, creating it if needed.
func NewDirStore(dir string) (*DirStore, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("capture: store: %w", err)
	}
	return &DirStore{dir: dir}, nil
}

// fileName escapes a key: every byte outside [A-Za-z0-9._-] becomes %XX, so "/" and ".."
// cannot leave the directory.
func fileName(key string) string {
	var b strings.Builder
	for i := 0; i < len(key); i++ {
		c := key[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || (c == '.' && i > 0) {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

func keyName(file string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(file); i++ {
		if file[i] == '%' && i+2 < len(file) {
			var c byte
			if _, err := fmt.Sscanf(file[i+1:i+3], "%02X", &c); err != nil {
				return "", false
			}
			b.WriteByte(c)
			i += 2
			continue
		}
		b.WriteByte(file[i])
	}
	return b.String(), true
}

// Put writes value to the key's file through a temporary file and a rename, so a crash
// leaves the old value or the new one.
func (s *DirStore) Put(key string, value []byte) error {
	path := filepath.Join(s.dir, fileName(key))
	tmp, err := os.CreateTemp(s.dir, ".put-*")
	if err != nil {
		return fmt.Errorf("capture: store put %s: %w", key, err)
	}
	_, err = tmp.Write(value)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("capture: store put %s: %w", key, err)
	}
	return nil
}

// Get reads the key's file.
func (s *DirStore) Get(key string) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(s.dir, fileName(key)))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, key)
	}
	return b, err
}

// Keys lists the keys with the prefix.
func (s *DirStore) Keys(prefix string) ([]string, error) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("capture: store keys: %w", err)
	}
	var keys []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".put-") {
			continue
		}
		if k, ok := keyName(e.Name()); ok && strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys, nil
}

// Delete removes the keys with the prefix.
func (s *DirStore) Delete(prefix string) error {
	keys, err := s.Keys(prefix)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := os.Remove(filepath.Join(s.dir, fileName(k))); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("capture: store delete %s: %w", k, err)
		}
	}
	return nil
}
