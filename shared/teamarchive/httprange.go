package teamarchive

import (
	"errors"
	"strconv"
	"strings"
)

// errRangeNotSatisfiable is parseRange's answer for a range outside the object (416).
var errRangeNotSatisfiable = errors.New("teamarchive: range not satisfiable")

// parseRange reads a Range header (RFC 9110 section 14) for an object of size bytes.
// It serves one range: partial is false, and the whole object is sent, when the
// header is absent, malformed, of another unit or asks for several ranges, as the
// RFC allows. A well-formed range that starts past the end is
// errRangeNotSatisfiable.
func parseRange(header string, size int64) (r Range, partial bool, err error) {
	spec, ok := strings.CutPrefix(strings.TrimSpace(header), "bytes=")
	if !ok || strings.Contains(spec, ",") {
		return Range{}, false, nil
	}
	first, last, ok := strings.Cut(strings.TrimSpace(spec), "-")
	if !ok {
		return Range{}, false, nil
	}
	if first == "" { // suffix: the last N bytes
		n, ok := parseDigits(last)
		if !ok {
			return Range{}, false, nil
		}
		if n == 0 || size == 0 {
			return Range{}, false, errRangeNotSatisfiable
		}
		n = min(n, size)
		return Range{Offset: size - n, Length: n}, true, nil
	}
	start, ok := parseDigits(first)
	if !ok {
		return Range{}, false, nil
	}
	end := size - 1
	if last != "" {
		if end, ok = parseDigits(last); !ok || end < start {
			return Range{}, false, nil
		}
		end = min(end, size-1)
	}
	if start >= size {
		return Range{}, false, errRangeNotSatisfiable
	}
	return Range{Offset: start, Length: end - start + 1}, true, nil
}

// parseDigits accepts only 1*DIGIT, unlike strconv (no sign, no overflow).
func parseDigits(s string) (int64, bool) {
	if s == "" || len(s) > 18 || strings.TrimLeft(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// maxRanges is the most ranges one answer gives in parts (multipart/byteranges): a
// replay's batch asks for the few places of a bundle that hold a page's records at
// once, in one request instead of one each.
const maxRanges = 16

// parseRanges reads a Range header that may ask for several ranges, for an object of
// size bytes: the satisfiable ones, in the order asked. It returns nil, and the whole
// object is sent, when the header is absent, malformed, of another unit, asks for more
// than maxRanges ranges, or for ranges out of order or overlapping (RFC 9110 section
// 14.2 lets a server refuse those, which cost it more than the whole); it returns
// errRangeNotSatisfiable when none of the ranges is satisfiable.
func parseRanges(header string, size int64) ([]Range, error) {
	spec, ok := strings.CutPrefix(strings.TrimSpace(header), "bytes=")
	if !ok {
		return nil, nil
	}
	specs := strings.Split(spec, ",")
	if len(specs) > maxRanges {
		return nil, nil
	}
	var out []Range
	for _, one := range specs {
		r, partial, err := parseRange("bytes="+strings.TrimSpace(one), size)
		if errors.Is(err, errRangeNotSatisfiable) {
			continue
		}
		if !partial {
			return nil, nil
		}
		if n := len(out); n > 0 && r.Offset < out[n-1].Offset+out[n-1].Length {
			return nil, nil
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil, errRangeNotSatisfiable
	}
	return out, nil
}
