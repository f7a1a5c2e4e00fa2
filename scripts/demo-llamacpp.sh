#!/usr/bin/env bash
# servecmp demo on a real engine: llama.cpp's llama-server (CPU, a tiny
# random-weight model) from ../shared/engines/llama.cpp, one slot (A)
# against four slots (B), the same frozen workload, through the method's
# one command: servecmp run testdata/demo/llamacpp.yaml launches both
# servers, checks token ids, sweeps each, makes three interleaved runs
# per server and writes the report. Skips (exit 0) when the engine is
# absent. Run by `make demo-llamacpp` after `make build`; SERVECMP
# overrides the binary, DEMO_OUT the output folder (demo-llamacpp-out;
# a rerun keeps the steps done), LLAMA_DIR the engine folder.
set -euo pipefail

cd "$(dirname "$0")/.."
BIN=${SERVECMP:-bin/servecmp}
OUT=${DEMO_OUT:-demo-llamacpp-out}
EXP=testdata/demo/llamacpp.yaml
SHARED=../shared/engines/llama.cpp # as the experiment file names it, from the repository
LLAMA=${LLAMA_DIR:-$SHARED}
MODEL=tiny-llama-2L128.gguf
[[ -x $BIN ]] || { echo "demo-llamacpp: $BIN not found; run make build first" >&2; exit 1; }
if [[ ! -x $LLAMA/llama-server || ! -f $LLAMA/$MODEL ]]; then
	echo "demo-llamacpp: no llama-server and $MODEL in $LLAMA: skipped" >&2
	exit 0
fi
if [[ $(realpath "$LLAMA") != $(realpath "$SHARED" 2>/dev/null || true) ]]; then
	# Another engine folder: the experiment file with its paths.
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	sed "s#\.\./\.\./\.\./shared/engines/llama\.cpp#$(realpath "$LLAMA")#g" "$EXP" >"$tmp/llamacpp.yaml"
	EXP=$tmp/llamacpp.yaml
fi

SECONDS=0
"$BIN" run "$EXP" --out "$OUT" >/dev/null
echo
sed -n '1,/^$/p' "$OUT/report.txt"
echo "report:   $OUT/report.txt, report.html, report.json; workbook $OUT/review.xlsx; plots $OUT/plots/"
echo "steps:    $OUT/check, $OUT/sweep-{a,b}, $OUT/run-{a,b}-{1,2,3}; server logs: $OUT/logs/"
echo "rerun:    make demo-llamacpp again keeps every step done (resume); rm -rf $OUT starts afresh"
echo "demo finished in ${SECONDS} s" >&2
