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

.PHONY: build test bench calibrate demo demo-llamacpp demo-ollama check fmt vet tidy-check layering race clean

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
	$(GO) test $(TAGS) -timeout 30m ./...

bench: build
	$(GO) run ./internal/cmd/benchtool
	@echo "tokenizer: 10,000 prompts of ~1,000 tokens, 2 goroutines, cold cache (goal: < 10 s per tokenizer)"
	$(GO) test -run '^$$' -bench '^BenchmarkWorkload10k$$' -benchtime 1x ./tokenizer
	@echo "tokenizer: MB/s on plain English, cold word cache, 5 runs (take the best); cpu-MB/s is per CPU second, the per-core figure on a shared machine (goal: >= 5 for every family; current families after scripts/fetch-tokenizers.sh)"
	$(GO) test -run '^$$' -bench '^BenchmarkEncodeFamilies$$' -benchtime 3x -count 5 ./tokenizer
	@echo "pre-tokenizer: hand scanner vs the package's regex engine (the regex path) vs regexp2 (its fallback) on the same pattern (goal: engine at most 2x slower than the scanner)"
	$(GO) test -run '^$$' -bench '^BenchmarkSplitScannerVsRegex$$' -benchtime 30x -count 5 ./tokenizer
	@echo "workload trace: a 12,000-request trace of the Mooncake conversation trace's shape, token ids (goal: < 10 s, bounded memory)"
	$(GO) test -run '^$$' -bench '^BenchmarkTrace12k$$' -benchtime 1x ./benchmark/workload

# calibrate: the thorough check of compare's verdicts by simulation (A/A
# and A/B comparisons through written result and records files and the
# real compare; internal/testkit/calibrate): false claims of the headline and of
# each row, interval coverage, power and "needs more runs". Tens of
# minutes; the fast check is internal/testkit/calibrate's test.
calibrate:
	$(GO) run ./internal/cmd/calibrate -n 400

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

# demo-ollama: servecmp run with llama.cpp's server against Ollama, both
# from ../shared/engines and launched by servecmp, then the same workload
# against Ollama's templated model (NOT COMPARABLE on inputs); skipped
# when absent. docs/ollama.md's excerpt: UPDATE_GOLDEN=1 go test -run
# TestDemoOllama ./cmd/servecmp.
demo-ollama: build
	./scripts/demo-ollama.sh

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

# The command tests start real engines (../shared/engines): under the race
# detector on 2 cores they take about 10 minutes, go test's default limit.
race:
	$(call sqlite-note,-race)
	$(GO) test $(TAGS) -race -timeout 30m ./...

clean:
	rm -rf bin
