package recorder

// The files a page holds for the recorder to read rather than sending their bytes
// through the binding (a copy announced with "pull", see uploadScript): the recorder
// reads each through DevTools (IO.resolveBlob, then IO.read) as soon as the copy is
// announced, before the page may be left.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// heldFile is the JavaScript expression of file k of copy id held by uploadScript.
func heldFile(id, k int) string {
	return fmt.Sprintf(`globalThis[Symbol.for("webkeep.copies")]?.get(%d)?.[%d]`, id, k)
}

// pullCopy reads the files of c, a copy of u that the page of target t holds for the
// recorder, through DevTools (IO.resolveBlob, then IO.read), as soon as it is announced:
// the page may be left once its request is sent.
func (r *Recorder) pullCopy(ctx context.Context, t Target, u *pageUploads, c *pageUpload) {
	why := ""
	for k := range c.entries {
		if !c.entries[k].File {
			continue
		}
		b := &pulledFile{r: r, c: c}
		if err := r.readHeldFile(ctx, t, c, k, b); err != nil {
			why = err.Error()
			break
		}
		r.mu.Lock()
		if c.ended { // given up meanwhile
			r.mu.Unlock()
			return
		}
		c.entries[k].bytes = b.buf.Bytes()
		u.bytes += int64(b.buf.Len())
		r.mu.Unlock()
	}
	r.browser.Send(ctx, t, "Runtime.evaluate", map[string]any{"expression": fmt.Sprintf(`globalThis[Symbol.for("webkeep.copies")]?.delete(%d)`, c.id), "contextId": c.from.context})
	r.mu.Lock()
	defer r.mu.Unlock()
	if why != "" {
		u.fail(c, why)
		return
	}
	if !c.ended {
		c.ended = true
		close(c.done)
	}
}

// pulledFile is a file of a copy being read (see pullCopy): each write to it shows
// that the copy's bytes keep coming.
type pulledFile struct {
	r   *Recorder
	c   *pageUpload
	buf bytes.Buffer
}

// Write adds p to the file, and shows that the copy's bytes keep coming; it fails
// once the copy was given up.
func (f *pulledFile) Write(p []byte) (int, error) {
	f.r.mu.Lock()
	defer f.r.mu.Unlock()
	if f.c.ended {
		return 0, errors.New("the copy was given up")
	}
	close(f.c.more)
	f.c.more = make(chan struct{})
	return f.buf.Write(p)
}

// readHeldFile writes to w the bytes of file k of c, held by the page of target t.
func (r *Recorder) readHeldFile(ctx context.Context, t Target, c *pageUpload, k int, w io.Writer) error {
	res, err := r.browser.Send(ctx, t, "Runtime.evaluate", map[string]any{"expression": heldFile(c.id, k), "contextId": c.from.context})
	if err != nil {
		return fmt.Errorf("the page's file could not be reached: %w", err)
	}
	var found struct {
		Result struct {
			ObjectID string `json:"objectId"`
		} `json:"result"`
	}
	if err := json.Unmarshal(res, &found); err != nil || found.Result.ObjectID == "" {
		return errors.New("the page no longer held its file")
	}
	defer r.browser.Send(ctx, t, "Runtime.releaseObject", map[string]any{"objectId": found.Result.ObjectID})
	res, err = r.browser.Send(ctx, t, "IO.resolveBlob", map[string]any{"objectId": found.Result.ObjectID})
	if err != nil {
		return fmt.Errorf("the page's file could not be opened: %w", err)
	}
	var blob struct {
		UUID string `json:"uuid"`
	}
	if err := json.Unmarshal(res, &blob); err != nil || blob.UUID == "" {
		return errors.New("the page's file could not be opened")
	}
	size := c.entries[k].Size
	n, err := copyStream(ctx, r.browser, t, "blob:"+blob.UUID, w, size+1)
	switch {
	case err != nil:
		return fmt.Errorf("reading the page's file failed after %d bytes: %w", n, err)
	case n != size:
		return fmt.Errorf("the page's file had %d bytes, not the %d announced", n, size)
	}
	return nil
}
