package teamarchive

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"iter"
	"net/http"
	"sync/atomic"

	"github.com/webkeep/webkeep/shared/cdxserver"
	"github.com/webkeep/webkeep/shared/mergedindex"
)

// queryCDX answers a CDX query (pywb's CDX server API, shared/cdxserver) from the
// merged index: a bounded number of reads whatever the number of bundles. The
// answer's X-Index-Reads header says how many store calls and blob reads it made.
func (s *Server) queryCDX(w http.ResponseWriter, r *http.Request) error {
	q, err := cdxserver.ParseQuery(r.URL.Query(), s.cfg.MaxQueryLimit)
	if err != nil {
		return err
	}
	ctx := r.Context()
	ix, reads := s.countingIndex()
	start, end := q.Start, q.End
	var out bytes.Buffer
	if q.Paged || q.ShowNumPages {
		size := q.PageSize
		if size == 0 {
			size = cdxserver.DefaultPageSize
		}
		bounds, blocks, err := ix.PageBounds(ctx, q.Start, q.End, size)
		if err != nil {
			return err
		}
		pages := len(bounds) - 1
		if q.ShowNumPages {
			if err := cdxserver.WriteNumPages(&out, pages, size, blocks); err != nil {
				return err
			}
			return reads.send(w, r, "application/json", &out)
		}
		if err := q.CheckPage(pages); err != nil {
			return err
		}
		start, end = bounds[q.Page], bounds[q.Page+1]
	}
	if err := q.Answer(&out, indexLines(ix.Lines(ctx, start, end, q.Descending()))); err != nil {
		return err
	}
	ctype := "text/x-cdxj; charset=utf-8"
	switch q.Output {
	case "json":
		ctype = "text/x-ndjson"
	case "text":
		ctype = "text/plain; charset=utf-8"
	}
	return reads.send(w, r, ctype, &out)
}

// indexLines gives the merged index's lines to cdxserver: they carry their source
// already (mergedindex.Tag).
func indexLines(lines iter.Seq2[[]byte, error]) iter.Seq2[cdxserver.Line, error] {
	return func(yield func(cdxserver.Line, error) bool) {
		for l, err := range lines {
			if !yield(cdxserver.Line{Text: l}, err) {
				return
			}
		}
	}
}

// indexReads counts a request's store calls and blob reads.
type indexReads struct {
	stores, blobs atomic.Int64
}

func (c *indexReads) send(w http.ResponseWriter, r *http.Request, ctype string, body *bytes.Buffer) error {
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("X-Index-Reads", fmt.Sprintf("stores=%d, blobs=%d", c.stores.Load(), c.blobs.Load()))
	if r.Method == http.MethodHead {
		return nil
	}
	_, err := body.WriteTo(w)
	return err
}

type countingStores struct {
	mergedindex.Stores
	n *atomic.Int64
}

func (c countingStores) Open(name string) mergedindex.Store {
	return countingStore{c.Stores.Open(name), c.n}
}

type countingStore struct {
	mergedindex.Store
	n *atomic.Int64
}

func (c countingStore) Do(ctx context.Context, b *mergedindex.Batch) (*mergedindex.Result, error) {
	c.n.Add(1)
	return c.Store.Do(ctx, b)
}

type countingBlobs struct {
	mergedindex.Blobs
	n *atomic.Int64
}

func (c countingBlobs) GetBlob(ctx context.Context, key string, off, n int64) (io.ReadCloser, error) {
	c.n.Add(1)
	return c.Blobs.GetBlob(ctx, key, off, n)
}

// countingIndex returns the merged index as s has it, counting its reads.
func (s *Server) countingIndex() (*mergedindex.Index, *indexReads) {
	reads := &indexReads{}
	cfg := s.indexConfig()
	cfg.Stores = countingStores{cfg.Stores, &reads.stores}
	cfg.Blobs = countingBlobs{cfg.Blobs, &reads.blobs}
	return mergedindex.New(cfg), reads
}
