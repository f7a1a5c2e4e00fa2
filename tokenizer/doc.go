// Package tokenizer is an offline, pure-Go tokenizer that reproduces the
// Hugging Face tokenizers (tokenizer.json) and llama.cpp (GGUF vocabulary)
// token ids exactly, so that servecmp can build prompts of an exact token
// length without a model server.
//
// Load reads either file kind, detected by content (a GGUF file starts with
// "GGUF"; a tokenizer.json is a JSON object). Supported models:
//
//   - byte-level BPE: tokenizer.json model BPE with a ByteLevel
//     pre-tokenizer (GPT-2; Llama 3 and Qwen2 with their Split regexes, NFC
//     normalizer, ignore_merges), and GGUF model "gpt2" with the
//     pre-tokenizer patterns llama.cpp selects by tokenizer.ggml.pre
//     (gpt-2, mpt, starcoder, refact, falcon, deepseek-llm, deepseek-coder,
//     llama3, qwen2 and their aliases);
//   - SentencePiece-style BPE: tokenizer.json BPE with Prepend("▁") and
//     Replace(" " → "▁") normalizers (or a Metaspace pre-tokenizer without
//     split; that form has no reference file here) and byte fallback, merged
//     by merge rank; GGUF model "llama", merged by the score of the merged
//     piece (highest first), with a leading space and <0xNN> byte fallback;
//   - WordPiece: GGUF model "bert" (BERT/BGE vocabularies as llama.cpp
//     stores them).
//
// Anything else (Unigram, WordPiece tokenizer.json, other normalizers,
// regexes with lookaround other than the GPT-2 and Llama 3 families) is
// refused by Load with a one-line error naming the file and what is
// unsupported.
//
// Invariants and units:
//
//   - Encode never adds BOS/EOS or other template tokens; ids are
//     vocabulary indices in [0, VocabSize()). Added tokens written verbatim
//     in the text (tokenizer.json added_tokens, with their lstrip/rstrip;
//     GGUF user-defined tokens) are matched first, as the reference
//     encoders do; single_word and normalized flags are not applied.
//   - Pre-tokenizer classes follow the reference regex engines: \p{L} and
//     \p{N} are Unicode categories L and N, \s is Unicode White_Space. The
//     lookahead patterns (\s+(?!\S)) run as hand-written scanners; the
//     other split patterns run on Go's regexp (leftmost-first, the match a
//     backtracking engine picks).
//   - BPE applies the lowest merge rank (or highest score) first, the
//     leftmost pair on ties. Results per pre-token are cached (bounded).
//   - For byte-level models Decode(Encode(s)) == s for any valid UTF-8 s
//     (after NFC where the tokenizer normalizes).
//   - Hash is the hex sha256 of the file's bytes.
//   - Loading bounds every count and length by the bytes the file has and
//     by fixed limits, so a damaged file gives an error, not a panic or a
//     huge allocation.
//
// ExactText and ExactTextAfter cut text of exactly n tokens from a
// TextSource (DefaultCorpus is a bundled public-domain corpus), re-checking
// with Encode because tokens can merge across a cut. Chat templates are in
// the chat sub-package.
package tokenizer
