# servecmp: a thin wrapper around the go tool.
GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse --short HEAD 2>/dev/null)
LDFLAGS := -X main.version=$(VERSION) -X main.commit=$(COMMIT)
export CGO_ENABLED := 1

.PHONY: build test bench calibrate demo demo-llamacpp check fmt vet tidy-check layering race clean

build:
	$(GO) build -trimpath -ldflags "$(LDFLAGS)" -o bin/servecmp ./cmd/servecmp

test:
	$(GO) test ./...

bench: build
	$(GO) run ./internal/benchtool
	@echo "tokenizer: 10,000 prompts of ~1,000 tokens, 2 goroutines, cold cache (goal: < 10 s per tokenizer)"
	$(GO) test -run '^$$' -bench '^BenchmarkWorkload10k$$' -benchtime 1x ./tokenizer

# calibrate: the thorough check of compare's verdicts by simulation (A/A
# and A/B comparisons through written result and records files and the
# real compare; compare/calibrate): false claims of the headline and of
# each row, interval coverage, power and "needs more runs". Tens of
# minutes; the fast check is compare/calibrate's test.
calibrate:
	$(GO) run ./internal/cmd/calibrate -n 400

# demo: the whole method from one file (servecmp run), then layer 2 from
# two bundled nsys-like profiles (scripts/demo.sh: serve-sim's own traces
# would place every SGLang-like kernel in one region, so the demo keeps
# exports whose regions are known). A second `make demo` keeps the steps done.
demo: build
	bin/servecmp run testdata/demo/experiment.yaml --out demo-out
	./scripts/demo.sh

# demo-llamacpp: the same method on a real engine, llama.cpp's server from
# ../shared/engines/llama.cpp (one slot vs four); skipped when absent.
demo-llamacpp: build
	./scripts/demo-llamacpp.sh

check: fmt vet tidy-check layering race

fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

tidy-check:
	$(GO) mod tidy -diff

# layering: domain packages never import cmd, the presentation layer or the
# SQLite driver, and cmd/servecmp stays within its line budget.
layering:
	$(GO) test -count=1 ./internal/layering

race:
	$(GO) test -race ./...

clean:
	rm -rf bin
