package recorder

// The external tests (package recorder_test) size their bodies by these.
const (
	IOReadSize = ioReadSize
	WholeLimit = wholeLimit
)
