// Package cdx computes the CDX keys and CDXJ index lines that pywb 2.6.7
// computes, POST and PUT requests included.
//
// Replay tools find a non-GET capture only when the key stored in the index
// equals the key they compute at lookup time, so every function here follows
// pywb's real behaviour (pywb/warcserver/inputrequest.py
// MethodQueryCanonicalizer, pywb/indexer/archiveindexer.py and cdxindexer.py,
// and the python surt 0.3.1 library) rather than the text of the draft "CDX for
// non-GET requests", wherever the two differ.
//
// EncodeRequest appends the method and body query to a URL, SURT turns a URL
// into its sort-friendly key, Entry.AppendLine formats one CDXJ line, and
// Writer collects lines into a sorted index. The Pywb28 dialect renders JSON
// bodies as pywb >= 2.8.4 does (true/false/null, whole floats without ".0").
//
// Indexer.Index reads whole WARC files, and Indexer.Follow takes records as a
// writer writes them, and both emit the entries of pywb 2.6.7's "cdx-indexer
// --sort --cdxj --postappend" over warcio 1.7.4: which records make lines, the
// HTTP message as warcio parses it, requests paired with responses by
// WARC-Concurrent-To, and lengths as warcio counts them (a gzip member, or in a
// plain file the header and block without the CRLF CRLF after it).
// docs/cdx.md lists every field.
//
// Python semantics that matter and are reproduced: str() of JSON numbers
// (44.0, 1e+20, 1.5e-07, integers exact at any size), urllib's quote_plus and
// unquote_plus, json.loads' encoding detection (BOM, UTF-16, UTF-32) and
// grammar (NaN, Infinity, lone surrogates), cgi.FieldStorage's multipart
// parsing, and str slicing in code points for the 4096-character cap.
package cdx
