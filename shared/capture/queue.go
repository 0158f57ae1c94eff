package capture

import "sync"

// taskQueue runs functions one at a time in the order they were pushed. push never
// blocks, so it can be called from a JavaScript callback, which must not wait.
type taskQueue struct {
	onPanic func(any) // a task that panics is reported here; the queue goes on
	mu      sync.Mutex
	items   []func()
	notify  chan struct{}
}

func newTaskQueue() *taskQueue { return &taskQueue{notify: make(chan struct{}, 1)} }

func (q *taskQueue) push(f func()) {
	q.mu.Lock()
	q.items = append(q.items, f)
	q.mu.Unlock()
	select {
	case q.notify <- struct{}{}:
	default:
	}
}

// run executes queued functions until the program ends.
func (q *taskQueue) run() {
	for range q.notify {
		for {
			q.mu.Lock()
			if len(q.items) == 0 {
				q.mu.Unlock()
				break
			}
			f := q.items[0]
			q.items[0] = nil
			q.items = q.items[1:]
			q.mu.Unlock()
			q.call(f)
		}
	}
}

func (q *taskQueue) call(f func()) {
	defer func() {
		if p := recover(); p != nil && q.onPanic != nil {
			q.onPanic(p)
		}
	}()
	f()
}
