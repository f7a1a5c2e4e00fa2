#!/usr/bin/env bash
# servecmp demo on two real engines: llama.cpp's server against Ollama,
# the same tiny model from ../shared/engines, both launched by
# `servecmp run` (testdata/demo/ollama.yaml; Ollama through
# scripts/ollama-serve.sh). A second pair (testdata/demo/ollama-templated.yaml)
# sends the same workload to Ollama's templated model and must come out
# NOT COMPARABLE on its inputs. Skips (exit 0) when an engine is absent.
# Run by `make demo-ollama` after `make build`; SERVECMP overrides the
# binary, DEMO_OUT the output folder.
set -euo pipefail

cd "$(dirname "$0")/.."
BIN=${SERVECMP:-bin/servecmp}
OUT=${DEMO_OUT:-demo-ollama-out}
LLAMA=../shared/engines/llama.cpp
OLLAMA=../shared/engines/ollama
[[ -x $BIN ]] || { echo "demo-ollama: $BIN not found; run make build first" >&2; exit 1; }
for f in "$LLAMA/llama-server" "$LLAMA/tiny-llama-2L128.gguf" "$OLLAMA/bin/ollama" "$OLLAMA/Modelfile.tiny"; do
	if [[ ! -e $f ]]; then
		echo "demo-ollama: $f is absent: skipped" >&2
		exit 0
	fi
done

rm -rf "$OUT"
mkdir -p "$OUT"
SECONDS=0
printf '\n### llama.cpp (A) against Ollama (B): raw prompts, no repeat penalty\n' >&2
"$BIN" run testdata/demo/ollama.yaml --out "$OUT/exact" >"$OUT/exact.txt"
printf '\n### llama.cpp (A) against Ollama'\''s templated model (B): the same workload\n' >&2
# This pair is NOT COMPARABLE by design: run exits 3 with its report written.
rc=0
"$BIN" run testdata/demo/ollama-templated.yaml --out "$OUT/templated" >"$OUT/templated.txt" || rc=$?
if [[ $rc -ne 3 ]]; then
	echo "demo-ollama: the templated pair should come out NOT COMPARABLE (exit 3); servecmp run exited $rc" >&2
	exit 1
fi

head -n 1 "$OUT/exact.txt"
head -n 1 "$OUT/templated.txt"
echo "reports: $OUT/exact/report.txt, $OUT/templated/report.txt"
echo "demo finished in ${SECONDS} s" >&2
