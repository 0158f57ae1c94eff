package recorder_test

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/webkeep/webkeep/shared/recorder"
)

// mapStore is the least recorder.Store the tests need: a map under a lock. (The stores the
// recorder runs on are its owner's, capture.MemStore among them.)
type mapStore struct {
	mu sync.Mutex
	m  map[string][]byte
}

func newMapStore() *mapStore { return &mapStore{m: map[string][]byte{}} }

func (s *mapStore) Put(key string, value []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[key] = slices.Clone(value)
	return nil
}

func (s *mapStore) Get(key string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[key]
	if !ok {
		return nil, fmt.Errorf("no key %q", key)
	}
	return v, nil
}

func (s *mapStore) Keys(prefix string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var keys []string
	for _, k := range slices.Sorted(maps.Keys(s.m)) {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	return keys, nil
}

func (s *mapStore) Delete(prefix string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	maps.DeleteFunc(s.m, func(k string, _ []byte) bool { return strings.HasPrefix(k, prefix) })
	return nil
}

func TestOpenChunks(t *testing.T) {
	for _, tc := range []struct {
		values map[string]string
		prefix string
		want   string
	}{
		{map[string]string{}, "a/", ""},
		{map[string]string{"a/2": "two", "a/1": "one-", "b/1": "other"}, "a/", "one-two"},
		{map[string]string{"a/1": "", "a/2": "x", "a/3": ""}, "a/", "x"},
	} {
		s := newMapStore()
		for k, v := range tc.values {
			s.Put(k, []byte(v))
		}
		r, err := recorder.OpenChunks(s, tc.prefix)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		if err != nil || string(got) != tc.want {
			t.Errorf("%v under %q: %q, %v; want %q", tc.values, tc.prefix, got, err, tc.want)
		}
	}
}
