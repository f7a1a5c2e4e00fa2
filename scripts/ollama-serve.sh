#!/usr/bin/env bash
# Ollama (CPU) from ../shared/engines/ollama as an experiment's launch
# command (make demo-ollama): ollama-serve.sh HOST:PORT.
#
# It makes a fresh HOME and OLLAMA_MODELS in a temporary folder (never
# the user's, never the repository), keeps every OLLAMA_* setting of the
# caller's environment away from the server, serves on HOST:PORT, and
# creates the models the demo sends, from the tiny llama of
# ../shared/engines/llama.cpp:
#   tiny        Ollama's default chat template, which it also wraps around
#               every /v1/completions prompt;
#   tiny-exact  the prompt passed through ({{ .Prompt }}) and
#               repeat_penalty 1: what llama.cpp's server does with it.
# tiny-exact is made last: GET /v1/models/tiny-exact answering is the
# readiness signal. It serves until SIGTERM (servecmp run stops the
# process group), then removes the folder. OLLAMA_DIR and LLAMA_DIR
# override the engine folders.
set -euo pipefail

ADDR=${1:?usage: ollama-serve.sh HOST:PORT}
cd "$(dirname "$0")/.."
OLLAMA=$(cd "${OLLAMA_DIR:-../shared/engines/ollama}" && pwd)
LLAMA=$(cd "${LLAMA_DIR:-../shared/engines/llama.cpp}" && pwd)
MODEL=$LLAMA/tiny-llama-2L128.gguf
for v in $(compgen -e | grep '^OLLAMA_' || true); do
	unset "$v"
done

T=$(mktemp -d)
pid=
cleanup() {
	if [[ -n $pid ]]; then
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 143' TERM INT

HOME=$T OLLAMA_MODELS=$T/models OLLAMA_HOST=$ADDR OLLAMA_NUM_PARALLEL=4 OLLAMA_KEEP_ALIVE=60m \
	"$OLLAMA/bin/ollama" serve &
pid=$!

ollama() { HOME=$T OLLAMA_HOST=$ADDR "$OLLAMA/bin/ollama" "$@"; }
for _ in $(seq 300); do
	if ollama list >/dev/null 2>&1; then
		break
	fi
	sleep 0.1
done

(cd "$OLLAMA" && ollama create tiny -f Modelfile.tiny)
printf 'FROM %s\nTEMPLATE "{{ .Prompt }}"\nPARAMETER num_thread 1\nPARAMETER num_ctx 4096\nPARAMETER repeat_penalty 1\n' "$MODEL" >"$T/Modelfile.exact"
ollama create tiny-exact -f "$T/Modelfile.exact"
wait "$pid"
