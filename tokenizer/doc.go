// Package tokenizer is an offline, pure-Go tokenizer that reproduces the
// Hugging Face tokenizers (tokenizer.json) and llama.cpp (GGUF vocabulary)
// token ids exactly, so that servecmp can build prompts of an exact token
// length without a model server.
//
// Load reads either file kind, detected by content (a GGUF file starts with
// "GGUF"; a tokenizer.json is a JSON object).
//
// tokenizer.json is read as a format, not as a list of families:
//
//   - normalizers: NFC, NFD, NFKC, NFKD, Lowercase (full Unicode), Strip,
//     StripAccents, Replace (string or regex), Prepend, BertNormalizer,
//     Precompiled (SentencePiece's charsmap: its darts-clone trie read and
//     bounds-checked, applied per grapheme cluster as the reference
//     library does; see precompiled.go), Sequence;
//   - pre-tokenizers: Split (string or regex; Removed, Isolated,
//     MergedWithPrevious, MergedWithNext, Contiguous; invert), ByteLevel
//     (with or without its regex, add_prefix_space), Metaspace
//     (prepend_scheme always/first/never, split), Whitespace,
//     WhitespaceSplit, BertPreTokenizer, Punctuation, Digits,
//     CharDelimiterSplit, Sequence;
//   - models: BPE (byte-level or over characters; byte_fallback,
//     ignore_merges, fuse_unk, merges as "a b" or [a, b]), WordPiece,
//     Unigram (Viterbi over the scores, unk fused, byte fallback);
//   - added tokens with lstrip, rstrip, single_word, normalized (matched
//     in the normalized text) and special; decoders and the
//     TemplateProcessing, Bert and Roberta post-processors (EncodeSpecial).
//
// A file whose merges name a token the vocabulary lacks is refused.
//
// GGUF files: model "gpt2" (byte-level BPE) with the pre-tokenizer
// patterns llama.cpp selects by tokenizer.ggml.pre (gpt-2, mpt,
// starcoder, refact, falcon, deepseek-llm, deepseek-coder, deepseek-v3,
// llama3, qwen2, gpt-4o/gpt-oss and their aliases), "llama" (SentencePiece
// BPE by score, the form Gemma also uses), "bert" (WordPiece).
//
// Invariants and units:
//
//   - Encode never adds BOS/EOS or other template tokens; ids are
//     vocabulary indices in [0, VocabSize()). Added tokens written verbatim
//     in the text are matched first (leftmost, then longest), as the
//     reference encoders do.
//   - Regexes are Oniguruma's (the reference's engine), with \s = Unicode
//     White_Space, \w = Oniguruma's word set, ^ and $ line anchors.
//     regexp2 (a backtracking engine with lookaround) validates every
//     pattern. The GPT-2, Llama 3/Qwen2 and o200k patterns run on hand
//     scanners, simple class patterns on a class scanner, and any other
//     pattern in the subset of this package's engine (reparse.go,
//     rematch.go: classes, (?i) literals, loops, lookahead, anchors) on
//     that engine, with regexp2 as the fallback past its step bound; the
//     rest runs on regexp2. Tests prove each equal to regexp2 on a hostile
//     corpus, random text and patterns, and by fuzzing.
//   - A regex that exceeds the bounds (backtracking stack, time) is caught
//     at Load on probe texts (the file is refused, naming the pattern);
//     past that, an encode that exceeds them keeps the piece unsplit,
//     EncodeChecked returns the error (file and pattern named) and Err
//     keeps the first one; RegexFailures counts them process-wide.
//   - BPE applies the lowest merge rank (or highest score) first, the
//     leftmost pair on ties, with a heap of candidate pairs over linked
//     symbols (O(n log n) per word). Results per pre-token are cached
//     (bounded). SentencePiece-style text without a pre-tokenizer split
//     (Gemma 3) is cut before each "▁" that no piece can join to the
//     character before it, so its words are cached too.
//   - For byte-level models Decode(Encode(s)) == s for any valid UTF-8 s
//     (after the file's normalizer).
//   - TokenID("bos"/"eos"/…) answers only when the file (or its
//     tokenizer_config.json) names that token, never with an ordinary
//     word spelt like the role.
//   - Hash is the hex sha256 of the file's bytes.
//   - Loading bounds every count and length by the bytes the file has and
//     by fixed limits, so a damaged file gives an error, not a panic or a
//     huge allocation.
//
// ExactText and ExactTextAfter cut text of exactly n tokens from a
// TextSource (DefaultCorpus is a bundled public-domain corpus), re-checking
// with Encode because tokens can merge across a cut. Chat templates are in
// the chat sub-package; `servecmp tokenize` is the tokenize sub-package.
package tokenizer
