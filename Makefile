# webkeep: `make demo` records the demo site through the real extension into ./out;
# `make test` runs every check. Each installs what it needs, and only that
# (scripts/setup.sh build|demo|test).
SHELL := bash
export PATH := $(CURDIR)/.cache/go/bin:$(PATH)
export GOFLAGS := -buildvcs=false

GOROOT_LIB = $(shell go env GOROOT)/lib/wasm
EXT := dist/extension
FIREFOX := dist/firefox
WASM_FLAGS := -trimpath -ldflags='-s -w'

.PHONY: all build setup demo-setup demo test bench screenshots worker-dev clean

all: build

# Everything the tests and benchmarks use.
setup:
	@scripts/setup.sh test

# What the demo runs: Node.js, the browser (BROWSER=firefox: Firefox ESR), the demo's
# npm packages.
demo-setup:
	@scripts/setup.sh demo $(BROWSER)

build:
	@scripts/setup.sh build
	go build -o bin/webkeep ./cmd/webkeep
	go build -o bin/demosite ./scripts/tools/demosite
	go build -o bin/wireproxy ./scripts/tools/wireproxy
	rm -rf $(EXT) && mkdir -p $(EXT)
	cp -r extension/. $(EXT)/
	cp $(GOROOT_LIB)/wasm_exec.js $(EXT)/
	@# The Chromium worker reads the core gzipped (a quarter of the bytes) and inflates it
	@# as it compiles (sw.js); Firefox's background page reads core.wasm as it is.
	GOOS=js GOARCH=wasm go build $(WASM_FLAGS) -o dist/core.wasm ./wasm/core
	gzip -9 -n -c dist/core.wasm > $(EXT)/core.wasm.gz
	@# The worker keeps the inflated core in its Cache Storage under this build's id.
	printf 'self.webkeepCoreID = "%s";\n' $$(sha256sum dist/core.wasm | cut -c1-16) > $(EXT)/core-id.js
	GOOS=js GOARCH=wasm go build $(WASM_FLAGS) -o $(EXT)/ui.wasm ./wasm/ui
	@if ls wasm/worker/*.go >/dev/null 2>&1; then scripts/build-worker.sh; fi
	go run ./scripts/tools/zipdir $(EXT) dist/webkeep-extension.zip
	@# Firefox: the same core, pages and store; its own manifest, background shim
	@# (extension-firefox/), and api.js loaded before each page's code.
	rm -rf $(FIREFOX) && mkdir -p $(FIREFOX)
	cp -r $(EXT)/. $(FIREFOX)/
	rm $(FIREFOX)/sw.js $(FIREFOX)/badge.js $(FIREFOX)/events.js $(FIREFOX)/core.wasm.gz $(FIREFOX)/core-id.js $(FIREFOX)/keeper.html $(FIREFOX)/keeper.js
	cp dist/core.wasm $(FIREFOX)/
	cp extension-firefox/* $(FIREFOX)/
	@# The copier of the files a page sends, which Chromium's recorder runs in the page.
	cp shared/recorder/copier.js $(FIREFOX)/
	@# Autopilot's page script, which Chromium's core runs in the page (Runtime.evaluate).
	cp shared/autopilot/page.js $(FIREFOX)/autopilot.js
	sed -i 's|<script src="wasm_exec.js"></script>|<script src="api.js"></script>\n&|' $(FIREFOX)/*.html
	go run ./scripts/tools/zipdir $(FIREFOX) dist/webkeep-firefox.xpi
	@echo "built: bin/webkeep, $(EXT)/ (load unpacked), dist/webkeep-extension.zip, $(FIREFOX)/ and dist/webkeep-firefox.xpi (Firefox)"

# BROWSER=firefox records in Firefox ESR through the Firefox build instead.
demo: demo-setup build
	node scripts/demo$(if $(filter firefox,$(BROWSER)),-firefox).mjs

test: setup build
	scripts/test.sh

bench: setup build
	scripts/bench.sh $(SECTIONS)

# docs/screenshots/, from a real recording of the demo site in Chromium.
screenshots: setup build
	WEBKEEP_SCREENSHOTS=1 node --test scripts/test/e2e/pages.test.mjs

worker-dev: setup build
	node scripts/worker-dev.mjs

clean:
	rm -rf bin dist out
