#!/usr/bin/env bash
# The second step of `make demo`: layer 2 from two bundled Nsight Systems
# exports. servecmp run can capture layer 2 itself (a profile block: a
# profile per engine, analysed with its window's work), but serve-sim's
# SGLang-like traces place every kernel in attention, so the demo keeps the
# bundled exports, whose regions tell a truer story.
#
# The first step, `servecmp run testdata/demo/experiment.yaml --out DIR`,
# launched two simulated engines on loopback, checked that they produce the
# same tokens, swept each, made three interleaved runs per engine and wrote
# layer 1 with SLO goodput and capacity, the workbook and the plots into DIR.
# This script analyses the two bundled synthetic profiles
# (testdata/demo/*.sqlite) and compares again with them: DIR/layer2/ gets
# the two-layer report, its workbook and plots; it prints the report's
# conclusion and where the files are. Needs no GPU; SERVECMP
# overrides the binary, DEMO_OUT the folder (demo-out).
set -euo pipefail

cd "$(dirname "$0")/.."
BIN=${SERVECMP:-bin/servecmp}
OUT=${DEMO_OUT:-demo-out}
[[ -x $BIN ]] || { echo "demo: $BIN not found; run make build first" >&2; exit 1; }
[[ -s $OUT/report.json ]] || { echo "demo: $OUT/report.json not found; run: $BIN run testdata/demo/experiment.yaml --out $OUT" >&2; exit 1; }

printf '\n### layer 2: analysing two synthetic profiles (testdata/demo: vLLM-like and SGLang-like nsys exports)\n' >&2
rm -rf "$OUT/layer2"
mkdir -p "$OUT/layer2"
"$BIN" analyze --save "$OUT/layer2/profile-a.json" testdata/demo/vllm-like.sqlite >"$OUT/layer2/analyze-a.txt"
"$BIN" analyze --save "$OUT/layer2/profile-b.json" testdata/demo/sglang-like.sqlite >"$OUT/layer2/analyze-b.txt"
args=()
for side in a b; do
	args+=(--"$side" "$OUT/sweep-$side/result.json")
	for i in 1 2 3; do
		args+=(--"$side" "$OUT/run-$side-$i/result.json" --records-"$side" "$OUT/run-$side-$i/records.jsonl")
	done
	args+=(--profile-"$side" "$OUT/layer2/profile-$side.json")
done
"$BIN" compare "${args[@]}" --check "$OUT/check/check.json" --intentional engine \
	--xlsx "$OUT/layer2/review.xlsx" --plots "$OUT/layer2/plots" --html "$OUT/layer2/report.html" >"$OUT/layer2/report.txt" 2>/dev/null

# The end of the demo: the conclusion (the report's opening lines, up to
# the first blank line) and where everything is, not the whole report.
echo
sed -n '1,/^$/p' "$OUT/layer2/report.txt"
echo "report:   $OUT/report.txt, report.html (open it in a browser), report.json (with the run order and the steps done)"
echo "workbook: $OUT/review.xlsx; plots: $OUT/plots/"
echo "steps:    $OUT/check, $OUT/sweep-{a,b}, $OUT/run-{a,b}-{1,2,3} (result.json, records.jsonl, step.json); engine logs: $OUT/logs/"
echo "layer 2:  $OUT/layer2/report.txt and report.html (both layers, with GPU time by region), review.xlsx and plots/"
echo "again:    compare --a $OUT --b $OUT --intentional engine reads the run directory with other settings"
echo "rerun:    make demo again keeps every step done (resume); rm -rf $OUT starts afresh"
