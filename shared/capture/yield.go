package capture

import (
	"context"
	"io"
	"time"
)

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

// turnEvery is the longest long work (an import, loading a database) runs before it
// gives the event loop a turn, so that the API still answers meanwhile. Each answer
// takes several turns (the request comes in, the response starts, its body is read),
// and each waits for the work's current stretch to end: at 50 ms, /api/status went
// unanswered for 2 s while the largest URL database loaded; at 10 ms, under 0.5 s.
// A turn costs about 1 ms.
const turnEvery = 10 * time.Millisecond

// pacer gives the event loop a turn whenever turnEvery has passed since the last one.
type pacer struct{ last time.Time }

// pace yields if it is time to.
func (p *pacer) pace() {
	if now := time.Now(); now.Sub(p.last) >= turnEvery {
		yield()
		p.last = time.Now()
	}
}

// jobInput reads a job's input: it stops once ctx is done, reports to progress the
// furthest byte read of size, and paces the work, whose reads it sees often enough
// (a decompressor reads its input a few KB at a time).
type jobInput struct {
	r        io.ReaderAt
	ctx      context.Context
	size     int64
	progress func(done, total int)
	far      int64
	pacer
}

func (j *jobInput) ReadAt(p []byte, off int64) (int, error) {
	if err := j.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := j.r.ReadAt(p, off)
	if end := off + int64(n); end > j.far {
		j.far = end
		if j.progress != nil {
			j.progress(int(j.far), int(j.size))
		}
	}
	j.pace()
	return n, err
}

// maxJobRead bounds one read of a job's input: a decompressor, which may inflate a few
// KB into megabytes, then comes back to the input (to pace, and to see a cancel) often.
const maxJobRead = 1 << 10

// jobReader reads a job's input at most maxJobRead bytes at a time, pacing the work
// and stopping once ctx is done.
type jobReader struct {
	r   io.Reader
	ctx context.Context
	pacer
}

func (j *jobReader) Read(p []byte) (int, error) {
	if err := j.ctx.Err(); err != nil {
		return 0, err
	}
	if len(p) > maxJobRead {
		p = p[:maxJobRead]
	}
	n, err := j.r.Read(p)
	j.pace()
	return n, err
}
