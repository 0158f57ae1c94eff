package main

import (
	"bytes"
	"strings"
	"testing"
)

// module builds a module of the given sections (id, body).
func module(sections ...section) []byte {
	out := append([]byte(nil), header...)
	for _, s := range sections {
		out = append(out, s.id)
		out = appendUint(out, uint64(len(s.body)))
		out = append(out, s.body...)
	}
	return out
}

// funcImport is an import section of one function import, go.debug of type 0.
var funcImport = section{sectionImport, []byte("\x01\x02go\x05debug\x00\x00")}

// typeSection declares one function type, () -> ().
var typeSection = section{1, []byte("\x01\x60\x00\x00")}

// exportMem exports memory 0 as "mem".
var exportMem = section{7, []byte("\x01\x03mem\x02\x00")}

func TestImportMemory(t *testing.T) {
	tests := []struct {
		name    string
		memory  []byte // the memory section's body
		pages   uint64
		imports []byte // the import section's body after
	}{
		{"minimum only", []byte("\x01\x00\x6e"), 110,
			[]byte("\x02\x02go\x05debug\x00\x00\x07webkeep\x06memory\x02\x00\x6e")},
		{"minimum and maximum, multi-byte", []byte("\x01\x01\x80\x02\x80\x80\x04"), 256,
			[]byte("\x02\x02go\x05debug\x00\x00\x07webkeep\x06memory\x02\x01\x80\x02\x80\x80\x04")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := module(typeSection, funcImport, section{sectionMemory, tt.memory}, exportMem)
			out, pages, err := importMemory(in, "webkeep", "memory")
			if err != nil {
				t.Fatal(err)
			}
			if pages != tt.pages {
				t.Errorf("pages %d, want %d", pages, tt.pages)
			}
			want := module(typeSection, section{sectionImport, tt.imports}, exportMem)
			if !bytes.Equal(out, want) {
				t.Errorf("got\n%q\nwant\n%q", out, want)
			}
		})
	}
}

func TestImportMemoryErrors(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"not wasm", []byte("hello"), "not a WebAssembly module"},
		{"truncated section", module(typeSection)[:11], "ends early"},
		{"no memory", module(typeSection, funcImport), "defines no memory"},
		{"two memories", module(funcImport, section{sectionMemory, []byte("\x02\x00\x01\x00\x01")}), "want one memory"},
		{"shared memory", module(funcImport, section{sectionMemory, []byte("\x01\x03\x01\x02")}), "not handled"},
		{"no imports", module(section{sectionMemory, []byte("\x01\x00\x01")}), "no import section"},
		{"overlong number", module(funcImport, section{sectionMemory, []byte("\x01\x00\xff\xff\xff\xff\xff\x01")}), "longer than 32 bits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := importMemory(tt.in, "webkeep", "memory")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
}

// FuzzImportMemory: any input gives a module or an error, never a panic; a module
// given back reads again, with no memory of its own.
func FuzzImportMemory(f *testing.F) {
	f.Add(module(typeSection, funcImport, section{sectionMemory, []byte("\x01\x00\x6e")}, exportMem))
	f.Add(module(funcImport, section{sectionMemory, []byte("\x01\x01\x01\x02")}))
	f.Add([]byte("\x00asm\x01\x00\x00\x00\x05\xff"))
	f.Fuzz(func(t *testing.T, in []byte) {
		out, _, err := importMemory(in, "webkeep", "memory")
		if err != nil {
			return
		}
		if _, _, err := importMemory(out, "webkeep", "memory"); err == nil || !strings.Contains(err.Error(), "defines no memory") {
			t.Fatalf("a rewritten module read again: %v", err)
		}
	})
}
