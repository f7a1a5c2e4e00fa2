package tokenizer

import "fmt"

// ggufPreSteps gives llama.cpp's pre-tokenizer patterns for a
// tokenizer.ggml.pre value of a gpt2-type vocabulary. Each step splits
// with the "Isolated" behaviour.
func ggufPreSteps(pre string) ([]string, bool) {
	const gpt2 = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)`
	llama3 := llama3Head[0] + fmt.Sprintf(llama3Tail, "{1,3}")
	switch pre {
	case "gpt-2", "gpt2", "mpt", "olmo", "jais":
		return []string{gpt2}, true
	case "starcoder", "refact", "command-r", "smollm", "codeshell", "exaone", "minerva":
		return []string{`\p{N}`, gpt2}, true
	case "falcon":
		return []string{"[\\p{P}\\$\\+<=>\\^~\\|`]+", gpt2, `[0-9][0-9][0-9]`}, true
	case "llama3", "llama-bpe", "llama-v3", "dbrx", "smaug-bpe", "chatglm-bpe":
		return []string{llama3}, true
	case "qwen2", "qwen2.5", "qwen-2.5", "deepseek-r1-qwen", "stablelm2":
		return []string{llama3Head[0] + fmt.Sprintf(llama3Tail, "")}, true
	case "deepseek-llm":
		return []string{"[\r\n]", deepseekLLMLetters, `\s?[!-/:-~！-／：-～‘-‟　-。]+`, `\s+$`, `[一-龥ࠀ-一가-퟿]+`, `\p{N}+`}, true
	case "deepseek-coder":
		return []string{"[\r\n]", `\s?\p{L}+`, `\s?\p{P}+`, `[一-龥ࠀ-一가-퟿]+`, `\p{N}`}, true
	case "deepseek-v3":
		return deepseekV3Steps, true
	case "gpt-4o", "gpt-oss", "llama4":
		return []string{o200kPattern}, true
	case "default":
		return []string{`[\p{P}\$\+<=>\^~\|]+`, gpt2, `\p{N}+`, `[0-9][0-9][0-9]`}, true
	}
	return nil, false
}

// deepseekV3Steps are DeepSeek-V3's pre-tokenizer patterns (its
// tokenizer.json Split steps, which llama.cpp's deepseek-v3 type copies).
var deepseekV3Steps = []string{
	`\p{N}{1,3}`,
	`[一-龥぀-ゟ゠-ヿ]+`,
	"[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+",
}

// deepseekLLMLetters is the explicit letter class of DeepSeek LLM's
// pre-tokenizer (an optional space, then a run of these letters).
const deepseekLLMLetters = `\s?[A-Za-zµÀ-ÖØ-öø-ƺƼ-ƿǄ-ʓʕ-ʯͰ-ͳͶͷͻ-ͽͿΆΈ-ΊΌΎ-ΡΣ-ϵϷ-ҁҊ-ԯԱ-ՖႠ-ჅᎠ-Ᏽᏸ-ᏽᲐ-ᲺᲽ-Ჿᴀ-ᴫᵫ-ᵷᵹ-ᶚḀ-ἕἘ-Ἕἠ-ὅὈ-Ὅὐ-ὗὙὛὝὟ-\x{1F7D}ᾀ-ᾴᾶ-ᾼ\x{1FBE}ῂ-ῄῆ-ῌῐ-\x{1FD3}ῖ-\x{1FDB}ῠ-Ῥῲ-ῴῶ-ῼℂℇℊ-ℓℕℙ-ℝℤ\x{2126}ℨ\x{212A}-ℭℯ-ℴℹℼ-ℿⅅ-ⅉⅎↃↄⰀ-ⱻⱾ-ⳤⳫ-ⳮⳲⳳꙀ-ꙭꚀ-ꚛꜢ-ꝯꝱ-ꞇꞋ-ꞎꭰ-ꮿﬀ-ﬆﬓ-ﬗＡ-Ｚａ-ｚ𐐀-𐑏𐒰-𐓓𐓘-𐓻𐲀-𐲲𐳀-𐳲𑢠-𑣟𞤀-𞥃]+`
