//go:build js && wasm

// Command worker is the webkeep team archive as a Cloudflare Worker: the
// shared/teamarchive Server over an R2 bucket, served with github.com/syumai/workers.
//
// Bindings (wrangler.toml): ARCHIVE, the R2 bucket; WEBKEEP_TOKENS, a secret of
// comma-separated bearer tokens ("name:secret" or "secret"); WEBKEEP_PUBLIC_READS,
// "1" to let reads go without a token; WEBKEEP_MAX_BUNDLE_BYTES, the limit of an upload
// in one request; WEBKEEP_MAX_UPLOAD_BYTES, of an upload in parts; WEBKEEP_PART_BYTES,
// the size of its parts; WEBKEEP_UPLOAD_TTL, the age (a Go duration, "24h") past which
// an unfinished upload is swept; INDEX, the Durable Object namespace of the merged
// index's stores; COMPACT, the queue of shards due for compaction, which this Worker
// also consumes; WEBKEEP_INDEX_LINES_PER_BLOCK, WEBKEEP_INDEX_DELTA_LIMIT and
// WEBKEEP_INDEX_SPLIT_LINES, the merged index's tuning (mergedindex.Config), and
// WEBKEEP_INDEX_LEASE, how long a killed compaction holds its shard ("15m");
// WEBKEEP_NOTARY_KEY, a secret: the note signer key of the notary log's tree heads
// (webkeep notary keygen; without it the heads are unsigned); WEBKEEP_SIGNING_KEY, a
// secret: the team's WACZ signing key, an ECDSA private key in PEM (webkeep wacz
// keygen; without it POST /api/sign answers 404); WEBKEEP_SIGNING_CERT, that key's
// certificate chain in PEM, for wacz-auth's domain-name form; WEBKEEP_TSA_URL, an
// RFC 3161 timestamp authority that stamps the team's signatures and the notary
// log's tree heads.
//
// The JavaScript glue in glue/ instantiates this program once per request (as
// syumai/workers' own glue does): one instance serving the requests of an isolate
// would run each request's goroutines in whichever request's callback resumes Go, and
// in workerd a request's I/O belongs to the request it is started in. Everything
// below the http.Handler is ordinary Go, tested natively in shared/teamarchive.
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"syscall/js"
	"time"

	"github.com/syumai/workers"
	"github.com/syumai/workers/cloudflare"
	"github.com/syumai/workers/cloudflare/queues"

	"github.com/webkeep/webkeep/shared/mergedindex"
	"github.com/webkeep/webkeep/shared/teamarchive"
	"github.com/webkeep/webkeep/shared/teamsearch"
	"github.com/webkeep/webkeep/shared/tsa"
	"github.com/webkeep/webkeep/shared/waczauth"
	"github.com/webkeep/webkeep/wasm/jsfetch"
)

func main() {
	// The environment is read here, while the glue's per-request context is current
	// (see glue/worker.mjs).
	bucket := cloudflare.GetBinding("ARCHIVE")
	cfg := teamarchive.Config{
		Tokens:      teamarchive.ParseTokens(cloudflare.Getenv("WEBKEEP_TOKENS")),
		PublicReads: isTrue(cloudflare.Getenv("WEBKEEP_PUBLIC_READS")),
		// The notary log's signer key (a secret); the log is the store "notary" of
		// INDEX.
		NotaryKey: cloudflare.Getenv("WEBKEEP_NOTARY_KEY"),
		Logf: func(format string, args ...any) {
			fmt.Fprintf(os.Stderr, format+"\n", args...)
		},
	}
	if n, err := strconv.ParseInt(cloudflare.Getenv("WEBKEEP_MAX_BUNDLE_BYTES"), 10, 64); err == nil && n > 0 {
		cfg.MaxBundleSize = n
	}
	if n, err := strconv.ParseInt(cloudflare.Getenv("WEBKEEP_MAX_UPLOAD_BYTES"), 10, 64); err == nil && n > 0 {
		cfg.MaxUploadSize = n
	}
	if n, err := strconv.ParseInt(cloudflare.Getenv("WEBKEEP_PART_BYTES"), 10, 64); err == nil && n > 0 {
		// R2's bounds, and under Cloudflare's 100 MB request limit.
		cfg.PartSize = min(max(n, teamarchive.MinPartSize), 96<<20)
	}
	if d, err := time.ParseDuration(cloudflare.Getenv("WEBKEEP_UPLOAD_TTL")); err == nil && d > 0 {
		cfg.UploadTTL = d
	}
	// Tuning of the merged index (tests use small values to compact and split
	// often); zero keeps mergedindex's defaults.
	for name, dst := range map[string]*int{
		"WEBKEEP_INDEX_LINES_PER_BLOCK": &cfg.IndexLinesPerBlock,
		"WEBKEEP_INDEX_DELTA_LIMIT":     &cfg.IndexDeltaLimit,
		"WEBKEEP_INDEX_SPLIT_LINES":     &cfg.IndexSplitLines,
	} {
		if n, err := strconv.Atoi(cloudflare.Getenv(name)); err == nil && n > 0 {
			*dst = n
		}
	}
	if d, err := time.ParseDuration(cloudflare.Getenv("WEBKEEP_INDEX_LEASE")); err == nil && d > 0 {
		cfg.IndexLease = d
	}
	configureSigning(&cfg)
	if bucket.IsUndefined() {
		fmt.Fprintln(os.Stderr, "webkeep worker: the R2 binding ARCHIVE is missing (see wrangler.toml)")
		cfg.Bucket = missingBucket{}
	} else {
		cfg.Bucket = &r2Bucket{b: bucket}
	}
	// The merged CDX index: its shards in the INDEX Durable Objects, compaction
	// queued on COMPACT and run by this Worker's queue consumer.
	if stores, err := newDurableStores("INDEX"); err != nil {
		fmt.Fprintln(os.Stderr, "webkeep worker: the Durable Object binding INDEX is missing (see wrangler.toml):", err)
		cfg.Stores = missingStores{}
	} else {
		cfg.Stores = stores
	}
	if q, err := newCompactQueue("COMPACT"); err != nil {
		fmt.Fprintln(os.Stderr, "webkeep worker: the queue binding COMPACT is missing (see wrangler.toml); shards are compacted by the request that fills them:", err)
	} else {
		cfg.Due = q.Due
	}
	server := teamarchive.NewServer(cfg)
	queues.ConsumeNonBlock(func(batch *queues.MessageBatch) error {
		for _, m := range batch.Messages {
			shard, err := m.StringBody()
			if err != nil || !mergedindex.ValidShard(shard) && shard != teamsearch.QueueName {
				fmt.Fprintf(os.Stderr, "webkeep worker: a compaction message that names no shard (%.100q) dropped\n", shard)
				m.Ack() // not ours: nothing to retry
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			stats, err := server.Compact(ctx, shard)
			cancel()
			if err != nil {
				fmt.Fprintf(os.Stderr, "webkeep worker: compacting %s: %v\n", shard, err)
				m.Retry()
				continue
			}
			if stats.Skipped == "" && shard == teamsearch.QueueName {
				fmt.Fprintf(os.Stderr, "webkeep worker: merged %d text index segments: %d pages, %d of removed bundles dropped, in %.1f s\n",
					stats.Blocks, stats.Lines, stats.Removed, stats.Seconds)
			} else if stats.Skipped == "" {
				fmt.Fprintf(os.Stderr, "webkeep worker: compacted %s: %d lines in %d blocks (%d bytes), %d delta lines folded in, %d removed%s\n",
					shard, stats.Lines, stats.Blocks, stats.Bytes, stats.Delta, stats.Removed, map[bool]string{true: ", split off " + stats.Split}[stats.Split != ""])
			}
			m.Ack()
		}
		return nil
	})
	// syumai/workers' Serve returns once the answer's body has been read to its end.
	// A bodiless answer (204, 304) is never read: the glue (glue/worker.mjs) calls
	// finish when the answer it gets has no body, and the program ends all the same
	// instead of staying in its memory.
	finished := make(chan struct{})
	var once sync.Once
	js.Global().Get("context").Get("binding").Set("finish", js.FuncOf(func(js.Value, []js.Value) any {
		once.Do(func() { close(finished) })
		return nil
	}))
	workers.ServeNonBlock(server)
	workers.Ready()
	select {
	case <-workers.Done():
	case <-finished:
	}
}

func isTrue(s string) bool {
	b, err := strconv.ParseBool(s)
	return err == nil && b
}

// configureSigning reads the team's signing key, its certificate and the
// timestamp authority. A key that cannot be read is said in the log, and the
// archive then signs nothing (GET /api/signing says why).
func configureSigning(cfg *teamarchive.Config) {
	if u := cloudflare.Getenv("WEBKEEP_TSA_URL"); u != "" {
		cfg.Timestamper = &tsa.Client{URL: u, HTTP: jsfetch.Client{}}
	}
	cfg.SigningCert = []byte(cloudflare.Getenv("WEBKEEP_SIGNING_CERT"))
	pemKey := cloudflare.Getenv("WEBKEEP_SIGNING_KEY")
	if pemKey == "" {
		return
	}
	key, err := waczauth.ParsePrivateKey([]byte(pemKey))
	if err == nil {
		cfg.Signer, err = waczauth.NewSigner(key)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "webkeep worker: the signing key (WEBKEEP_SIGNING_KEY) is unusable, nothing is signed:", err)
		cfg.Signer, cfg.SigningKeyError = nil, err
	}
}
