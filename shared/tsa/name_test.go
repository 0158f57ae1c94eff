package tsa

import (
	"crypto/x509/pkix"
	"encoding/asn1"
	"testing"
)

// pkixName is what crypto/x509/pkix writes of the DER Name der, or "".
func pkixName(der []byte) string {
	var rdns pkix.RDNSequence
	if rest, err := asn1.Unmarshal(der, &rdns); err != nil || len(rest) > 0 {
		return ""
	}
	var n pkix.Name
	n.FillFromRDNSequence(&rdns)
	return n.String()
}

func atv(oid asn1.ObjectIdentifier, v any) pkix.AttributeTypeAndValue {
	return pkix.AttributeTypeAndValue{Type: oid, Value: v}
}

var (
	oidCN    = asn1.ObjectIdentifier{2, 5, 4, 3}
	oidO     = asn1.ObjectIdentifier{2, 5, 4, 10}
	oidOU    = asn1.ObjectIdentifier{2, 5, 4, 11}
	oidC     = asn1.ObjectIdentifier{2, 5, 4, 6}
	oidEmail = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 1}
)

// directoryName writes a name as the signer certificate's Subject.String() does,
// without crypto/x509.
func TestDirectoryName(t *testing.T) {
	for _, tc := range []struct {
		name string
		rdns pkix.RDNSequence
		want string
	}{
		{"CN then O", pkix.RDNSequence{{atv(oidCN, "webkeep test TSA")}, {atv(oidO, "webkeep tests")}}, "CN=webkeep test TSA,O=webkeep tests"},
		{"C, O, CN", pkix.RDNSequence{{atv(oidC, "DE")}, {atv(oidO, "Example")}, {atv(oidCN, "TSA 1")}}, "CN=TSA 1,O=Example,C=DE"},
		{"two OUs, one RDN", pkix.RDNSequence{{atv(oidOU, "a"), atv(oidOU, "b")}, {atv(oidCN, "x")}}, "CN=x,OU=a+OU=b"},
		{"CN twice: the last", pkix.RDNSequence{{atv(oidCN, "first")}, {atv(oidCN, "second")}}, "CN=second"},
		{"escapes", pkix.RDNSequence{{atv(oidCN, " #a,b+c\"d\\e<f>g;h ")}}, `CN=\ #a\,b\+c\"d\\e\<f\>g\;h\ `},
		{"leading #", pkix.RDNSequence{{atv(oidO, "#1")}}, `O=\#1`},
		{"an email address", pkix.RDNSequence{{atv(oidCN, "x")}, {atv(oidEmail, "tsa@example.org")}}, ""},
		{"a CN that is no string", pkix.RDNSequence{{atv(oidCN, 7)}, {atv(oidO, "o")}}, "O=o"},
		{"an empty CN", pkix.RDNSequence{{atv(oidCN, "")}, {atv(oidO, "")}}, "O="},
		{"UTF-8", pkix.RDNSequence{{atv(oidCN, "Zeitstempel-Dienst Müller")}}, "CN=Zeitstempel-Dienst Müller"},
		{"empty", pkix.RDNSequence{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			der, err := asn1.Marshal(tc.rdns)
			if err != nil {
				t.Fatal(err)
			}
			got, want := directoryName(der), pkixName(der)
			if got != want {
				t.Errorf("%q, crypto/x509/pkix writes %q", got, want)
			}
			if tc.want != "" && got != tc.want {
				t.Errorf("%q, want %q", got, tc.want)
			}
		})
	}
	if got := directoryName([]byte{0x30, 0x03, 0x31}); got != "" {
		t.Errorf("broken DER: %q", got)
	}
}

// FuzzDirectoryName: directoryName writes what crypto/x509/pkix does, of any
// bytes.
func FuzzDirectoryName(f *testing.F) {
	for _, rdns := range []pkix.RDNSequence{
		{{atv(oidCN, "webkeep test TSA")}, {atv(oidO, "webkeep tests")}},
		{{atv(oidOU, "a"), atv(oidOU, "b")}, {atv(oidEmail, "a@b")}, {atv(oidCN, 7)}},
	} {
		der, _ := asn1.Marshal(rdns)
		f.Add(der)
	}
	f.Fuzz(func(t *testing.T, der []byte) {
		if got, want := directoryName(der), pkixName(der); got != want {
			t.Errorf("%q, crypto/x509/pkix writes %q", got, want)
		}
	})
}
