package cdx

// AMF remoting bodies (application/x-amf): decoded as Py3AMF's
// pyamf.remoting.decode does, then rendered as pywb's
// Amf.get_representation, then urlencode({"request": representation}).
//
// Supported: the envelope, AMF0 numbers, booleans, strings, objects, null,
// undefined, references, ECMA and strict arrays, typed objects (kept as
// dictionaries, as Py3AMF does for unregistered aliases), the AMF3 switch, and
// AMF3 undefined, null, booleans, integers, doubles, strings, arrays and
// non-externalizable objects, with their reference tables; a
// flex.messaging.messages.RemotingMessage renders as pywb renders it. Dates,
// XML, byte arrays, externalizable objects, response bodies and any other
// registered class make the whole body fail, which adds nothing to the key.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/webkeep/webkeep/internal/pyfmt"
)

// ErrAMF is returned (wrapped with the offset) for an application/x-amf body
// that cannot be decoded or represented.
var ErrAMF = errors.New("cdx: invalid AMF body")

// Decoded AMF values: nil (None), bool, amfInt (a Python int in decimal),
// float64, string, *amfList, *amfDict, *amfRemoting, amfUndefined.
type (
	amfInt       string
	amfUndefined struct{}
	amfList      struct{ items []any }
	amfDict      struct {
		keys   []any // string or amfInt (MixedArray keys that int() accepts)
		values map[any]any
	}
	amfRemoting struct{ operation, body any }
	amfRequest  struct {
		target string
		body   any
	}
)

func newAMFDict() *amfDict { return &amfDict{values: map[any]any{}} }

func (d *amfDict) set(k, v any) {
	if _, ok := d.values[k]; !ok {
		d.keys = append(d.keys, k)
	}
	d.values[k] = v
}

const remotingMessageAlias = "flex.messaging.messages.RemotingMessage"

type amfDecoder struct {
	b       []byte
	pos     int
	useAMF3 bool
	objs0   []any // AMF0 reference table
	strs3   []string
	objs3   []any
	traits3 []*amfTraits
	depth   int
}

type amfTraits struct {
	alias    string
	encoding int
	static   []string
}

func (d *amfDecoder) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s at offset %d", ErrAMF, fmt.Sprintf(format, args...), d.pos)
}

func (d *amfDecoder) read(n int) ([]byte, error) {
	if n < 0 || len(d.b)-d.pos < n {
		return nil, d.errorf("unexpected end of data")
	}
	p := d.b[d.pos : d.pos+n]
	d.pos += n
	return p, nil
}

func (d *amfDecoder) u8() (byte, error) {
	p, err := d.read(1)
	if err != nil {
		return 0, err
	}
	return p[0], nil
}

func (d *amfDecoder) u16() (int, error) {
	p, err := d.read(2)
	if err != nil {
		return 0, err
	}
	return int(binary.BigEndian.Uint16(p)), nil
}

func (d *amfDecoder) u32() (int, error) {
	p, err := d.read(4)
	if err != nil {
		return 0, err
	}
	return int(binary.BigEndian.Uint32(p)), nil
}

func (d *amfDecoder) f64() (float64, error) {
	p, err := d.read(8)
	if err != nil {
		return 0, err
	}
	return math.Float64frombits(binary.BigEndian.Uint64(p)), nil
}

func (d *amfDecoder) utf8(n int) (string, error) {
	p, err := d.read(n)
	if err != nil {
		return "", err
	}
	if !utf8.Valid(p) {
		return "", d.errorf("invalid UTF-8 string")
	}
	return string(p), nil
}

// amfQuery decodes the envelope and returns "request=" + quote_plus of its
// representation.
func amfQuery(body []byte) (string, error) {
	d := &amfDecoder{b: body}
	version, err := d.u16()
	if err != nil {
		return "", err
	}
	if version > 9 {
		return "", d.errorf("malformed stream (amfVersion=%d)", version)
	}
	d.useAMF3 = version == 3
	headers, err := d.u16()
	if err != nil {
		return "", err
	}
	for i := 0; i < headers; i++ {
		n, err := d.u16()
		if err != nil {
			return "", err
		}
		if _, err := d.utf8(n); err != nil {
			return "", err
		}
		if _, err := d.read(5); err != nil { // required flag, length
			return "", err
		}
		if _, err := d.element0(); err != nil {
			return "", err
		}
	}
	count, err := d.u16()
	if err != nil {
		return "", err
	}
	if count >= 0x8000 { // read_short: negative counts read nothing
		count = 0
	}
	var names []string
	bodies := map[string]amfRequest{}
	for i := 0; i < count; i++ {
		d.objs0, d.strs3, d.objs3, d.traits3 = nil, nil, nil, nil
		name, req, err := d.body()
		if err != nil {
			return "", err
		}
		if _, ok := bodies[name]; !ok {
			names = append(names, name)
		}
		bodies[name] = req
	}
	reprs := make([]string, 0, len(names))
	for _, n := range names {
		r, err := representRequest(bodies[n])
		if err != nil {
			return "", err
		}
		reprs = append(reprs, r)
	}
	sort.Strings(reprs)
	rep := "<Envelope>[" + strings.Join(reprs, ",") + "]</Envelope>"
	return string(appendQuotePlus([]byte("request="), rep)), nil
}

var amfStatusSuffixes = []string{"/onResult", "/onStatus", "/onDebugEvents"}

func (d *amfDecoder) body() (string, amfRequest, error) {
	var req amfRequest
	n, err := d.u16()
	if err != nil {
		return "", req, err
	}
	if req.target, err = d.utf8(n); err != nil {
		return "", req, err
	}
	if n, err = d.u16(); err != nil {
		return "", req, err
	}
	response, err := d.utf8(n)
	if err != nil {
		return "", req, err
	}
	for _, s := range amfStatusSuffixes {
		if strings.HasSuffix(req.target, s) {
			// A Response: pywb's representation recurses through its
			// envelope until its call limit, and fails.
			return "", req, d.errorf("response body %q", req.target)
		}
	}
	if _, err := d.u32(); err != nil {
		return "", req, err
	}
	if d.pos < len(d.b) && d.b[d.pos] == 0x11 {
		if !d.useAMF3 {
			return "", req, d.errorf("unexpected AMF3 type with incorrect message type")
		}
		req.body, err = d.element0()
		return response, req, err
	}
	t, err := d.u8()
	if err != nil {
		return "", req, err
	}
	if t != 0x0a {
		return "", req, d.errorf("array type required for request body")
	}
	n, err = d.u32()
	if err != nil {
		return "", req, err
	}
	list := &amfList{}
	for i := 0; i < n; i++ {
		v, err := d.element0()
		if err != nil {
			return "", req, err
		}
		list.items = append(list.items, v)
	}
	req.body = list
	return response, req, nil
}

const maxAMFDepth = 400

func (d *amfDecoder) enter() error {
	d.depth++
	if d.depth > maxAMFDepth {
		return d.errorf("nesting too deep")
	}
	return nil
}

// element0 reads one AMF0 value.
func (d *amfDecoder) element0() (any, error) {
	if err := d.enter(); err != nil {
		return nil, err
	}
	defer func() { d.depth-- }()
	t, err := d.u8()
	if err != nil {
		return nil, err
	}
	switch t {
	case 0x00:
		f, err := d.f64()
		if err != nil {
			return nil, err
		}
		if !math.IsNaN(f) && !math.IsInf(f, 0) && f == math.Trunc(f) {
			return amfInt(pyIntOfFloat(f)), nil
		}
		return f, nil
	case 0x01:
		b, err := d.u8()
		return b != 0, err
	case 0x02:
		n, err := d.u16()
		if err != nil {
			return nil, err
		}
		return d.utf8(n)
	case 0x0c:
		n, err := d.u32()
		if err != nil {
			return nil, err
		}
		return d.utf8(n)
	case 0x03, 0x10, 0x08:
		obj := newAMFDict()
		if t == 0x10 {
			n, err := d.u16()
			if err != nil {
				return nil, err
			}
			alias, err := d.utf8(n)
			if err != nil {
				return nil, err
			}
			if alias == remotingMessageAlias {
				return d.remoting0()
			}
			if registeredAMFAlias(alias) {
				return nil, d.errorf("unsupported registered class %q", alias)
			}
		}
		if t == 0x08 {
			if _, err := d.u32(); err != nil {
				return nil, err
			}
		}
		d.objs0 = append(d.objs0, obj)
		attrs, err := d.attributes0()
		if err != nil {
			return nil, err
		}
		for _, k := range attrs.keys {
			key := k
			if t == 0x08 {
				if _, ok := pyInt(k.(string)); ok {
					if s, ok := pyIntText(k.(string)); ok {
						key = amfInt(s)
					}
				}
			}
			obj.set(key, attrs.values[k])
		}
		return obj, nil
	case 0x05, 0x0d:
		return nil, nil
	case 0x06:
		return amfUndefined{}, nil
	case 0x07:
		i, err := d.u16()
		if err != nil {
			return nil, err
		}
		if i >= len(d.objs0) {
			return nil, d.errorf("unknown reference %d", i)
		}
		return d.objs0[i], nil
	case 0x0a:
		list := &amfList{}
		d.objs0 = append(d.objs0, list)
		n, err := d.u32()
		if err != nil {
			return nil, err
		}
		for i := 0; i < n; i++ {
			v, err := d.element0()
			if err != nil {
				return nil, err
			}
			list.items = append(list.items, v)
		}
		return list, nil
	case 0x11:
		return d.element3()
	}
	return nil, d.errorf("unsupported AMF0 type 0x%02x", t)
}

// pyIntText returns str(int(s)) for a MixedArray key that int() accepts.
func pyIntText(s string) (string, bool) {
	t := strings.TrimFunc(s, pyIsSpace)
	neg := strings.HasPrefix(t, "-")
	t = strings.TrimLeft(t, "+-")
	var digits []byte
	for _, r := range t {
		if r == '_' {
			continue
		}
		v, ok := pyDigit(r)
		if !ok {
			return "", false
		}
		digits = append(digits, byte('0'+v))
	}
	out := strings.TrimLeft(string(digits), "0")
	if out == "" {
		return "0", true
	}
	if neg {
		out = "-" + out
	}
	return out, true
}

// registeredAMFAlias reports the class aliases that Py3AMF (with
// pyamf.flex.messaging imported, as pywb does) maps to Python classes.
func registeredAMFAlias(alias string) bool {
	return strings.HasPrefix(alias, "flex.messaging.") || strings.HasPrefix(alias, "DS") ||
		strings.HasPrefix(alias, "flash.") || alias == "RecordSet"
}

func (d *amfDecoder) attributes0() (*amfDict, error) {
	attrs := newAMFDict()
	for {
		n, err := d.u16()
		if err != nil {
			return nil, err
		}
		key, err := d.read(n)
		if err != nil {
			return nil, err
		}
		if d.pos < len(d.b) && d.b[d.pos] == 0x09 {
			d.pos++
			return attrs, nil
		}
		if !utf8.Valid(key) {
			return nil, d.errorf("invalid UTF-8 key")
		}
		v, err := d.element0()
		if err != nil {
			return nil, err
		}
		attrs.set(string(key), v)
	}
}

func (d *amfDecoder) remoting0() (any, error) {
	m := &amfRemoting{}
	d.objs0 = append(d.objs0, m)
	attrs, err := d.attributes0()
	if err != nil {
		return nil, err
	}
	m.operation, m.body = attrs.values["operation"], attrs.values["body"]
	return m, nil
}

// u29 is decode_int of Py3AMF's amf3 module.
func (d *amfDecoder) u29(signed bool) (int, error) {
	result, n := 0, 0
	b, err := d.u8()
	if err != nil {
		return 0, err
	}
	for b&0x80 != 0 && n < 3 {
		result = result<<7 | int(b&0x7f)
		if b, err = d.u8(); err != nil {
			return 0, err
		}
		n++
	}
	if n < 3 {
		return result<<7 | int(b), nil
	}
	result = result<<8 | int(b)
	if result&0x10000000 != 0 {
		if signed {
			result -= 0x20000000
		} else {
			result = result<<1 + 1
		}
	}
	return result, nil
}

func (d *amfDecoder) string3() (string, error) {
	ref, err := d.u29(false)
	if err != nil {
		return "", err
	}
	if ref&1 == 0 {
		if ref>>1 >= len(d.strs3) {
			return "", d.errorf("unknown string reference %d", ref>>1)
		}
		return d.strs3[ref>>1], nil
	}
	if ref>>1 == 0 {
		return "", nil
	}
	s, err := d.utf8(ref >> 1)
	if err != nil {
		return "", err
	}
	d.strs3 = append(d.strs3, s)
	return s, nil
}

// element3 reads one AMF3 value.
func (d *amfDecoder) element3() (any, error) {
	if err := d.enter(); err != nil {
		return nil, err
	}
	defer func() { d.depth-- }()
	t, err := d.u8()
	if err != nil {
		return nil, err
	}
	switch t {
	case 0x00:
		return amfUndefined{}, nil
	case 0x01:
		return nil, nil
	case 0x02:
		return false, nil
	case 0x03:
		return true, nil
	case 0x04:
		n, err := d.u29(true)
		return amfInt(strconv.Itoa(n)), err
	case 0x05:
		return d.f64()
	case 0x06:
		return d.string3()
	case 0x09:
		return d.array3()
	case 0x0a:
		return d.object3()
	}
	return nil, d.errorf("unsupported AMF3 type 0x%02x", t)
}

// objectRef3 returns the AMF3 object (array or object) read before under index i.
func (d *amfDecoder) objectRef3(i int) (any, error) {
	if i >= len(d.objs3) {
		return nil, d.errorf("unknown object reference %d", i)
	}
	return d.objs3[i], nil
}

func (d *amfDecoder) array3() (any, error) {
	size, err := d.u29(false)
	if err != nil {
		return nil, err
	}
	if size&1 == 0 {
		return d.objectRef3(size >> 1)
	}
	size >>= 1
	key, err := d.string3()
	if err != nil {
		return nil, err
	}
	if key == "" {
		list := &amfList{}
		d.objs3 = append(d.objs3, list)
		for i := 0; i < size; i++ {
			v, err := d.element3()
			if err != nil {
				return nil, err
			}
			list.items = append(list.items, v)
		}
		return list, nil
	}
	obj := newAMFDict()
	d.objs3 = append(d.objs3, obj)
	for key != "" {
		v, err := d.element3()
		if err != nil {
			return nil, err
		}
		obj.set(key, v)
		if key, err = d.string3(); err != nil {
			return nil, err
		}
	}
	for i := 0; i < size; i++ {
		v, err := d.element3()
		if err != nil {
			return nil, err
		}
		obj.set(amfInt(strconv.Itoa(i)), v)
	}
	return obj, nil
}

func (d *amfDecoder) object3() (any, error) {
	ref, err := d.u29(false)
	if err != nil {
		return nil, err
	}
	if ref&1 == 0 {
		return d.objectRef3(ref >> 1)
	}
	ref >>= 1
	var tr *amfTraits
	if ref&1 == 0 {
		if ref>>1 >= len(d.traits3) {
			return nil, d.errorf("unknown class reference %d", ref>>1)
		}
		tr = d.traits3[ref>>1]
	} else {
		ref >>= 1
		alias, err := d.string3()
		if err != nil {
			return nil, err
		}
		tr = &amfTraits{alias: alias, encoding: ref & 3}
		for i := 0; i < ref>>2; i++ {
			k, err := d.string3()
			if err != nil {
				return nil, err
			}
			tr.static = append(tr.static, k)
		}
		d.traits3 = append(d.traits3, tr)
	}
	if tr.encoding&1 != 0 {
		return nil, d.errorf("externalizable class %q", tr.alias)
	}
	if tr.alias != "" && tr.alias != remotingMessageAlias && registeredAMFAlias(tr.alias) {
		return nil, d.errorf("unsupported registered class %q", tr.alias)
	}
	var result any
	obj := newAMFDict()
	msg := &amfRemoting{}
	if tr.alias == remotingMessageAlias {
		result = msg
	} else {
		result = obj
	}
	d.objs3 = append(d.objs3, result)
	for _, k := range tr.static {
		v, err := d.element3()
		if err != nil {
			return nil, err
		}
		obj.set(k, v)
	}
	if tr.encoding == 2 {
		for {
			k, err := d.string3()
			if err != nil {
				return nil, err
			}
			if k == "" {
				break
			}
			v, err := d.element3()
			if err != nil {
				return nil, err
			}
			obj.set(k, v)
		}
	}
	if result == msg {
		msg.operation, msg.body = obj.values["operation"], obj.values["body"]
	}
	return result, nil
}

// representRequest is Amf.get_representation of a Request.
func representRequest(r amfRequest) (string, error) {
	body, err := represent(r.body, 498)
	if err != nil {
		return "", err
	}
	return "<Request target=" + r.target + ">" + body + "</Request>", nil
}

// represent is Amf.get_representation; calls counts down pywb's max_calls.
func represent(v any, calls int) (string, error) {
	calls--
	if calls < 0 {
		return "", fmt.Errorf("%w: maximum number of calls reached", ErrAMF)
	}
	switch v := v.(type) {
	case *amfRemoting:
		body, err := represent(v.body, calls)
		if err != nil {
			return "", err
		}
		op, err := pyStrAMF(v.operation)
		if err != nil {
			return "", err
		}
		return "<RemotingMessage operation=" + op + ">" + body + "</RemotingMessage>", nil
	case *amfDict:
		var b []byte
		b, err := appendPyJSON(b, v, 0, map[any]bool{})
		return string(b), err
	case *amfList:
		parts := make([]string, len(v.items))
		for i, e := range v.items {
			s, err := represent(e, calls)
			if err != nil {
				return "", err
			}
			parts[i] = s
		}
		return "[" + strings.Join(parts, ",") + "]", nil
	case string:
		return v, nil
	case nil:
		return "", nil
	case amfUndefined:
		return "<UndefinedType>{}</UndefinedType>", nil
	}
	return pyStrAMF(v)
}

// pyStrAMF is str()/repr() of a scalar.
func pyStrAMF(v any) (string, error) {
	switch v := v.(type) {
	case nil:
		return "None", nil
	case bool:
		if v {
			return "True", nil
		}
		return "False", nil
	case amfInt:
		return string(v), nil
	case float64:
		return pyfmt.FloatRepr(v), nil
	case string:
		return v, nil
	}
	return "", fmt.Errorf("%w: cannot represent %T", ErrAMF, v)
}

// appendPyJSON is json.dumps(v, sort_keys=True) with Python's default
// separators, ensure_ascii and float formatting.
func appendPyJSON(b []byte, v any, depth int, active map[any]bool) ([]byte, error) {
	if depth > maxAMFDepth {
		return nil, fmt.Errorf("%w: nesting too deep", ErrAMF)
	}
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		if v {
			return append(b, "true"...), nil
		}
		return append(b, "false"...), nil
	case amfInt:
		return append(b, v...), nil
	case float64:
		switch {
		case math.IsNaN(v):
			return append(b, "NaN"...), nil
		case math.IsInf(v, 1):
			return append(b, "Infinity"...), nil
		case math.IsInf(v, -1):
			return append(b, "-Infinity"...), nil
		}
		return append(b, pyfmt.FloatRepr(v)...), nil
	case string:
		w := jsonWriter{dst: b}
		w.str(v)
		return w.dst, nil
	case *amfList:
		if active[v] {
			return nil, fmt.Errorf("%w: circular reference detected", ErrAMF)
		}
		active[v] = true
		defer delete(active, v)
		b = append(b, '[')
		for i, e := range v.items {
			if i > 0 {
				b = append(b, ", "...)
			}
			var err error
			if b, err = appendPyJSON(b, e, depth+1, active); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case *amfDict:
		if active[v] {
			return nil, fmt.Errorf("%w: circular reference detected", ErrAMF)
		}
		active[v] = true
		defer delete(active, v)
		keys, err := sortedPyKeys(v.keys)
		if err != nil {
			return nil, err
		}
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ", "...)
			}
			ks, _ := k.(string)
			if n, ok := k.(amfInt); ok {
				ks = string(n)
			}
			w := jsonWriter{dst: b}
			w.str(ks)
			b = append(w.dst, ": "...)
			if b, err = appendPyJSON(b, v.values[k], depth+1, active); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	}
	return nil, fmt.Errorf("%w: %T is not JSON serializable", ErrAMF, v)
}

// sortedPyKeys sorts keys as sorted() does; str and int keys do not compare.
func sortedPyKeys(keys []any) ([]any, error) {
	out := append([]any(nil), keys...)
	var nStr, nInt int
	for _, k := range out {
		if _, ok := k.(string); ok {
			nStr++
		} else {
			nInt++
		}
	}
	if nStr > 0 && nInt > 0 && len(out) > 1 {
		return nil, fmt.Errorf("%w: '<' not supported between instances of 'int' and 'str'", ErrAMF)
	}
	sort.Slice(out, func(i, j int) bool {
		if a, ok := out[i].(string); ok {
			return a < out[j].(string)
		}
		return cmpDecimal(string(out[i].(amfInt)), string(out[j].(amfInt))) < 0
	})
	return out, nil
}

// cmpDecimal compares two canonical decimal integers.
func cmpDecimal(a, b string) int {
	na, nb := strings.HasPrefix(a, "-"), strings.HasPrefix(b, "-")
	if na != nb {
		if na {
			return -1
		}
		return 1
	}
	c := len(strings.TrimPrefix(a, "-")) - len(strings.TrimPrefix(b, "-"))
	if c == 0 {
		c = strings.Compare(a, b)
	}
	if na {
		return -c
	}
	return c
}
