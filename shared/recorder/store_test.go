package recorder_test

import (
	"io"
	"slices"
	"testing"

	"github.com/webkeep/webkeep/shared/capture"
	"github.com/webkeep/webkeep/shared/recorder"
)

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
		s := capture.NewMemStore()
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

// deleteCounter is a store that counts its Delete calls.
type deleteCounter struct {
	*capture.MemStore
	deletes int
}

func (d *deleteCounter) Delete(prefix string) error {
	d.deletes++
	return d.MemStore.Delete(prefix)
}

func TestCleanSpools(t *testing.T) {
	for _, tc := range []struct {
		keys        []string
		wantDeletes int
		wantKeys    []string
	}{
		{nil, 0, nil},
		{[]string{"settings"}, 0, []string{"settings"}},
		{[]string{"settings", recorder.NewSpoolPrefix() + "0000000000", recorder.NewSpoolPrefix() + "0000000001"}, 1, []string{"settings"}},
	} {
		s := &deleteCounter{MemStore: capture.NewMemStore()}
		for _, k := range tc.keys {
			s.Put(k, []byte("x"))
		}
		recorder.CleanSpools(s)
		got, err := s.Keys("")
		if err != nil {
			t.Fatal(err)
		}
		if s.deletes != tc.wantDeletes || !slices.Equal(got, tc.wantKeys) {
			t.Errorf("keys %q: %d deletions, left %q; want %d, %q", tc.keys, s.deletes, got, tc.wantDeletes, tc.wantKeys)
		}
	}
}
