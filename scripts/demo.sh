#!/usr/bin/env bash
# servecmp demo: two simulated engines on loopback, a correctness check, a
# concurrency sweep and three repeated runs per engine, a pair of synthetic
# profiles, then the two-layer comparison with workbook and plots.
# Needs no GPU and no network beyond 127.0.0.1. Run by `make demo` after
# `make build`; SERVECMP overrides the binary, DEMO_OUT the output folder.
set -euo pipefail

cd "$(dirname "$0")/.."
BIN=${SERVECMP:-bin/servecmp}
OUT=${DEMO_OUT:-demo-out}
[[ -x $BIN ]] || { echo "demo: $BIN not found; run make build first" >&2; exit 1; }

rm -rf "$OUT"
mkdir -p "$OUT/logs"
pids=()
cleanup() {
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	for p in "${pids[@]}"; do
		wait "$p" 2>/dev/null || true
	done
}
trap cleanup EXIT INT TERM

step() { printf '\n### %s\n' "$*" >&2; }

wait_url() { # FILE -> prints the URL written by serve-sim --port-file
	for _ in $(seq 100); do
		if [[ -s $1 ]]; then
			cat "$1"
			return 0
		fi
		sleep 0.1
	done
	echo "demo: no URL in $1 after 10 s (see $OUT/logs)" >&2
	return 1
}

SECONDS=0
step "starting two simulated engines (A: vLLM-like, batch 8; B: SGLang-like, batch 32, faster decode)"
"$BIN" serve-sim --addr 127.0.0.1:0 --port-file "$OUT/a.url" --engine vllm --model demo-model --seed 7 \
	--max-running 8 --prefill-per-token 20us --decode-base 3ms --decode-per-seq 150us \
	>"$OUT/logs/engine-a.log" 2>&1 &
pids+=($!)
"$BIN" serve-sim --addr 127.0.0.1:0 --port-file "$OUT/b.url" --engine sglang --model demo-model --seed 7 \
	--max-running 32 --prefill-per-token 15us --decode-base 2500us --decode-per-seq 80us \
	>"$OUT/logs/engine-b.log" 2>&1 &
pids+=($!)
A=$(wait_url "$OUT/a.url")
B=$(wait_url "$OUT/b.url")
echo "A = $A, B = $B" >&2

step "generating a frozen workload (128 requests, 128 prompt tokens, 32 output tokens)"
"$BIN" workload random --num 128 --input-len 128 --output-len 32 --seed 1 --out "$OUT/workload.jsonl" >&2

step "correctness check (first 8 requests, temperature 0, token ids)"
check_rc=0
"$BIN" check --a "$A" --b "$B" --model demo-model --workload "$OUT/workload.jsonl" --limit 8 \
	--out "$OUT/check.json" >&2 || check_rc=$?
if [[ $check_rc -ne 0 ]]; then
	echo "demo: check reported differences (exit $check_rc); continuing, the report says so" >&2
fi

common=(--model demo-model --workload "$OUT/workload.jsonl" --warmup 4 --reset-prefix-cache --progress off
	--manifest gpu_type=simulated --manifest gpu_count=1)
for side in a b; do
	url=$A
	[[ $side == b ]] && url=$B
	step "engine ${side^^}: concurrency sweep 4,8,16,32"
	"$BIN" benchmark --url "$url" "${common[@]}" --sweep-concurrency 4,8,16,32 \
		--out "$OUT/$side-sweep.json" --records "$OUT/$side-sweep.records.jsonl" >"$OUT/logs/$side-sweep.txt"
	for i in 1 2 3; do
		step "engine ${side^^}: run $i of 3 at concurrency 16"
		"$BIN" benchmark --url "$url" "${common[@]}" --concurrency 16 \
			--out "$OUT/$side-run$i.json" --records "$OUT/$side-run$i.records.jsonl" >"$OUT/logs/$side-run$i.txt"
	done
done

step "analysing two synthetic profiles (testdata/demo: vLLM-like and SGLang-like nsys exports)"
"$BIN" analyze --save "$OUT/profile-a.json" testdata/demo/vllm-like.sqlite >"$OUT/logs/analyze-a.txt"
"$BIN" analyze --save "$OUT/profile-b.json" testdata/demo/sglang-like.sqlite >"$OUT/logs/analyze-b.txt"

step "two-layer comparison"
args=()
for side in a b; do
	args+=(--"$side" "$OUT/$side-sweep.json")
	for i in 1 2 3; do
		args+=(--"$side" "$OUT/$side-run$i.json" --records-"$side" "$OUT/$side-run$i.records.jsonl")
	done
	args+=(--profile-"$side" "$OUT/profile-$side.json")
done
"$BIN" compare "${args[@]}" --check "$OUT/check.json" --intentional engine \
	--xlsx "$OUT/review.xlsx" --plots "$OUT/plots" --html "$OUT/report.html" | tee "$OUT/report.txt"
"$BIN" compare "${args[@]}" --check "$OUT/check.json" --intentional engine --format json >"$OUT/report.json" 2>/dev/null

step "outputs"
echo "report:   $OUT/report.txt (and $OUT/report.json)"
echo "page:     $OUT/report.html (self-contained, plots inline)"
echo "workbook: $OUT/review.xlsx"
echo "plots:    $OUT/plots/"
echo "demo finished in ${SECONDS} s" >&2
echo "inputs:   $OUT/workload.jsonl, $OUT/check.json, $OUT/*-run*.json, $OUT/*-sweep.json, $OUT/profile-*.json"
