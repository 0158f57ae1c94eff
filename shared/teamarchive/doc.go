// Package teamarchive is the team archive that the webkeep Worker serves: one place
// where a team pools its capture bundles and shares its URL database.
//
// A Server is an http.Handler over a Bucket, the object store (Cloudflare R2 in the
// Worker, MemBucket in tests and for local use). It answers:
//
//	PUT    /api/bundles/{name}           store a bundle (zip) or a WARC, index it (CDXJ)
//	GET    /api/bundles?limit=&cursor=   list bundles, paged
//	GET    /api/bundles/{name}           the bytes, Range supported
//	GET    /api/bundles/{name}/{file}    one file of a bundle (the WARC a CDXJ line names)
//	DELETE /api/bundles/{name}           remove a bundle
//	POST   /api/uploads/{name}           start an upload in parts (R2's multipart upload)
//	PUT    /api/uploads/{name}/{id}/{n}  part n
//	GET    /api/uploads/{name}/{id}      the parts received, to resume
//	POST   /api/uploads/{name}/{id}      complete: assemble, index, list as PUT does
//	DELETE /api/uploads/{name}/{id}      abort
//	GET    /api/uploads                  uploads in progress
//	DELETE /api/uploads                  sweep abandoned uploads now
//	GET    /api/cdx?url=&matchType=&from=&to=&limit=&output=
//	                                     CDXJ lines across all bundles, as pywb's CDX server
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
package teamarchive
