// Command importmemory rewrites a WebAssembly module built by Go so that it imports
// its linear memory (as webkeep.memory) instead of defining it, and writes a
// JavaScript module giving the memory's size in pages.
//
//	go run ./scripts/tools/importmemory IN.wasm OUT.wasm OUT.mjs
//
// The team archive's Worker starts a Go instance for each request (wasm/worker/glue/
// worker.mjs). A module that defines its memory gets a new one with each instance:
// the program's data copied into pages the process has never touched, and a dead
// memory left for the isolate's collector after every request. Importing it lets the
// glue hand each instance a memory an earlier one has finished with, cleared. The
// module is otherwise unchanged; it still exports the memory as "mem", which Go's
// wasm_exec.js reads.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: importmemory IN.wasm OUT.wasm OUT.mjs")
		os.Exit(2)
	}
	in, wasmOut, jsOut := os.Args[1], os.Args[2], os.Args[3]
	if err := run(in, wasmOut, jsOut); err != nil {
		fmt.Fprintln(os.Stderr, "importmemory:", err)
		os.Exit(1)
	}
}

func run(in, wasmOut, jsOut string) error {
	b, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	out, pages, err := importMemory(b, "webkeep", "memory")
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	if err := os.WriteFile(wasmOut, out, 0o644); err != nil {
		return err
	}
	js := fmt.Sprintf("// Written by scripts/tools/importmemory: the initial size, in 64 KiB pages, of the\n"+
		"// memory app.wasm imports as webkeep.memory.\nexport const memoryPages = %d;\n", pages)
	return os.WriteFile(jsOut, []byte(js), 0o644)
}

// The sections importMemory reads or writes (WebAssembly core specification, 5.5).
const (
	sectionImport = 2
	sectionMemory = 5
	kindMemory    = 2
)

var header = []byte("\x00asm\x01\x00\x00\x00")

// section is one section of a module: its id and its contents.
type section struct {
	id   byte
	body []byte
}

// importMemory returns module with its one defined memory turned into an import of
// module.name with the same limits, appended to the imports (the memory's index, 0,
// is unchanged: a module has one memory), and the memory's minimum size in pages.
func importMemory(wasm []byte, module, name string) ([]byte, uint64, error) {
	if !bytes.HasPrefix(wasm, header) {
		return nil, 0, errors.New("not a WebAssembly module (version 1)")
	}
	var sections []section
	for r := (reader{b: wasm[len(header):]}); len(r.b) > 0; {
		id, err := r.byte()
		if err != nil {
			return nil, 0, err
		}
		n, err := r.uint()
		if err != nil {
			return nil, 0, fmt.Errorf("section %d: %w", id, err)
		}
		body, err := r.bytes(n)
		if err != nil {
			return nil, 0, fmt.Errorf("section %d: %w", id, err)
		}
		sections = append(sections, section{id, body})
	}
	var limits []byte
	var pages uint64
	importAt := -1
	for i, s := range sections {
		switch s.id {
		case sectionImport:
			importAt = i
		case sectionMemory:
			r := reader{b: s.body}
			if n, err := r.uint(); err != nil || n != 1 {
				return nil, 0, fmt.Errorf("memory section: want one memory, got %d (%v)", n, err)
			}
			start := len(r.b)
			flags, err := r.uint()
			if err != nil {
				return nil, 0, fmt.Errorf("memory section: %w", err)
			}
			if flags > 1 {
				return nil, 0, fmt.Errorf("memory section: limits flags %#x (shared or 64-bit memory) not handled", flags)
			}
			if pages, err = r.uint(); err != nil {
				return nil, 0, fmt.Errorf("memory section: %w", err)
			}
			if flags == 1 {
				if _, err := r.uint(); err != nil {
					return nil, 0, fmt.Errorf("memory section: %w", err)
				}
			}
			limits = s.body[len(s.body)-start : len(s.body)-len(r.b)]
		}
	}
	if limits == nil {
		return nil, 0, errors.New("the module defines no memory (already imported?)")
	}
	if importAt < 0 {
		return nil, 0, errors.New("the module has no import section")
	}
	r := reader{b: sections[importAt].body}
	count, err := r.uint()
	if err != nil {
		return nil, 0, fmt.Errorf("import section: %w", err)
	}
	imports := appendUint(nil, count+1)
	imports = append(imports, r.b...)
	imports = appendName(imports, module)
	imports = appendName(imports, name)
	imports = append(imports, kindMemory)
	imports = append(imports, limits...)
	sections[importAt].body = imports

	out := append([]byte(nil), header...)
	for _, s := range sections {
		if s.id == sectionMemory {
			continue
		}
		out = append(out, s.id)
		out = appendUint(out, uint64(len(s.body)))
		out = append(out, s.body...)
	}
	return out, pages, nil
}

// reader reads a module's bytes.
type reader struct{ b []byte }

var errShort = errors.New("the module ends early")

func (r *reader) byte() (byte, error) {
	if len(r.b) == 0 {
		return 0, errShort
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c, nil
}

func (r *reader) bytes(n uint64) ([]byte, error) {
	if n > uint64(len(r.b)) {
		return nil, errShort
	}
	b := r.b[:n]
	r.b = r.b[n:]
	return b, nil
}

// uint reads an unsigned LEB128 number of at most 32 bits, as the module's sizes are.
func (r *reader) uint() (uint64, error) {
	var v uint64
	for shift := 0; shift < 35; shift += 7 {
		c, err := r.byte()
		if err != nil {
			return 0, err
		}
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			return v, nil
		}
	}
	return 0, errors.New("a number longer than 32 bits")
}

func appendUint(b []byte, v uint64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

func appendName(b []byte, s string) []byte {
	return append(appendUint(b, uint64(len(s))), s...)
}
