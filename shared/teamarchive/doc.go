// Package teamarchive is the team archive that the webkeep Worker serves: one place
// where a team pools its capture bundles and shares its URL database.
//
// A Server is an http.Handler over a Bucket, the object store (Cloudflare R2 in the
// Worker, MemBucket in tests and for local use). It answers:
//
//	PUT    /api/bundles/{name}           store a bundle (zip) or a WARC, index it (CDXJ)
//	GET    /api/bundles?limit=&cursor=   list bundles, paged
//	GET    /api/bundles/{name}           the bytes, Range supported
//	GET    /api/bundles/{name}?cdxj      its CDXJ index, sorted, as the merged index took it
//	GET    /api/bundles/{name}/{file}    one file of a bundle (the WARC a CDXJ line names)
//	DELETE /api/bundles/{name}           remove a bundle
//	POST   /api/uploads/{name}           start an upload in parts (R2's multipart upload)
//	PUT    /api/uploads/{name}/{id}/{n}  part n
//	GET    /api/uploads/{name}/{id}      the parts received, to resume
//	POST   /api/uploads/{name}/{id}      complete: assemble, index, list as PUT does
//	DELETE /api/uploads/{name}/{id}      abort
//	GET    /api/uploads                  uploads in progress
//	DELETE /api/uploads                  sweep abandoned uploads now
//	GET    /api/cdx?url=&matchType=&from=&to=&limit=&filter=&...
//	                                     CDXJ lines across all bundles from the merged
//	                                     index, as pywb's CDX server (shared/cdxserver)
//	POST   /api/digests                  which payload digests the bundles hold
//	GET    /api/index                    the merged index's shards
//	POST   /api/index/compact?shard=     compact a shard (or all) now
//	GET    /api/notary/head|key          the notary log's signed tree head, its key
//	GET    /api/notary/proof|consistency proofs of inclusion and consistency
//	GET    /api/notary/leaf/{index}      one leaf of the log
//	GET    /api/urldb                    the shared URL database as a zip of domain files
//	GET    /api/urldb/{domain}.yaml      one domain file, with its ETag
//	PUT    /api/urldb/{domain}.yaml      replace it: validated, If-Match/If-None-Match
//	DELETE /api/urldb/{domain}.yaml      remove it (If-Match required)
//
// Writes need "Authorization: Bearer <token>" with one of Config.Tokens; reads need it
// too unless Config.PublicReads is set.
//
// # Storage layout
//
// Everything lives in one bucket, under keys that a bundle name cannot escape (names
// are checked by ValidName):
//
//	data/{name}/{upload}     the uploaded bytes, one object per upload
//	cdx/{name}/{upload}      the upload's sorted CDXJ index
//	zipnum/{shard}/{gen}-{id}.cdxj.gz  a shard's main index blocks (shared/mergedindex)
//	index/{name}             the listing entry: JSON body, the same facts as custom metadata
//	urldb/{domain}.yaml      URL database files
//	uploads/{name}/{upload}  an upload in progress (in parts or a single PUT)
//	parts/{name}/{upload}/{n} a part received (its bucket ETag and hash state)
//
// An upload writes its data and its index under a fresh upload id and writes the
// listing entry last, with a condition (create-only, or If-Match the entry it
// replaces), so an interrupted or losing upload is never listed, a concurrent upload
// of the same name cannot be lost silently, and the loser removes what it wrote. Its
// record under uploads/ goes first and last, so that what a stopped Worker left is
// found and removed by the sweep of uploads older than Config.UploadTTL.
//
// # The merged index
//
// CDX queries never read a bundle's own index: every upload's lines go into one
// merged index (shared/mergedindex) before the bundle is listed, and out of it
// before a replaced or deleted bundle's data goes. Its shards, the digest index and
// the notary log live in Config.Stores (Durable Objects in the Worker).
package teamarchive
