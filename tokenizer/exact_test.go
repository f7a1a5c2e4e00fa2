package tokenizer

import (
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestExactTextReferences(t *testing.T) {
	needTestdata(t)
	count := 1000
	if testing.Short() {
		count = 100
	}
	for _, name := range []string{"llama3", "qwen2.5"} {
		tok := mustLoad(t, filepath.Join(testdataDir, "hf", name, "tokenizer.json"))
		rng := rand.New(rand.NewPCG(1, uint64(len(name))))
		src := DefaultCorpus()
		start := time.Now()
		for i := 0; i < count; i++ {
			n := 128 + rng.IntN(4096-128+1)
			s, err := ExactText(tok, n, src, rng)
			if err != nil {
				t.Fatalf("%s: prompt %d: %v", name, i, err)
			}
			if got := tok.Count(s); got != n {
				t.Fatalf("%s: prompt %d: asked %d tokens, text has %d", name, i, n, got)
			}
		}
		t.Logf("%s: %d exact prompts of 128..4096 tokens in %v", name, count, time.Since(start).Round(time.Millisecond))
	}
}

func TestExactTextAllKinds(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	src := DefaultCorpus()
	for _, path := range tokenizerFiles(t) {
		tok := mustLoad(t, path)
		for _, n := range []int{1, 2, 3, 17, 128, 1000} {
			s, err := ExactText(tok, n, src, rng)
			if err != nil {
				t.Fatalf("%s n=%d: %v", path, n, err)
			}
			if got := tok.Count(s); got != n {
				t.Errorf("%s: asked %d tokens, text %q has %d", path, n, s, got)
			}
		}
	}
}

func TestExactTextAfterSharedPrefix(t *testing.T) {
	needTestdata(t)
	tok := mustLoad(t, filepath.Join(testdataDir, "hf", "llama3", "tokenizer.json"))
	rng := rand.New(rand.NewPCG(3, 4))
	src := DefaultCorpus()
	prefix, err := ExactText(tok, 200, src, rng)
	if err != nil {
		t.Fatal(err)
	}
	prefix += "\n\n"
	for _, n := range []int{203, 300, 1024} {
		s, err := ExactTextAfter(tok, prefix, n, src, rng)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(s, prefix) {
			t.Errorf("n=%d: the result does not start with the prefix", n)
		}
		if got := tok.Count(s); got != n {
			t.Errorf("n=%d: got %d tokens", n, got)
		}
	}
	if _, err := ExactTextAfter(tok, prefix, 10, src, rng); err == nil {
		t.Error("a length below the prefix's own count was accepted")
	}
	if s, err := ExactTextAfter(tok, prefix, tok.Count(prefix), src, rng); err != nil || s != prefix {
		t.Errorf("n equal to the prefix count: %q, %v", s, err)
	}
}

func TestCorpus(t *testing.T) {
	if _, err := NewCorpus(" \n\t "); err == nil {
		t.Error("an empty corpus was accepted")
	}
	c, err := NewCorpus("alpha beta\n\ngamma")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20; i++ {
		s := c.Text(rng, 40)
		if len(s) < 40 {
			t.Fatalf("window %q shorter than asked", s)
		}
		if !strings.HasPrefix(s, "alpha ") && !strings.HasPrefix(s, "beta ") && !strings.HasPrefix(s, "gamma ") {
			t.Fatalf("window %q does not start at a word", s)
		}
	}
}
