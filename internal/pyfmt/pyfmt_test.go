package pyfmt

import (
	"math"
	"testing"
)

// Vectors measured with CPython 3.11.7: repr() and json.dumps() of the inputs.

var reprVectors = []struct{ in, want string }{
	{"plain", "'plain'"},
	{"it's", "\"it's\""},
	{"say \"hi\"", "'say \"hi\"'"},
	{"both ' and \"", "'both \\' and \"'"},
	{"tab\U00000009nl\U0000000ar\U0000000d", "'tab\\tnl\\nr\\r'"},
	{"\U00000000\U00000007\U0000001b\U0000007f", "'\\x00\\x07\\x1b\\x7f'"},
	{"caf\U000000e9", "'caf\U000000e9'"},
	{"\U000000a0nbsp\U000000ad", "'\\xa0nbsp\\xad'"},
	{"\U00004e2d\U00006587", "'\U00004e2d\U00006587'"},
	{"\U0001f600", "'\U0001f600'"},
	{"\U00002028\U0000200b", "'\\u2028\\u200b'"},
	{"\U0000d7ff\U0000e000", "'\\ud7ff\\ue000'"},
	{"back\\slash", "'back\\\\slash'"},
	{"\U00000008\U0000000c", "'\\x08\\x0c'"},
}

var reprBytesVectors = []struct{ in, want string }{
	{"bytes", "b'bytes'"},
	{"\x00\xff'", "b\"\\x00\\xff'\""},
	{"\"'", "b'\"\\''"},
	{"\x09\x0a\x0d\\", "b'\\t\\n\\r\\\\'"},
}

var floatVectors = []struct {
	in   float64
	want string
}{
	{0.0, "0.0"},
	{math.Copysign(0, -1), "-0.0"},
	{1.0, "1.0"},
	{44.0, "44.0"},
	{0.1, "0.1"},
	{1e+16, "1e+16"},
	{1000000000000000.0, "1000000000000000.0"},
	{1.2345678901234568e+17, "1.2345678901234568e+17"},
	{0.0001, "0.0001"},
	{1e-05, "1e-05"},
	{1.5e+300, "1.5e+300"},
	{math.Inf(1), "inf"},
	{math.Inf(-1), "-inf"},
	{math.NaN(), "nan"},
	{-2.5, "-2.5"},
}

var jsonVectors = []struct{ in, want string }{
	{"plain", "\"plain\""},
	{"it's", "\"it's\""},
	{"say \"hi\"", "\"say \\\"hi\\\"\""},
	{"both ' and \"", "\"both ' and \\\"\""},
	{"tab\U00000009nl\U0000000ar\U0000000d", "\"tab\\tnl\\nr\\r\""},
	{"\U00000000\U00000007\U0000001b\U0000007f", "\"\\u0000\\u0007\\u001b\\u007f\""},
	{"caf\U000000e9", "\"caf\\u00e9\""},
	{"\U000000a0nbsp\U000000ad", "\"\\u00a0nbsp\\u00ad\""},
	{"\U00004e2d\U00006587", "\"\\u4e2d\\u6587\""},
	{"\U0001f600", "\"\\ud83d\\ude00\""},
	{"\U00002028\U0000200b", "\"\\u2028\\u200b\""},
	{"\U0000d7ff\U0000e000", "\"\\ud7ff\\ue000\""},
	{"back\\slash", "\"back\\\\slash\""},
	{"\U00000008\U0000000c", "\"\\b\\f\""},
}

// json.dumps(s, ensure_ascii=False), the same as JSON.stringify(s).
var jsonUTF8Vectors = []struct{ in, want string }{
	{"plain", "\"plain\""},
	{"say \"hi\"", "\"say \\\"hi\\\"\""},
	{"tab\U00000009nl\U0000000ar\U0000000d", "\"tab\\tnl\\nr\\r\""},
	{"\U00000000\U00000007\U0000001b\U0000007f", "\"\\u0000\\u0007\\u001b\U0000007f\""},
	{"caf\U000000e9", "\"caf\U000000e9\""},
	{"\U000000a0nbsp\U000000ad", "\"\U000000a0nbsp\U000000ad\""},
	{"\U00004e2d\U00006587", "\"\U00004e2d\U00006587\""},
	{"\U0001f600", "\"\U0001f600\""},
	{"\U00002028\U0000200b", "\"\U00002028\U0000200b\""},
	{"back\\slash", "\"back\\\\slash\""},
	{"\U00000008\U0000000c", "\"\\b\\f\""},
	{"bad\xff", "\"bad\U0000fffd\""},
}

func TestRepr(t *testing.T) {
	for _, v := range reprVectors {
		if got := Repr(v.in); got != v.want {
			t.Errorf("Repr(%q) = %s, want %s", v.in, got, v.want)
		}
	}
	for _, v := range reprBytesVectors {
		if got := ReprBytes([]byte(v.in)); got != v.want {
			t.Errorf("ReprBytes(%q) = %s, want %s", v.in, got, v.want)
		}
	}
}

func TestFloatRepr(t *testing.T) {
	for _, v := range floatVectors {
		if got := FloatRepr(v.in); got != v.want {
			t.Errorf("FloatRepr(%v) = %s, want %s", v.in, got, v.want)
		}
	}
}

func TestAppendJSONString(t *testing.T) {
	for _, v := range jsonVectors {
		if got := string(AppendJSONString(nil, v.in)); got != v.want {
			t.Errorf("AppendJSONString(%q) = %s, want %s", v.in, got, v.want)
		}
	}
}

func TestAppendJSONStringUTF8(t *testing.T) {
	for _, v := range jsonUTF8Vectors {
		if got := string(AppendJSONStringUTF8(nil, v.in)); got != v.want {
			t.Errorf("AppendJSONStringUTF8(%q) = %s, want %s", v.in, got, v.want)
		}
	}
}
