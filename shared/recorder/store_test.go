package recorder_test

import (
	"io"
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
