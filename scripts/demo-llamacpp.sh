#!/usr/bin/env bash
# servecmp demo on a real engine: llama.cpp's llama-server (CPU, a tiny
# random-weight model) from ../shared/engines/llama.cpp, one slot (A)
# against four slots (B), the same frozen workload. The whole method: a
# correctness check on token ids, a concurrency sweep and three repeated
# runs per server with server metrics, then the comparison. Skips (exit 0)
# when the engine is absent. Run by `make demo-llamacpp` after `make
# build`; SERVECMP overrides the binary, DEMO_OUT the output folder,
# LLAMA_DIR the engine folder.
set -euo pipefail

cd "$(dirname "$0")/.."
BIN=${SERVECMP:-bin/servecmp}
OUT=${DEMO_OUT:-demo-llamacpp-out}
LLAMA=${LLAMA_DIR:-../shared/engines/llama.cpp}
MODEL=tiny-llama-2L128.gguf
[[ -x $BIN ]] || { echo "demo-llamacpp: $BIN not found; run make build first" >&2; exit 1; }
if [[ ! -x $LLAMA/llama-server || ! -f $LLAMA/$MODEL ]]; then
	echo "demo-llamacpp: no llama-server and $MODEL in $LLAMA: skipped" >&2
	exit 0
fi

rm -rf "$OUT"
mkdir -p "$OUT/logs"
pids=()
cleanup() { # SIGTERM by PID, then SIGKILL after 10 s
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	for p in "${pids[@]}"; do
		for _ in $(seq 100); do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.1
		done
		kill -9 "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
}
trap cleanup EXIT INT TERM

step() { printf '\n### %s\n' "$*" >&2; }

free_port() { # a loopback port nobody listens on now
	local p
	for _ in $(seq 50); do
		p=$((20000 + RANDOM % 40000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return 0
		fi
	done
	return 1
}

healthy() { # PORT: GET /health says ok (bash only, no curl needed)
	local reply
	exec 3<>"/dev/tcp/127.0.0.1/$1" || return 1
	printf 'GET /health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3
	reply=$(timeout 2 cat <&3 || true)
	exec 3<&-
	[[ $reply == *'"ok"'* ]]
}

# start_llama SLOTS NAME: starts a server and sets URL once /health is ok.
# Not called in a subshell, so that its PID reaches pids for the cleanup.
start_llama() {
	local port
	port=$(free_port)
	URL="http://127.0.0.1:$port"
	"$LLAMA/llama-server" -m "$LLAMA/$MODEL" --host 127.0.0.1 --port "$port" -np "$1" -c 4096 -t 1 \
		--metrics --cache-ram 0 --no-cache-prompt >"$OUT/logs/$2.log" 2>&1 &
	pids+=($!)
	for _ in $(seq 300); do
		if healthy "$port" 2>/dev/null; then
			return 0
		fi
		sleep 0.1
	done
	echo "demo-llamacpp: $2 not healthy after 30 s (see $OUT/logs/$2.log)" >&2
	return 1
}

SECONDS=0
step "starting two llama.cpp servers on loopback (A: 1 slot, B: 4 slots; no prompt cache)"
start_llama 1 engine-a
A=$URL
start_llama 4 engine-b
B=$URL
echo "A = $A, B = $B" >&2

step "generating a frozen workload (160 requests, 64 prompt tokens, 32 output tokens, fixed length)"
"$BIN" workload random --num 160 --input-len 64 --output-len 32 --seed 1 --out "$OUT/workload.jsonl" >&2

step "correctness check (first 8 requests, temperature 0, token ids)"
check_rc=0
"$BIN" check --a "$A" --b "$B" --model "$MODEL" --workload "$OUT/workload.jsonl" --limit 8 \
	--out "$OUT/check.json" >&2 || check_rc=$?
if [[ $check_rc -ne 0 ]]; then
	echo "demo-llamacpp: check reported differences (exit $check_rc); continuing, the report says so" >&2
fi

common=(--workload "$OUT/workload.jsonl" --warmup 4 --progress off --manifest gpu_type=cpu)
for side in a b; do
	url=$A
	[[ $side == b ]] && url=$B
	step "server ${side^^}: concurrency sweep 1,2,4,8"
	"$BIN" benchmark --url "$url" "${common[@]}" --sweep-concurrency 1,2,4,8 \
		--out "$OUT/$side-sweep.json" --records "$OUT/$side-sweep.records.jsonl" >"$OUT/logs/$side-sweep.txt"
	for i in 1 2 3; do
		step "server ${side^^}: run $i of 3 at concurrency 4"
		"$BIN" benchmark --url "$url" "${common[@]}" --concurrency 4 \
			--out "$OUT/$side-run$i.json" --records "$OUT/$side-run$i.records.jsonl" >"$OUT/logs/$side-run$i.txt"
	done
done

step "comparison (the slot count is the intended difference)"
args=()
for side in a b; do
	args+=(--"$side" "$OUT/$side-sweep.json")
	for i in 1 2 3; do
		args+=(--"$side" "$OUT/$side-run$i.json" --records-"$side" "$OUT/$side-run$i.records.jsonl")
	done
done
"$BIN" compare "${args[@]}" --check "$OUT/check.json" --intentional manifest.extra.llamacpp_slots \
	--intentional manifest.extra.context_per_slot --plots "$OUT/plots" | tee "$OUT/report.txt"

step "outputs"
echo "report:   $OUT/report.txt; one run in full: $OUT/logs/b-run1.txt"
echo "demo finished in ${SECONDS} s" >&2
