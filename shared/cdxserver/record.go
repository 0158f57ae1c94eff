package cdxserver

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/webkeep/webkeep/internal/pyfmt"
)

// A field is one key of a line's JSON object and its value, as JSON.
type field struct {
	name string // pywb's mapped name
	raw  []byte
}

// A record is a line split into its parts, with its fields parsed on demand.
type record struct {
	line        Line
	key, ts, js []byte
	fields      []field
	parsed      bool
}

// get returns a field as Python's str() shows it: urlkey, timestamp or a JSON
// key (with "source" the line's Source, as pywb's aggregator sets it).
func (r *record) get(name string) (string, bool) {
	switch name {
	case "urlkey":
		return string(r.key), true
	case "timestamp":
		return string(r.ts), true
	}
	for _, f := range r.parse() {
		if f.name == name {
			return pyStr(f.raw), true
		}
	}
	return "", false
}

// parse returns the JSON fields of the line in order, as pywb's CDXObject holds
// them: names mapped, a repeated key keeping its first place and its last value,
// and "source" set to the line's Source (pywb's add_source: "Source:old" when
// the line has one already).
func (r *record) parse() []field {
	if r.parsed {
		return r.fields
	}
	r.parsed = true
	dec := json.NewDecoder(bytes.NewReader(r.js))
	dec.Token() // "{"; SplitLine checked the object
	for dec.More() {
		t, _ := dec.Token()
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			break
		}
		r.set(fieldName(t.(string)), raw)
	}
	if s := r.line.Source; s != "" {
		for _, f := range r.fields {
			if f.name == "source" {
				s += ":" + pyStr(f.raw)
			}
		}
		r.set("source", pyfmt.AppendJSONString(nil, s))
	}
	return r.fields
}

func (r *record) set(name string, raw []byte) {
	for i := range r.fields {
		if r.fields[i].name == name {
			r.fields[i].raw = raw
			return
		}
	}
	r.fields = append(r.fields, field{name, raw})
}

// pyStr returns a JSON value as Python's str() shows it once json.loads read it:
// strings as themselves, true, false and null as True, False and None, floats
// as Python prints them. Arrays and objects are left as JSON.
func pyStr(raw []byte) string {
	switch {
	case len(raw) == 0:
		return ""
	case raw[0] == '"':
		var s string
		json.Unmarshal(raw, &s)
		return s
	case string(raw) == "true":
		return "True"
	case string(raw) == "false":
		return "False"
	case string(raw) == "null":
		return "None"
	case raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9':
		if bytes.ContainsAny(raw, ".eE") {
			f, _ := strconv.ParseFloat(string(raw), 64)
			return pyfmt.FloatRepr(f)
		}
		if string(raw) == "-0" {
			return "0"
		}
	}
	if !utf8.Valid(raw) {
		return pyfmt.DecodeUTF8(raw)
	}
	return string(raw)
}

// timestampToSec is warcio's timestamp_to_sec, which pywb's cdx_sort_closest
// measures distances with: a timestamp shorter than 6 digits is padded with
// "299912", and then each part is clamped to its range, a missing one taking the
// last value (so "2014" is the end of 2014).
func timestampToSec(ts string) int64 {
	if len(ts) < 6 {
		ts += "299912"[len(ts):]
	}
	part := func(start, end, lo, hi int) int {
		if len(ts) < end {
			return hi
		}
		n, err := strconv.Atoi(ts[start:end])
		if err != nil {
			return hi
		}
		return max(lo, min(n, hi))
	}
	year := part(0, 4, 1900, 2999)
	month := part(4, 6, 1, 12)
	days := time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
	t := time.Date(year, time.Month(month), part(6, 8, 1, days), part(8, 10, 0, 23), part(10, 12, 0, 59), part(12, 14, 0, 59), 0, time.UTC)
	return t.Unix()
}
