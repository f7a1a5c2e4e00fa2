package tokenizer

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Pre-tokenization: text is cut into pieces before BPE runs on each piece.
// A splitter covers a fragment with consecutive pieces (matches and the
// gaps between them are both kept, the "Isolated" behaviour); a pipeline
// applies splitters in turn, each to every piece of the previous one.

type splitter interface {
	// split appends the end offsets of the pieces covering s.
	split(s string, ends []int) []int
}

// Character classes as the reference regex engines see them: \p{L}, \p{N}
// and \s (the Unicode White_Space property).
const (
	clsOther = iota
	clsLetter
	clsNumber
	clsSpace
)

var asciiClass [128]uint8

func init() {
	for c := 0; c < 128; c++ {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			asciiClass[c] = clsLetter
		case c >= '0' && c <= '9':
			asciiClass[c] = clsNumber
		case c == ' ', c >= '\t' && c <= '\r':
			asciiClass[c] = clsSpace
		}
	}
}

func classOf(r rune) uint8 {
	if r < 128 {
		return asciiClass[r]
	}
	switch {
	case unicode.IsLetter(r):
		return clsLetter
	case unicode.IsNumber(r):
		return clsNumber
	case unicode.IsSpace(r):
		return clsSpace
	}
	return clsOther
}

// at decodes the rune at byte offset i.
func at(s string, i int) (rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// classAt is the class of the rune at i, or -1 at the end of s.
func classAt(s string, i int) int {
	if i >= len(s) {
		return -1
	}
	r, _ := at(s, i)
	return int(classOf(r))
}

// runOf returns the end of the run of runes of class cls starting at i.
func runOf(s string, i int, cls uint8) int {
	for i < len(s) {
		r, n := at(s, i)
		if classOf(r) != cls {
			break
		}
		i += n
	}
	return i
}

// contraction returns the length of an English contraction suffix
// ('s 't 're 've 'm 'll 'd) at s[i:], which starts with an apostrophe.
func contraction(s string, i int, fold bool) int {
	if i+1 >= len(s) || s[i] != '\'' {
		return 0
	}
	lower := func(c byte) byte {
		if fold && c >= 'A' && c <= 'Z' {
			return c + 32
		}
		return c
	}
	switch lower(s[i+1]) {
	case 's', 't', 'm', 'd':
		return 2
	}
	if i+2 < len(s) {
		two := string([]byte{lower(s[i+1]), lower(s[i+2])})
		if two == "re" || two == "ve" || two == "ll" {
			return 3
		}
	}
	return 0
}

// spaceRunEnd handles a whitespace run starting at i: \s+(?!\S) keeps the
// last space for the next piece unless the run ends the fragment or is a
// single rune; the trailing \s+ alternative then takes single runs.
func spaceRunEnd(s string, i int) int {
	e := runOf(s, i, clsSpace)
	if e == len(s) {
		return e
	}
	_, n := utf8.DecodeLastRuneInString(s[:e])
	if e-n == i {
		return e
	}
	return e - n
}

// gpt2Splitter is the GPT-2 pattern
// 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
type gpt2Splitter struct{}

func (gpt2Splitter) split(s string, ends []int) []int {
	for i := 0; i < len(s); {
		i = gpt2Piece(s, i)
		ends = append(ends, i)
	}
	return ends
}

func gpt2Piece(s string, i int) int {
	if k := contraction(s, i, false); k > 0 {
		return i + k
	}
	j := i
	if s[i] == ' ' {
		if c := classAt(s, i+1); c >= 0 && c != clsSpace {
			j = i + 1
		}
	}
	switch c := uint8(classAt(s, j)); c {
	case clsLetter, clsNumber, clsOther:
		return runOf(s, j, c)
	}
	return spaceRunEnd(s, i)
}

// llama3Splitter is the Llama 3 / Qwen2 pattern
// (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,D}|
// ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+ with D = maxDigits.
type llama3Splitter struct{ maxDigits int }

func (l llama3Splitter) split(s string, ends []int) []int {
	for i := 0; i < len(s); {
		i = l.piece(s, i)
		ends = append(ends, i)
	}
	return ends
}

func (l llama3Splitter) piece(s string, i int) int {
	if k := contraction(s, i, true); k > 0 {
		return i + k
	}
	r, n := at(s, i)
	c := classOf(r)
	if c != clsLetter && c != clsNumber && r != '\r' && r != '\n' && classAt(s, i+n) == clsLetter {
		return runOf(s, i+n, clsLetter)
	}
	switch c {
	case clsLetter:
		return runOf(s, i, clsLetter)
	case clsNumber:
		for k := 0; k < l.maxDigits && i < len(s); k++ {
			r, n := at(s, i)
			if classOf(r) != clsNumber {
				break
			}
			i += n
		}
		return i
	}
	j := i
	if r == ' ' && classAt(s, i+1) == clsOther {
		j = i + 1
	}
	if classAt(s, j) == clsOther {
		e := runOf(s, j, clsOther)
		for e < len(s) && (s[e] == '\r' || s[e] == '\n') {
			e++
		}
		return e
	}
	e := runOf(s, i, clsSpace)
	if p := strings.LastIndexAny(s[i:e], "\r\n"); p >= 0 {
		return i + p + 1
	}
	return spaceRunEnd(s, i)
}

// regexSplitter splits on the matches of a lookahead-free pattern, compiled
// with Go's regexp (leftmost-first, as a backtracking engine would match).
type regexSplitter struct{ re *regexp.Regexp }

func (x regexSplitter) split(s string, ends []int) []int {
	last := 0
	for _, m := range x.re.FindAllStringIndex(s, -1) {
		if m[0] == m[1] {
			continue
		}
		if m[0] > last {
			ends = append(ends, m[0])
		}
		ends = append(ends, m[1])
		last = m[1]
	}
	if last < len(s) {
		ends = append(ends, len(s))
	}
	return ends
}

// Known patterns with lookahead, recognised by their exact text.
var (
	gpt2Patterns = map[string]bool{
		`'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`: true,
		`'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)`:     true,
	}
	llama3Tail = `|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}%s| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	llama3Head = []string{`(?i:'s|'t|'re|'ve|'m|'ll|'d)`, `(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])`}
)

// newSplitter returns the splitter for a pre-tokenizer pattern: a hand
// scanner for the known lookahead patterns, Go's regexp for the rest.
func newSplitter(pattern string) (splitter, error) {
	if gpt2Patterns[pattern] {
		return gpt2Splitter{}, nil
	}
	for _, head := range llama3Head {
		for digits, rep := range map[int]string{1: "", 3: "{1,3}"} {
			if pattern == head+fmt.Sprintf(llama3Tail, rep) {
				return llama3Splitter{maxDigits: digits}, nil
			}
		}
	}
	if strings.Contains(pattern, "(?=") || strings.Contains(pattern, "(?!") || strings.Contains(pattern, "(?<") {
		return nil, fmt.Errorf("pre-tokenizer pattern with lookaround not supported: %q", pattern)
	}
	if cs, ok := compileClassSplitter(translateSpace(pattern)); ok {
		return cs, nil
	}
	re, err := regexp.Compile(translateSpace(pattern))
	if err != nil {
		return nil, fmt.Errorf("pre-tokenizer pattern %q: %v", pattern, err)
	}
	return regexSplitter{re: re}, nil
}

// translateSpace rewrites \s and \S to the Unicode White_Space set (Go's
// \s is ASCII only).
func translateSpace(p string) string {
	const ws = `\t\n\v\f\r \x{85}\p{Z}`
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '\\' && i+1 < len(p) {
			switch {
			case p[i+1] == 's' && inClass:
				b.WriteString(ws)
			case p[i+1] == 's':
				b.WriteString("[" + ws + "]")
			case p[i+1] == 'S' && !inClass:
				b.WriteString("[^" + ws + "]")
			default:
				b.WriteString(p[i : i+2])
			}
			i++
			continue
		}
		if c == '[' && !inClass {
			inClass = true
		} else if c == ']' && inClass {
			inClass = false
		}
		b.WriteByte(c)
	}
	return b.String()
}

// pipeline applies splitters in order.
type pipeline []splitter

// pieces calls fn for every final piece of s, in order.
func (p pipeline) pieces(s string, fn func(string)) {
	if len(s) == 0 {
		return
	}
	bufs := make([][]int, len(p)) // one scratch list of ends per step
	p.apply(s, 0, bufs, fn)
}

func (p pipeline) apply(s string, step int, bufs [][]int, fn func(string)) {
	if step == len(p) {
		fn(s)
		return
	}
	bufs[step] = p[step].split(s, bufs[step][:0])
	start := 0
	for k := 0; k < len(bufs[step]); k++ {
		e := bufs[step][k]
		if e > start {
			p.apply(s[start:e], step+1, bufs, fn)
		}
		start = e
	}
}

// ggufPreSteps gives llama.cpp's pre-tokenizer patterns for a
// tokenizer.ggml.pre value of a gpt2-type vocabulary.
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
	case "default":
		return []string{`[\p{P}\$\+<=>\^~\|]+`, gpt2, `\p{N}+`, `[0-9][0-9][0-9]`}, true
	}
	return nil, false
}

// deepseekLLMLetters is the explicit letter class of DeepSeek LLM's
// pre-tokenizer (an optional space, then a run of these letters).
const deepseekLLMLetters = `\s?[A-Za-zµÀ-ÖØ-öø-ƺƼ-ƿǄ-ʓʕ-ʯͰ-ͳͶͷͻ-ͽͿΆΈ-ΊΌΎ-ΡΣ-ϵϷ-ҁҊ-ԯԱ-ՖႠ-ჅᎠ-Ᏽᏸ-ᏽᲐ-ᲺᲽ-Ჿᴀ-ᴫᵫ-ᵷᵹ-ᶚḀ-ἕἘ-Ἕἠ-ὅὈ-Ὅὐ-ὗὙὛὝὟ-\x{1F7D}ᾀ-ᾴᾶ-ᾼ\x{1FBE}ῂ-ῄῆ-ῌῐ-\x{1FD3}ῖ-\x{1FDB}ῠ-Ῥῲ-ῴῶ-ῼℂℇℊ-ℓℕℙ-ℝℤ\x{2126}ℨ\x{212A}-ℭℯ-ℴℹℼ-ℿⅅ-ⅉⅎↃↄⰀ-ⱻⱾ-ⳤⳫ-ⳮⳲⳳꙀ-ꙭꚀ-ꚛꜢ-ꝯꝱ-ꞇꞋ-ꞎꭰ-ꮿﬀ-ﬆﬓ-ﬗＡ-Ｚａ-ｚ𐐀-𐑏𐒰-𐓓𐓘-𐓻𐲀-𐲲𐳀-𐳲𑢠-𑣟𞤀-𞥃]+`
