#!/usr/bin/env python3
"""Writes the WARC files of shared/cdx/testdata/pywb-index/: the same records,
uncompressed (.warc) and compressed record-at-a-time (.warc.gz).

Run: python3 make_warcs.py OUTDIR
Only the standard library; the output is deterministic (gzip mtime 0)."""
import gzip, hashlib, base64, io, sys, os

def b32(data):
    return base64.b32encode(hashlib.sha1(data).digest()).decode()

def rec(version, fields, block, trailer=b"\r\n\r\n"):
    head = ("WARC/%s\r\n" % version).encode()
    for name, value in fields:
        head += name.encode() + b": " + (value.encode("utf-8") if isinstance(value, str) else value) + b"\r\n"
    head += b"Content-Length: %d\r\n\r\n" % len(block)
    return head + block + trailer

def http(block):
    return block.replace(b"\n", b"\r\n")

records = []
def add(version, typ, rid, uri, date, ctype, block, extra=(), trailer=b"\r\n\r\n"):
    f = [("WARC-Type", typ), ("WARC-Record-ID", "<urn:uuid:%s>" % rid)]
    if date is not None:
        f.append(("WARC-Date", date))
    if uri is not None:
        f.append(("WARC-Target-URI", uri))
    f.extend(extra)
    if ctype is not None:
        f.append(("Content-Type", ctype))
    records.append(rec(version, f, block, trailer))

D = "2024-05-06T07:08:09Z"
# 1. warcinfo
add("1.1", "warcinfo", "00000000-0000-4000-8000-000000000001", None, D, "application/warc-fields",
    b"software: make_warcs.py\r\nformat: WARC File Format 1.1\r\n", extra=[("WARC-Filename", "vectors.warc")])
# 2. GET: response, then its request (warcio/pywb recorder order)
page = b"<html>hello</html>"
add("1.1", "response", "00000000-0000-4000-8000-000000000002", "http://www.example.com/", D,
    "application/http;msgtype=response",
    http(b"HTTP/1.1 200 OK\nContent-Type: text/html; charset=utf-8\nContent-Length: 18\n\n") + page,
    extra=[("WARC-Payload-Digest", "sha1:" + b32(page)), ("WARC-Identified-Payload-Type", "text/html")])
add("1.1", "request", "00000000-0000-4000-8000-000000000003", "http://www.example.com/", D,
    "application/http;msgtype=request",
    http(b"GET / HTTP/1.1\nHost: www.example.com\n\n"),
    extra=[("WARC-Concurrent-To", "<urn:uuid:00000000-0000-4000-8000-000000000002>")])
# 3. POST form: request first, response concurrent to it; no payload digest (computed)
form = b"a=1&b=x+y%26z&c=%C3%A9"
add("1.0", "request", "00000000-0000-4000-8000-000000000004", "http://example.com/form?q=1", "2024-05-06T07:08:10Z",
    "application/http; msgtype=request",
    http(b"POST /form?q=1 HTTP/1.1\nHost: example.com\nContent-Type: application/x-www-form-urlencoded\nContent-Length: %d\n\n" % len(form)) + form)
add("1.0", "response", "00000000-0000-4000-8000-000000000005", "http://example.com/form?q=1", "2024-05-06T07:08:10Z",
    "application/http; msgtype=response",
    http(b"HTTP/1.1 200 OK\nContent-Type: text/html\n\n") + b"<p>thanks</p>",
    extra=[("WARC-Concurrent-To", "<urn:uuid:00000000-0000-4000-8000-000000000004>")])
# 4. PUT JSON: response first, request after, concurrent to the response
js = b'{"id": 7, "tags": ["x", "y"], "ok": true, "n": 1.0}'
add("1.1", "response", "00000000-0000-4000-8000-000000000006", "https://api.example.org/items/7", "2024-05-06T07:08:11.123456Z",
    "application/http; msgtype=response",
    http(b"HTTP/1.1 204 No Content\n\n"))
add("1.1", "request", "00000000-0000-4000-8000-000000000007", "https://api.example.org/items/7", "2024-05-06T07:08:11.123456Z",
    "application/http; msgtype=request",
    http(b"PUT /items/7 HTTP/1.1\nContent-Type: application/json\nContent-Length: %d\n\n" % len(js)) + js,
    extra=[("WARC-Concurrent-To", "<urn:uuid:00000000-0000-4000-8000-000000000006>")])
# 5. DELETE, request first: only the method is appended
add("1.1", "request", "00000000-0000-4000-8000-000000000008", "http://example.com/items/8", D,
    "application/http; msgtype=request", http(b"delete /items/8 HTTP/1.1\nContent-Length: 3\n\nabc"))
add("1.1", "response", "00000000-0000-4000-8000-000000000009", "http://example.com/items/8", D,
    "application/http; msgtype=response", http(b"HTTP/1.1 200 OK\nContent-Type: application/json\n\n") + b"{}",
    extra=[("WARC-Concurrent-To", "<urn:uuid:00000000-0000-4000-8000-000000000008>")])
# 6. revisit with HTTP headers, WARC-Refers-To-*; 7. revisit with an empty block
add("1.1", "revisit", "00000000-0000-4000-8000-00000000000a", "http://www.example.com/", "2024-05-07T00:00:00Z",
    "application/http; msgtype=response",
    http(b"HTTP/1.1 200 OK\nContent-Type: text/html; charset=utf-8\nContent-Length: 18\n\n"),
    extra=[("WARC-Profile", "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"),
           ("WARC-Refers-To", "<urn:uuid:00000000-0000-4000-8000-000000000002>"),
           ("WARC-Refers-To-Target-URI", "http://www.example.com/"), ("WARC-Refers-To-Date", D),
           ("WARC-Payload-Digest", "sha1:" + b32(page))])
add("1.0", "revisit", "00000000-0000-4000-8000-00000000000b", "http://example.com/empty-revisit", "2024-05-07T00:00:01Z",
    "application/http; msgtype=response", b"",
    extra=[("WARC-Profile", "http://netpreserve.org/warc/1.0/revisit/identical-payload-digest"),
           ("WARC-Refers-To", "<urn:uuid:00000000-0000-4000-8000-000000000099>"),
           ("WARC-Payload-Digest", "sha256:0000")])
# 8. metadata records: warc-fields (never indexed), text/anvl (not written), JSON (indexed)
add("1.1", "metadata", "00000000-0000-4000-8000-00000000000c", "http://www.example.com/", D,
    "application/warc-fields", b"outlink: http://example.com/form\r\n",
    extra=[("WARC-Concurrent-To", "<urn:uuid:00000000-0000-4000-8000-000000000002>")])
add("1.0", "metadata", "00000000-0000-4000-8000-00000000000d", "http://www.example.com/", D,
    "text/anvl", b"via: x\r\n")
add("1.1", "metadata", "00000000-0000-4000-8000-00000000000e", "urn:pageinfo:http://www.example.com/", D,
    "application/json", b'{"title": "hello"}', extra=[("WARC-Json-Metadata", '{"k": "v"}')])
# 9. resource records: with a URL, without a target URI, and a dns: response
add("1.1", "resource", "00000000-0000-4000-8000-00000000000f", "http://example.com/file.txt", D,
    "text/plain; charset=UTF-8", b"a resource\n")
add("1.1", "resource", "00000000-0000-4000-8000-000000000010", None, D, "text/plain", b"no target uri")
add("1.0", "response", "00000000-0000-4000-8000-000000000011", "dns:example.com", D, "text/dns",
    b"20240506070809\nexample.com.\t300\tIN\tA\t93.184.216.34\n")
# 10. HTTP status edge cases: 204 with Error, no status, status after two spaces, empty block,
#     unknown content type, bracketed and spaced target URIs, non-ASCII URL
add("1.1", "response", "00000000-0000-4000-8000-000000000012", "http://example.com/e204", D,
    "application/http; msgtype=response", http(b"HTTP/1.1 204 Error\n\n"))
add("1.1", "response", "00000000-0000-4000-8000-000000000013", "http://example.com/nostatus", D,
    "application/http; msgtype=response", http(b"HTTP/1.1\nContent-Type: text/plain\n\n") + b"x")
add("1.1", "response", "00000000-0000-4000-8000-000000000014", "http://example.com/twospaces", D,
    "application/http; msgtype=response", http(b"HTTP/1.1  404 Not Found\nContent-type:text/plain;charset=x\n\n") + b"missing")
add("1.1", "response", "00000000-0000-4000-8000-000000000015", "http://example.com/empty", D,
    "application/http; msgtype=response", b"")
add("1.1", "response", "00000000-0000-4000-8000-000000000016", "<http://example.com/bracketed>", D,
    "application/http; msgtype=response", http(b"HTTP/1.0 301 Moved\nLocation: /x\n\n"))
add("1.1", "response", "00000000-0000-4000-8000-000000000017", "http://example.com/a b?c d", D,
    "application/http; msgtype=response", http(b"HTTP/1.1 200 OK\nContent-Type: Text/HTML\n\n") + b"sp")
add("1.1", "response", "00000000-0000-4000-8000-000000000018", "http://example.com/caf\u00e9", D,
    "application/http; msgtype=response", http(b"HTTP/1.1 200 OK\nContent-Type: image/png\n\n") + b"\x89PNG")
# 11. a conversion record; extra blank lines after a record (uncompressed: not in its length)
add("1.1", "conversion", "00000000-0000-4000-8000-000000000019", "http://example.com/file.txt", D, "text/plain",
    b"converted\n", extra=[("WARC-Refers-To", "<urn:uuid:00000000-0000-4000-8000-00000000000f>")],
    trailer=b"\r\n\r\n\r\n\r\n")
# 12. segmented record: first segment (response) and its continuation
add("1.1", "response", "00000000-0000-4000-8000-00000000001a", "http://example.com/big", D,
    "application/http; msgtype=response", http(b"HTTP/1.1 200 OK\nContent-Type: application/octet-stream\n\n") + b"part one,",
    extra=[("WARC-Segment-Number", "1")])
add("1.1", "continuation", "00000000-0000-4000-8000-00000000001b", "http://example.com/big", D, None,
    b" part two", extra=[("WARC-Segment-Origin-ID", "<urn:uuid:00000000-0000-4000-8000-00000000001a>"),
                         ("WARC-Segment-Number", "2"), ("WARC-Segment-Total-Length", "72")])

# 13. pairing: a POST answered by a revisit (concurrent to the request), and a
#     revisit whose WARC-Refers-To (not WARC-Concurrent-To) names a request: not paired
body = b"q=again"
add("1.1", "request", "00000000-0000-4000-8000-00000000001c", "http://example.com/search", "2024-05-08T00:00:00Z",
    "application/http; msgtype=request",
    http(b"POST /search HTTP/1.1\nContent-Type: application/x-www-form-urlencoded\nContent-Length: 7\n\n") + body)
add("1.1", "revisit", "00000000-0000-4000-8000-00000000001d", "http://example.com/search", "2024-05-08T00:00:00Z",
    "application/http; msgtype=response", http(b"HTTP/1.1 200 OK\nContent-Type: text/html\n\n"),
    extra=[("WARC-Refers-To", "<urn:uuid:00000000-0000-4000-8000-000000000005>"),
           ("WARC-Concurrent-To", "<urn:uuid:00000000-0000-4000-8000-00000000001c>"),
           ("WARC-Payload-Digest", "sha1:HAVPI7Q36GMRKBTQSVMMTM6KCZZIS3OL")])
add("1.1", "request", "00000000-0000-4000-8000-00000000001e", "http://example.com/search2", "2024-05-08T00:00:01Z",
    "application/http; msgtype=request",
    http(b"POST /search2 HTTP/1.1\nContent-Type: application/x-www-form-urlencoded\nContent-Length: 7\n\n") + body)
add("1.1", "revisit", "00000000-0000-4000-8000-00000000001f", "http://example.com/search2", "2024-05-08T00:00:01Z",
    "application/http; msgtype=response", http(b"HTTP/1.1 200 OK\nContent-Type: text/html\n\n"),
    extra=[("WARC-Refers-To", "<urn:uuid:00000000-0000-4000-8000-00000000001e>")])
# 14. a request with an empty block (warcio's made-up "HTTP/1.0 200 OK": method HTTP/1.0)
add("1.1", "request", "00000000-0000-4000-8000-000000000020", "http://example.com/emptyreq", D,
    "application/http; msgtype=request", b"")
add("1.1", "response", "00000000-0000-4000-8000-000000000021", "http://example.com/emptyreq", D,
    "application/http; msgtype=response", http(b"HTTP/1.1 200 OK\nContent-Type: text/plain\n\n") + b"ok",
    extra=[("WARC-Concurrent-To", "<urn:uuid:00000000-0000-4000-8000-000000000020>")])
# 15. HTTP messages warcio reads oddly: a status line alone; a blank first line;
#     a status of "-" (not indexed at all); folded, whitespace-padded and
#     ISO-8859-1 header fields; a line of spaces ending the header
add("1.1", "response", "00000000-0000-4000-8000-000000000022", "http://example.com/bare", D,
    "application/http; msgtype=response", http(b"HTTP/1.1\n\n") + b"bare", trailer=b"\r\n")
add("1.1", "response", "00000000-0000-4000-8000-000000000023", "http://example.com/blankfirst", D,
    "application/http; msgtype=response", http(b"\nHTTP/1.1 200 OK\nContent-Type: text/html\n\n") + b"x", trailer=b"\n\n")
add("1.1", "response", "00000000-0000-4000-8000-000000000024", "http://example.com/dash", D,
    "application/http; msgtype=response", http(b"HTTP/1.1 - whatever\nContent-Type: text/html\n\n") + b"x")
add("1.1", "response", "00000000-0000-4000-8000-000000000025", "http://example.com/folded", D,
    "application/http; msgtype=response",
    http(b"HTTP/1.1 200 OK\nX-Junk\ncontent-type:\ttext/\n\thtml;x=1\nContent-Type: text/plain\n   \nNot: header\n\n") + b"y")
add("1.1", "response", "00000000-0000-4000-8000-000000000026", "http://example.com/latin1", D,
    "application/http; msgtype=response", http(b"HTTP/1.1 200 OK\nContent-Type: text/caf\xe9\n\n") + b"z")
# 16. warcinfo that is not warc-fields; metadata with an upper-case warc-fields;
#     an empty resource; a digest that is only "sha1:"
add("1.0", "warcinfo", "00000000-0000-4000-8000-000000000027", None, D, "text/plain", b"notes",
    extra=[("WARC-Filename", "vectors.warc")])
add("1.1", "metadata", "00000000-0000-4000-8000-000000000028", "http://example.com/file.txt", D,
    "Application/warc-fields", b"a: b\r\n")
add("1.1", "resource", "00000000-0000-4000-8000-000000000029", "http://example.com/zero", D, "text/plain", b"",
    extra=[("WARC-Payload-Digest", "sha1:")])

out = sys.argv[1]
with open(os.path.join(out, "vectors.warc"), "wb") as f:
    f.write(b"".join(records))
with open(os.path.join(out, "vectors.warc.gz"), "wb") as f:
    for r in records:
        f.write(gzip.compress(r, mtime=0))
