//go:build js && wasm

package main

import (
	"errors"
	"fmt"
	"testing"

	"github.com/webkeep/webkeep/shared/capture"
)

// TestNotFound: the store's error for a missing key is capture.ErrNotFound, with the
// key, worded as fmt.Errorf("%w: %s") words it.
func TestNotFound(t *testing.T) {
	for _, key := range []string{"settings", "state", "s/20261126-abc/info", ""} {
		err := error(notFound(key))
		if !errors.Is(err, capture.ErrNotFound) {
			t.Errorf("notFound(%q) is not capture.ErrNotFound", key)
		}
		if want := fmt.Errorf("%w: %s", capture.ErrNotFound, key).Error(); err.Error() != want {
			t.Errorf("notFound(%q) says %q, want %q", key, err.Error(), want)
		}
		if wrapped := fmt.Errorf("loading: %w", err); !errors.Is(wrapped, capture.ErrNotFound) {
			t.Errorf("notFound(%q), wrapped, is not capture.ErrNotFound", key)
		}
	}
}
