# servecmp: a thin wrapper around the go tool.
GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse --short HEAD 2>/dev/null)
LDFLAGS := -X main.version=$(VERSION) -X main.commit=$(COMMIT)
export CGO_ENABLED := 1

# The SQLite driver is C, compiled through cgo: with an empty build cache
# that one package takes most of the first build (minutes on 2 cores,
# silently). build, test and vet use the same flags (no -trimpath), so
# the compiled driver is shared by all of them and made once.
# SQLITE=system links the system's libsqlite3 instead of compiling the
# bundled copy (needs libsqlite3-dev; the binary then needs libsqlite3 at
# run time): the first build saves about half its CPU time.
SQLITE ?= bundled
ifeq ($(SQLITE),system)
TAGS := -tags libsqlite3
endif
DRIVER := github.com/mattn/go-sqlite3

.PHONY: build test bench demo demo-llamacpp check fmt vet tidy-check layering race clean

# sqlite-note says, before a build that will compile the driver (with the
# build flags $(1)), that it takes a while and why.
define sqlite-note
	@if [ "$$($(GO) list $(TAGS) $(1) -f '{{.Stale}}' $(DRIVER) 2>/dev/null)" = true ]; then \
		echo "make: this build compiles SQLite (C, through cgo) first: minutes on a small machine (about 2.5 CPU-minutes), with nothing printed meanwhile;" >&2; \
		echo "make: later builds reuse it and take seconds (make SQLITE=system links the system's libsqlite3 instead)" >&2; \
	fi
endef

build:
	$(call sqlite-note,)
	$(GO) build $(TAGS) -ldflags "$(LDFLAGS)" -o bin/servecmp ./cmd/servecmp

test:
	$(call sqlite-note,)
	$(GO) test $(TAGS) ./...

bench: build
	$(GO) run ./internal/cmd/benchtool
	@echo "tokenizer: 10,000 prompts of ~1,000 tokens, 2 goroutines, cold cache (goal: < 10 s per tokenizer)"
	$(GO) test -run '^$$' -bench '^BenchmarkWorkload10k$$' -benchtime 1x ./tokenizer

# demo: the whole method from one file (servecmp run), then layer 2 from
# two bundled nsys-like profiles (scripts/demo.sh: serve-sim's own traces
# would place every SGLang-like kernel in one region, so the demo keeps
# exports whose regions are known). A second `make demo` keeps the steps done.
# The report goes to demo-out/report.txt; the demo ends with its conclusion
# and where the files are.
demo: build
	bin/servecmp run testdata/demo/experiment.yaml --out demo-out >/dev/null
	./scripts/demo.sh

# demo-llamacpp: the same method on a real engine, llama.cpp's server from
# ../shared/engines/llama.cpp (one slot vs four); skipped when absent.
demo-llamacpp: build
	./scripts/demo-llamacpp.sh

check: fmt vet tidy-check layering race

fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(TAGS) ./...

tidy-check:
	$(GO) mod tidy -diff

# layering: no import runs up a floor (docs/layout.md), compare links no
# client, load generator, check runner or tokenizer, cobra and the SQLite
# driver stay where they belong, cmd/servecmp stays within its line budget
# and no function runs over 80 lines.
layering:
	$(GO) test -count=1 ./internal/testkit/layering

race:
	$(call sqlite-note,-race)
	$(GO) test $(TAGS) -race ./...

clean:
	rm -rf bin
