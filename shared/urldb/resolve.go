package urldb

import (
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/webkeep/webkeep/internal/pyfmt"
)

// The implicit resolvers of PyYAML (yaml/resolver.py, YAML 1.1), in the order
// PyYAML tries them. wwturldb reads and writes its files with PyYAML, so a plain
// scalar means what it means there: "yes" is a boolean, "010" is 8, "1:30" is 90.
// They are compiled when first used, not at package init, which the service worker's
// cold start pays for (BENCHMARKS.md).
var (
	reFloat = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?` +
			`|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?` +
			`|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*` +
			`|[-+]?\.(?:inf|Inf|INF)` +
			`|\.(?:nan|NaN|NAN))$`)
	})
	reInt = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:[-+]?0b[0-1_]+` +
			`|[-+]?0[0-7_]+` +
			`|[-+]?(?:0|[1-9][0-9_]*)` +
			`|[-+]?0x[0-9a-fA-F_]+` +
			`|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$`)
	})
	reTimestamp = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]` +
			`|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?` +
			`(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?` +
			`(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$`)
	})
)

// scalarKind is the tag PyYAML's resolver gives a plain scalar.
type scalarKind int

const (
	kindStr scalarKind = iota
	kindBool
	kindFloat
	kindInt
	kindMerge
	kindNull
	kindTimestamp
	kindValue
)

// resolveKind returns the tag PyYAML gives s written as a plain scalar.
func resolveKind(s string) scalarKind {
	if s == "" {
		return kindNull
	}
	switch s[0] {
	case 'y', 'Y', 'n', 'N', 't', 'T', 'f', 'F', 'o', 'O':
		switch s {
		case "yes", "Yes", "YES", "no", "No", "NO", "true", "True", "TRUE",
			"false", "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF":
			return kindBool
		}
		if s == "null" || s == "Null" || s == "NULL" {
			return kindNull
		}
		return kindStr
	case '-', '+', '.', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		// Cheap tests first: every float has a dot, every timestamp a dash at 4,
		// and an integer has letters only after 0x or 0b.
		if strings.IndexByte(s, '.') >= 0 && reFloat().MatchString(s) {
			return kindFloat
		}
		if mayBeInt(s) && reInt().MatchString(s) {
			return kindInt
		}
		if len(s) >= 8 && s[4] == '-' && reTimestamp().MatchString(s) {
			return kindTimestamp
		}
		return kindStr
	case '<':
		if s == "<<" {
			return kindMerge
		}
	case '~':
		if s == "~" {
			return kindNull
		}
	case '=':
		if s == "=" {
			return kindValue
		}
	}
	return kindStr
}

func mayBeInt(s string) bool {
	t := strings.TrimLeft(s, "+-")
	if strings.HasPrefix(t, "0x") || strings.HasPrefix(t, "0b") {
		return true
	}
	for i := 0; i < len(t); i++ {
		if c := t[i]; !(c >= '0' && c <= '9' || c == '_' || c == ':') {
			return false
		}
	}
	return true
}

// resolvePlain returns the value of a plain scalar as PyYAML's safe loader
// constructs it.
func resolvePlain(s string) (any, error) {
	switch resolveKind(s) {
	case kindNull:
		return nil, nil
	case kindBool:
		switch s[0] {
		case 'y', 'Y', 't', 'T':
			return true, nil
		case 'o', 'O':
			return s == "on" || s == "On" || s == "ON", nil
		}
		return false, nil
	case kindInt:
		return constructInt(s)
	case kindFloat:
		return constructFloat(s)
	case kindTimestamp:
		return Timestamp(s), nil
	}
	return s, nil
}

// constructInt is PyYAML's construct_yaml_int.
func constructInt(s string) (any, error) {
	v := strings.ReplaceAll(s, "_", "")
	neg := false
	if v != "" && (v[0] == '-' || v[0] == '+') {
		neg = v[0] == '-'
		v = v[1:]
	}
	n := new(big.Int)
	var ok bool
	switch {
	case v == "0":
		ok = true
	case strings.HasPrefix(v, "0b"):
		_, ok = n.SetString(v[2:], 2)
	case strings.HasPrefix(v, "0x"):
		_, ok = n.SetString(v[2:], 16)
	case strings.HasPrefix(v, "0"):
		_, ok = n.SetString(v, 8)
	case strings.Contains(v, ":"):
		ok = true
		base := big.NewInt(1)
		parts := strings.Split(v, ":")
		for i := len(parts) - 1; i >= 0; i-- {
			d, good := new(big.Int).SetString(parts[i], 10)
			if !good {
				ok = false
				break
			}
			n.Add(n, d.Mul(d, base))
			base.Mul(base, big.NewInt(60))
		}
	default:
		_, ok = n.SetString(v, 10)
	}
	if !ok {
		return nil, fmt.Errorf("invalid integer %q", s)
	}
	if neg {
		n.Neg(n)
	}
	if n.IsInt64() {
		return n.Int64(), nil
	}
	return n, nil
}

// constructFloat is PyYAML's construct_yaml_float.
func constructFloat(s string) (any, error) {
	v := strings.ToLower(strings.ReplaceAll(s, "_", ""))
	sign := 1.0
	if v != "" && (v[0] == '-' || v[0] == '+') {
		if v[0] == '-' {
			sign = -1
		}
		v = v[1:]
	}
	switch {
	case v == ".inf":
		return sign * math.Inf(1), nil
	case v == ".nan":
		return math.NaN(), nil
	case strings.Contains(v, ":"):
		parts := strings.Split(v, ":")
		f, base := 0.0, 1.0
		for i := len(parts) - 1; i >= 0; i-- {
			d, err := strconv.ParseFloat(parts[i], 64)
			if err != nil {
				return nil, fmt.Errorf("invalid float %q", s)
			}
			f += d * base
			base *= 60
		}
		return sign * f, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil && !isRangeErr(err) {
		return nil, fmt.Errorf("invalid float %q", s)
	}
	return sign * f, nil
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// formatFloat is PyYAML's represent_float: Python's repr, lower-cased, with ".0"
// before an exponent that has no dot.
func formatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return ".nan"
	case math.IsInf(f, 1):
		return ".inf"
	case math.IsInf(f, -1):
		return "-.inf"
	}
	v := pyfmt.FloatRepr(f)
	if !strings.Contains(v, ".") && strings.Contains(v, "e") {
		v = strings.Replace(v, "e", ".0e", 1)
	}
	return v
}

// scalarText returns the text PyYAML writes for a scalar value, and whether it
// is a string (which must be quoted when it would read back as another type).
func scalarText(v any) (text string, isStr bool) {
	switch v := v.(type) {
	case nil:
		return "null", false
	case bool:
		if v {
			return "true", false
		}
		return "false", false
	case int64:
		return strconv.FormatInt(v, 10), false
	case int:
		return strconv.Itoa(v), false
	case *big.Int:
		return v.String(), false
	case float64:
		return formatFloat(v), false
	case Timestamp:
		return string(v), false
	case string:
		return v, true
	}
	return fmt.Sprint(v), true
}
