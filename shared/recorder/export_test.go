package recorder

import "time"

// The external tests (package recorder_test) size their bodies by these.
const (
	IOReadSize = ioReadSize
	WholeLimit = wholeLimit
)

// SetExtraWait sets how long an ending hop waits for its ExtraInfo, and returns a
// function that sets it back.
func SetExtraWait(d time.Duration) (restore func()) {
	old := extraWait
	extraWait = d
	return func() { extraWait = old }
}
