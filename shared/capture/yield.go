package capture

import "io"

// yieldEvery is how much of a body is compressed and hashed between two turns given
// to the event loop.
const yieldEvery = 128 << 10

// yieldingReader gives the rest of the program a turn every yieldEvery bytes read. In
// the browser, Go runs on the service worker's only thread: writing a large record
// would otherwise hold back every debugger event until it ends.
type yieldingReader struct {
	r io.Reader
	n int
}

func (y *yieldingReader) Read(p []byte) (int, error) {
	if len(p) > yieldEvery {
		p = p[:yieldEvery]
	}
	n, err := y.r.Read(p)
	y.n += n
	if y.n >= yieldEvery {
		y.n = 0
		yield()
	}
	return n, err
}
