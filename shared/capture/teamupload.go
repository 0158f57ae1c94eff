package capture

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/webkeep/webkeep/shared/httpmsg"
)

// An upload to the team archive goes in parts (POST /api/uploads/{name}, PUT each
// part, POST to complete; see shared/teamarchive): the fetch behind Go's HTTP client
// in the browser sends a request body whole, so one part at a time is what memory
// holds. The bundle is not stored a second time: writeBundle makes the same bytes
// from the same session and the same answers of the archive about the payloads it
// holds (asked once, before the first part: teamdedup.go), so each attempt writes it
// again from the start, skips the parts the archive says it has (checking they are
// the ones it sent, by their SHA-256), and sends the others. What the upload needs to
// go on (its id, the parts sent, those answers) is kept in the store, so that a
// network failure or a restarted service worker resumes it; on start, a service
// resumes the uploads a previous instance left.

// teamUploadPrefix keys the uploads in progress, by session id.
const teamUploadPrefix = "team-upload/"

// Bounds of an upload in parts.
const (
	maxTeamPartSize = 64 << 20 // a part the archive asks for, held in memory twice
	partAttempts    = 5        // tries of one part before the job fails (and may be resumed)
)

// partRetryDelay is the wait before the second try of a part, doubled each time.
var partRetryDelay = time.Second

// teamUploadState is an upload in progress, as the store keeps it.
type teamUploadState struct {
	Session   string    `json:"session"`
	Updated   time.Time `json:"updated"` // the session's, when the upload began
	Name      string    `json:"name"`
	Endpoint  string    `json:"endpoint"`
	Upload    string    `json:"upload"`
	PartSize  int64     `json:"partSize"`
	Overwrite bool      `json:"overwrite"`
	Parts     []string  `json:"parts"` // SHA-256 of each part sent, part n at n-1
	Size      int64     `json:"size"`  // of the bundle, once known
	// Dedup is what the archive answered, before the first part, of the payloads
	// it holds (teamdedup.go): every attempt writes the bundle from it. An upload
	// begun without it (by an older version) is written without revisits.
	Dedup *teamDedup `json:"dedup,omitempty"`
}

func (st *teamUploadState) save(store Store) error {
	b, _ := json.Marshal(st)
	if err := store.Put(teamUploadPrefix+st.Session, b); err != nil {
		return fmt.Errorf("keeping the upload's progress: %w", err)
	}
	return nil
}

func loadUploadState(store Store, session string) (*teamUploadState, error) {
	b, err := store.Get(teamUploadPrefix + session)
	if err != nil {
		return nil, err
	}
	var st teamUploadState
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("the upload of %s in progress: %w", session, err)
	}
	return &st, nil
}

// startUpload runs the upload of sess as the job "upload-<session id>".
func (tm *team) startUpload(sess *Session, overwrite bool) *Job {
	return tm.jobs.startAs("upload-"+sess.info.ID, "upload", func(ctx context.Context, progress func(done, total int)) (any, error) {
		return tm.uploadParts(ctx, sess, overwrite, progress)
	})
}

// resumeUploads starts again, as jobs, the uploads to the team archive a previous
// service instance left unfinished, and returns them.
func (tm *team) resumeUploads() []*Job {
	keys, err := tm.store.Keys(teamUploadPrefix)
	if err != nil {
		return nil
	}
	var started []*Job
	for _, k := range keys {
		id := strings.TrimPrefix(k, teamUploadPrefix)
		st, err := loadUploadState(tm.store, id)
		sess, serr := tm.sessions.find(id)
		if err != nil || serr != nil {
			tm.store.Delete(k) // its session is gone, or the record is damaged
			continue
		}
		started = append(started, tm.startUpload(sess, st.Overwrite))
	}
	return started
}

// uploadParts sends sess's bundle to the team archive in parts, resuming the upload
// the store keeps for it if there is one. A cancelled job aborts the upload on the
// archive; a failed one keeps it, to be resumed.
func (tm *team) uploadParts(ctx context.Context, sess *Session, overwrite bool, progress func(done, total int)) (any, error) {
	info := sess.Info()
	set := tm.settings.get()
	name := sess.BaseName() + ".zip"
	st, err := loadUploadState(tm.store, info.ID)
	switch {
	case errors.Is(err, ErrNotFound):
		st = nil
	case err != nil:
		tm.store.Delete(teamUploadPrefix + info.ID)
		st = nil
	}
	received := map[int]bool{}
	if st != nil {
		// Resumed only if it is the same bundle to the same archive, which still has it.
		same := st.Endpoint == set.TeamEndpoint && st.Updated.Equal(info.Updated) && (st.Overwrite || !overwrite)
		if same {
			received, err = tm.partsReceived(ctx, st)
			switch {
			case errors.Is(err, errUploadGone):
				same = false
			case err != nil:
				return nil, fmt.Errorf("%w (the upload resumes where it stopped when you upload again)", err)
			}
		}
		if !same {
			tm.abandonUpload(st)
			st = nil
		}
	}
	if st == nil {
		// Which payloads the team has is asked once, before the upload begins, and
		// kept with it.
		dedup, err := tm.askDigests(ctx, sess, name)
		if err != nil {
			return nil, err
		}
		path := "/api/uploads/" + name
		if overwrite {
			path += "?overwrite=1"
		}
		var created struct {
			Upload   string `json:"upload"`
			PartSize int64  `json:"partSize"`
		}
		if err := tm.call(ctx, httpmsg.MethodPost, path, nil, &created); err != nil {
			return nil, err
		}
		if created.PartSize <= 0 || created.PartSize > maxTeamPartSize || created.Upload == "" {
			return nil, fmt.Errorf("the team archive asked for parts of %d bytes (want 1 to %d) for upload %q", created.PartSize, maxTeamPartSize, created.Upload)
		}
		st = &teamUploadState{Session: info.ID, Updated: info.Updated, Name: name, Endpoint: set.TeamEndpoint,
			Upload: created.Upload, PartSize: created.PartSize, Overwrite: overwrite, Dedup: dedup}
		received = map[int]bool{}
		if err := st.save(tm.store); err != nil {
			return nil, err
		}
	}

	total := st.Size
	if total == 0 {
		total = info.Bytes // an estimate: the WARC is most of the bundle
	}
	progress(0, int(total))
	whole := sha256.New()
	pw := &partWriter{buf: make([]byte, 0, st.PartSize), whole: whole, send: func(n int, part []byte, done int64) error {
		sum := sha256.Sum256(part)
		hexSum := hex.EncodeToString(sum[:])
		if received[n] {
			if n <= len(st.Parts) && st.Parts[n-1] != hexSum {
				return fmt.Errorf("%w (part %d differs from the one sent)", errSessionChanged, n)
			}
		} else if err := tm.sendPart(ctx, st, n, part); err != nil {
			return err
		}
		if n > len(st.Parts) {
			st.Parts = append(st.Parts, make([]string, n-len(st.Parts))...)
		}
		st.Parts[n-1] = hexSum
		if err := st.save(tm.store); err != nil {
			return err
		}
		progress(int(done), int(max(total, done)))
		return nil
	}}
	var known map[string]teamHolder
	asked := 0
	if st.Dedup != nil {
		known, asked = st.Dedup.Known, st.Dedup.Asked
	}
	stats, err := sess.writeBundle(pw, known)
	if err == nil {
		err = pw.flush()
	}
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	switch {
	case ctx.Err() != nil:
		tm.abandonUpload(st)
		return nil, ctx.Err()
	case errors.Is(err, errSessionChanged):
		tm.abandonUpload(st)
		return nil, fmt.Errorf("%w: upload it again", err)
	case err != nil:
		return nil, fmt.Errorf("%w (the upload resumes where it stopped when you upload again)", err)
	}
	st.Size = pw.done
	progress(int(st.Size), int(st.Size))

	body, _ := json.Marshal(map[string]any{"parts": pw.n, "size": pw.done, "sha256": hex.EncodeToString(whole.Sum(nil))})
	var out TeamUpload
	err = tm.call(ctx, httpmsg.MethodPost, "/api/uploads/"+st.Name+"/"+st.Upload, body, &out)
	if err != nil {
		var te *teamError
		if !errors.As(err, &te) || te.status >= 500 {
			st.save(tm.store)
			return nil, fmt.Errorf("%w (the upload resumes where it stopped when you upload again)", err)
		}
		// Refused (a conflict, a check that failed): the archive dropped the upload.
		tm.abandonUpload(st)
		return nil, err
	}
	tm.store.Delete(teamUploadPrefix + st.Session)
	if out.Name == "" {
		out.Name = st.Name
	}
	return teamUploadResult{TeamUpload: out, Dedup: teamDedupResult{Revisits: stats.Revisits, BytesSaved: stats.BytesSaved, Asked: asked}}, nil
}

var (
	errSessionChanged = errors.New("the session changed since its upload began")
	errUploadGone     = errors.New("the team archive no longer has the upload")
)

// partsReceived asks the archive which parts of the upload it has.
func (tm *team) partsReceived(ctx context.Context, st *teamUploadState) (map[int]bool, error) {
	var got struct {
		Parts []struct {
			Number int   `json:"number"`
			Size   int64 `json:"size"`
		} `json:"parts"`
	}
	err := tm.call(ctx, httpmsg.MethodGet, "/api/uploads/"+st.Name+"/"+st.Upload, nil, &got)
	var te *teamError
	if errors.As(err, &te) && te.status == httpmsg.StatusNotFound {
		return nil, errUploadGone
	}
	if err != nil {
		return nil, err
	}
	received := map[int]bool{}
	for _, p := range got.Parts {
		received[p.Number] = true
	}
	return received, nil
}

// sendPart sends part n, trying again after a network failure or an answer of the
// archive's own failure (5xx), with growing waits.
func (tm *team) sendPart(ctx context.Context, st *teamUploadState, n int, part []byte) error {
	path := fmt.Sprintf("/api/uploads/%s/%s/%d", st.Name, st.Upload, n)
	delay := partRetryDelay
	var err error
	for try := 1; try <= partAttempts; try++ {
		var resp *httpmsg.Response
		resp, err = tm.request(ctx, httpmsg.MethodPut, path, bytes.NewReader(part), int64(len(part)))
		if err == nil {
			resp.Body.Close()
			return nil
		}
		var te *teamError
		if ctx.Err() != nil || errors.As(err, &te) && te.status < 500 {
			break
		}
		select {
		case <-time.After(delay):
		case <-ctx.Done():
		}
		delay *= 2
	}
	return fmt.Errorf("sending part %d (%d bytes) of %s: %w", n, len(part), st.Name, err)
}

// abandonUpload aborts an upload on the archive (best effort: it may be gone, or
// unreachable, and the archive sweeps what is left) and forgets it.
func (tm *team) abandonUpload(st *teamUploadState) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if tm.settings.get().TeamEndpoint == st.Endpoint {
		if resp, err := tm.request(ctx, httpmsg.MethodDelete, "/api/uploads/"+st.Name+"/"+st.Upload, nil, -1); err == nil {
			resp.Body.Close()
		}
	}
	tm.store.Delete(teamUploadPrefix + st.Session)
}

// call makes a request to the team archive and decodes its JSON answer into out.
func (tm *team) call(ctx context.Context, method, path string, body []byte, out any) error {
	var r io.Reader
	size := int64(-1)
	if body != nil {
		r, size = bytes.NewReader(body), int64(len(body))
	}
	resp, err := tm.request(ctx, method, path, r, size)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(out); err != nil {
		return fmt.Errorf("the team archive's answer to %s %s: %w", method, path, err)
	}
	return nil
}

// partWriter cuts what is written to it into parts of cap(buf) bytes and hands each to
// send, with the bytes written so far; whole sees every byte.
type partWriter struct {
	buf   []byte
	whole io.Writer
	send  func(n int, part []byte, done int64) error
	n     int   // parts handed to send
	done  int64 // bytes written
}

func (w *partWriter) Write(p []byte) (int, error) {
	written := 0
	for len(p) > 0 {
		k := min(len(p), cap(w.buf)-len(w.buf))
		w.buf = append(w.buf, p[:k]...)
		w.whole.Write(p[:k])
		w.done += int64(k)
		p, written = p[k:], written+k
		if len(w.buf) == cap(w.buf) {
			if err := w.flush(); err != nil {
				return written, err
			}
		}
	}
	return written, nil
}

// flush sends what is buffered as the next part.
func (w *partWriter) flush() error {
	if len(w.buf) == 0 {
		return nil
	}
	w.n++
	err := w.send(w.n, w.buf, w.done)
	w.buf = w.buf[:0]
	return err
}

// A teamError is an answer of the team archive that is an error.
type teamError struct {
	status int
	err    error
}

func (e *teamError) Error() string { return e.err.Error() }
func (e *teamError) Unwrap() error { return e.err }
