# webkeep: `make demo` records the demo site through the real extension into ./out;
# `make test` runs every check. Both install what they need (scripts/setup.sh).
SHELL := bash
export PATH := $(CURDIR)/.cache/go/bin:$(PATH)
export GOFLAGS := -buildvcs=false

GOROOT_LIB = $(shell go env GOROOT)/lib/wasm
EXT := dist/extension
WASM_FLAGS := -trimpath -ldflags='-s -w'

.PHONY: all build setup demo test bench worker-dev clean

all: build

setup:
	@scripts/setup.sh

build: setup
	go build -o bin/webkeep ./cmd/webkeep
	go build -o bin/demosite ./scripts/demosite
	rm -rf $(EXT) && mkdir -p $(EXT)
	cp -r extension/. $(EXT)/
	cp $(GOROOT_LIB)/wasm_exec.js $(EXT)/
	GOOS=js GOARCH=wasm go build $(WASM_FLAGS) -o $(EXT)/core.wasm ./wasm/core
	GOOS=js GOARCH=wasm go build $(WASM_FLAGS) -o $(EXT)/ui.wasm ./wasm/ui
	@if ls wasm/worker/*.go >/dev/null 2>&1; then scripts/build-worker.sh; fi
	go run ./scripts/zipdir $(EXT) dist/webkeep-extension.zip
	@echo "built: bin/webkeep, $(EXT)/ (load unpacked), dist/webkeep-extension.zip"

demo: build
	node scripts/demo.mjs

test: build
	scripts/test.sh

bench: build
	scripts/bench.sh

worker-dev: build
	node scripts/worker-dev.mjs

clean:
	rm -rf bin dist out
