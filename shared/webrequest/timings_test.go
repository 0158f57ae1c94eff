package webrequest

import (
	"testing"
	"time"
)

// firefoxIdle is how long Firefox lets a background page sit idle before it suspends it.
const firefoxIdle = 30 * time.Second

// TestTimingsHold checks the background page's waits against one another and against
// Firefox's own limits: each must outlast or come before what it guards.
func TestTimingsHold(t *testing.T) {
	for _, c := range []struct {
		what          string
		shorter, than time.Duration
	}{
		{"LeaveCheck outlasts the margin whose events it waits for", LeaveMargin * time.Millisecond, LeaveCheck},
		{"a body is kept longer than the core waits for it", BodyWait, Forget},
		{"the page is called before Firefox finds it idle", KeepAlive, firefoxIdle},
	} {
		if c.shorter >= c.than {
			t.Errorf("%s: %v is not shorter than %v", c.what, c.shorter, c.than)
		}
	}
}
