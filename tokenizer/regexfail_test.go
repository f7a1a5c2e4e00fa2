package tokenizer

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// splitDoc is a byte-level tokenizer.json whose only pre-tokenizer is a
// Split on pattern.
func splitDoc(pattern string) map[string]any {
	vocab := map[string]int{}
	for b := 0; b < 256; b++ {
		vocab[string(byteToRune[b])] = b
	}
	return map[string]any{
		"pre_tokenizer": map[string]any{"type": "Sequence", "pretokenizers": []any{
			map[string]any{"type": "Split", "pattern": map[string]any{"Regex": pattern}, "behavior": "Isolated"},
			map[string]any{"type": "ByteLevel", "add_prefix_space": false, "use_regex": false},
		}},
		"model": map[string]any{"type": "BPE", "vocab": vocab, "merges": []any{}},
	}
}

// TestLoadRefusesPathologicalRegex: a pattern that backtracks
// exponentially on a probe text (a long run of "a") is refused at load,
// naming the file and the pattern.
func TestLoadRefusesPathologicalRegex(t *testing.T) {
	for _, p := range []string{`(?:a|aa)+b|.`, `(?<=^|\s)(?:a|aa)+b|.`} {
		path := writeJSONDoc(t, "bad", splitDoc(p))
		start := time.Now()
		_, err := Load(path)
		if err == nil {
			t.Fatalf("%q: loaded", p)
		}
		msg := err.Error()
		if !strings.Contains(msg, path) || !strings.Contains(msg, fmt.Sprintf("%q", p)) || !strings.Contains(msg, "probe") || strings.Contains(msg, "\n") {
			t.Errorf("%q: error %q does not name the file, the pattern and the probe on one line", p, msg)
		}
		if d := time.Since(start); d > probeBudget+30*time.Second {
			t.Errorf("%q: refusing took %v", p, d)
		}
	}
}

// TestEncodeRegexFailure: a pattern that passes the probes but exceeds
// the bounds on one text fails that encode with the file and pattern
// named; Encode keeps the text (the piece unsplit) and Err reports it,
// and ExactText refuses to cut prompts with the tokenizer.
func TestEncodeRegexFailure(t *testing.T) {
	saved := regexTimeout
	regexTimeout = 200 * time.Millisecond
	defer func() { regexTimeout = saved }()
	const pattern = `(?:x|xx)+y|.`
	path := writeJSONDoc(t, "rare", splitDoc(pattern))
	tok, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if ids, err := tok.EncodeChecked("plain text, fine"); err != nil || tok.Decode(ids) != "plain text, fine" || tok.Err() != nil {
		t.Fatalf("ordinary text: %v, %v", err, tok.Err())
	}
	text := "ok " + strings.Repeat("x", 40)
	before := RegexFailures()
	_, err = tok.EncodeChecked(text)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), fmt.Sprintf("%q", pattern)) {
		t.Fatalf("EncodeChecked error %v, want one naming %s and %q", err, filepath.Base(path), pattern)
	}
	if RegexFailures() == before {
		t.Error("RegexFailures did not count the failure")
	}
	if got := tok.Decode(tok.Encode(text)); got != text {
		t.Errorf("Encode dropped text: %q", got)
	}
	if tok.Err() == nil {
		t.Error("Err is nil after a failure")
	}
	if _, err := ExactText(tok, 5, DefaultCorpus(), rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Error("ExactText ignored the tokenizer's failure")
	}
}

// TestConcurrentEncodeEngine: the pooled state of the regex engine, the
// split steps and the Precompiled normalizer is safe under concurrent
// encodes (run with -race): four goroutines get the ids of one.
func TestConcurrentEncodeEngine(t *testing.T) {
	doc := splitDoc(deepseekV3Steps[2])
	doc["normalizer"] = map[string]any{"type": "Precompiled",
		"precompiled_charsmap": base64.StdEncoding.EncodeToString(buildCharsmap(map[string]string{"Ａ": "A", "ﬁ": "fi"}))}
	tok, err := Load(writeJSONDoc(t, "engine", doc))
	if err != nil {
		t.Fatal(err)
	}
	texts := hostileCorpus()
	want := make([][]int, len(texts))
	for i, s := range texts {
		want[i] = tok.Encode(s)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 4)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for k := range texts {
				i := (k + g*97) % len(texts)
				if got := tok.Encode(texts[i]); !slices.Equal(got, want[i]) {
					errs <- fmt.Sprintf("goroutine %d, text %q: %v, want %v", g, texts[i], got, want[i])
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
