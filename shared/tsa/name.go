package tsa

import (
	"encoding/asn1"
	"encoding/hex"
	"fmt"
	"strings"
)

// An X.501 Name as encoding/asn1 reads it, for TSTInfo's tsa. crypto/x509/pkix has
// these types, but the WebAssembly core links nothing of crypto/x509; directoryName
// writes a Name as pkix.Name's String method does, so that an authority's name
// reads the same as its certificate's Subject.
type attributeTypeAndValue struct {
	Type  asn1.ObjectIdentifier
	Value any
}

// relativeDistinguishedNameSET is a SET OF (encoding/asn1 reads a type whose name
// ends in SET as one).
type relativeDistinguishedNameSET []attributeTypeAndValue

// nameAttributes are the attribute types pkix.Name has fields for, in the order its
// String method writes them last to first, with their short names.
var nameAttributes = []struct {
	id    int // 2.5.4.id
	short string
}{
	{6, "C"}, {8, "ST"}, {7, "L"}, {9, "STREET"}, {17, "POSTALCODE"}, {10, "O"}, {11, "OU"}, {3, "CN"}, {5, "SERIALNUMBER"},
}

// standardAttribute returns the index in nameAttributes of an attribute type, or -1.
func standardAttribute(t asn1.ObjectIdentifier) int {
	if len(t) == 4 && t[0] == 2 && t[1] == 5 && t[2] == 4 {
		for i, a := range nameAttributes {
			if a.id == t[3] {
				return i
			}
		}
	}
	return -1
}

// directoryName returns the DER X.501 Name der in the form of pkix.Name's String
// ("CN=webkeep test TSA,O=webkeep tests"), or "" if der is not one.
func directoryName(der []byte) string {
	var rdns []relativeDistinguishedNameSET
	if rest, err := asn1.Unmarshal(der, &rdns); err != nil || len(rest) > 0 {
		return ""
	}
	// As pkix.Name.FillFromRDNSequence and String: the attributes of other types
	// first, in order, each its own RDN; then those of the standard types in
	// their fixed order, the values of one type one RDN (of CN and SERIALNUMBER,
	// the last value alone); and the RDNs written last to first.
	var out [][]attributeTypeAndValue
	values := make([][]string, len(nameAttributes))
	for _, rdn := range rdns {
		for _, atv := range rdn {
			i := standardAttribute(atv.Type)
			if i < 0 {
				out = append(out, []attributeTypeAndValue{atv})
				continue
			}
			if s, ok := atv.Value.(string); ok {
				if nameAttributes[i].id == 3 || nameAttributes[i].id == 5 {
					values[i] = []string{s}
				} else {
					values[i] = append(values[i], s)
				}
			}
		}
	}
	for i, vs := range values {
		if len(vs) == 0 || (len(vs) == 1 && vs[0] == "" && (nameAttributes[i].id == 3 || nameAttributes[i].id == 5)) {
			continue
		}
		rdn := make([]attributeTypeAndValue, len(vs))
		for j, v := range vs {
			rdn[j] = attributeTypeAndValue{Type: asn1.ObjectIdentifier{2, 5, 4, nameAttributes[i].id}, Value: v}
		}
		out = append(out, rdn)
	}
	var b strings.Builder
	for i := len(out) - 1; i >= 0; i-- {
		if i < len(out)-1 {
			b.WriteByte(',')
		}
		for j, atv := range out[i] {
			if j > 0 {
				b.WriteByte('+')
			}
			typeName := atv.Type.String()
			if k := standardAttribute(atv.Type); k >= 0 {
				typeName = nameAttributes[k].short
			} else if der, err := asn1.Marshal(atv.Value); err == nil {
				b.WriteString(typeName + "=#" + hex.EncodeToString(der))
				continue
			}
			b.WriteString(typeName + "=" + escapeValue(fmt.Sprint(atv.Value)))
		}
	}
	return b.String()
}

// escapeValue escapes an attribute's value as pkix.RDNSequence's String does.
func escapeValue(v string) string {
	var b strings.Builder
	for k, c := range v {
		escape := false
		switch c {
		case ',', '+', '"', '\\', '<', '>', ';':
			escape = true
		case ' ':
			escape = k == 0 || k == len(v)-1
		case '#':
			escape = k == 0
		}
		if escape {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}
