//go:build js && wasm

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall/js"

	"github.com/syumai/workers/cloudflare"
	"github.com/syumai/workers/cloudflare/queues"

	"github.com/webkeep/webkeep/shared/mergedindex"
	"github.com/webkeep/webkeep/wasm/jspromise"
)

// durableStores is mergedindex.Stores over the IndexStore Durable Object namespace
// (glue/store.mjs): each store the object idFromName(name), called by RPC.
type durableStores struct {
	ns js.Value
}

func newDurableStores(binding string) (*durableStores, error) {
	ns := cloudflare.GetBinding(binding)
	if ns.IsUndefined() || ns.IsNull() {
		return nil, fmt.Errorf("no binding %s", binding)
	}
	return &durableStores{ns: ns}, nil
}

// Open implements mergedindex.Stores: a stub costs no round trip, the object is reached
// at the first call.
func (d *durableStores) Open(name string) mergedindex.Store {
	return &durableStore{name: name, stub: d.ns.Call("get", d.ns.Call("idFromName", name))}
}

// durableStore is one IndexStore: Do sends the Batch's JSON to its RPC method batch.
type durableStore struct {
	name string
	stub js.Value
}

func (s *durableStore) Do(ctx context.Context, b *mergedindex.Batch) (*mergedindex.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	body, err := json.Marshal(b)
	if err != nil {
		return nil, fmt.Errorf("%w: index store %s: %v", mergedindex.ErrStore, s.name, err)
	}
	v, err := jspromise.Await(s.stub.Call("batch", string(body)))
	if err != nil {
		return nil, fmt.Errorf("%w: index store %s: %v", mergedindex.ErrStore, s.name, err)
	}
	var res mergedindex.Result
	if err := json.Unmarshal([]byte(v.String()), &res); err != nil {
		return nil, fmt.Errorf("%w: index store %s answered %.100q: %v", mergedindex.ErrStore, s.name, v.String(), err)
	}
	if len(res.Scans) != len(b.Scans) {
		return nil, fmt.Errorf("%w: index store %s answered %d scans of %d", mergedindex.ErrStore, s.name, len(res.Scans), len(b.Scans))
	}
	return &res, nil
}

// compactQueue sends the shards due for compaction to the queue, once each per
// request. A failure is logged: the shard is due again at its next write.
type compactQueue struct {
	p    *queues.Producer
	mu   sync.Mutex
	sent map[string]bool
}

func newCompactQueue(binding string) (*compactQueue, error) {
	p, err := queues.NewProducer(binding)
	if err != nil {
		return nil, err
	}
	return &compactQueue{p: p, sent: map[string]bool{}}, nil
}

func (q *compactQueue) Due(shard string) {
	q.mu.Lock()
	seen := q.sent[shard]
	q.sent[shard] = true
	q.mu.Unlock()
	if seen {
		return
	}
	if err := q.p.SendText(shard); err != nil {
		fmt.Fprintf(os.Stderr, "webkeep worker: queueing the compaction of %s: %v\n", shard, err)
	}
}

// missingStores answers every call with the configuration error: without its
// Durable Objects, the index kept in memory would be lost with each request.
type missingStores struct{}

var errNoIndex = errors.New("the Durable Object binding INDEX is not configured (see wrangler.toml)")

func (missingStores) Open(string) mergedindex.Store { return missingStores{} }

func (missingStores) Do(context.Context, *mergedindex.Batch) (*mergedindex.Result, error) {
	return nil, errNoIndex
}
