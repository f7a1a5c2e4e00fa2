package benchmark

import (
	"math"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/benchmark/workload"
)

func TestSharedPrefixShare(t *testing.T) {
	ids := func(prefix, n, seed int) workload.Request {
		var p []int
		for i := range prefix {
			p = append(p, 100+i)
		}
		for i := range n {
			p = append(p, 1000*seed+i)
		}
		return workload.Request{PromptTokens: p}
	}
	var distinct, prefixed []workload.Request
	for i := range 8 {
		distinct = append(distinct, ids(0, 16, i+1))
		prefixed = append(prefixed, ids(48, 16, i+1)) // 48 of every 64 tokens shared
	}
	text := []workload.Request{{Prompt: "shared system text. question one"}, {Prompt: "shared system text. second"}}
	for _, tc := range []struct {
		name string
		reqs []workload.Request
		want float64
	}{
		{"one request", distinct[:1], 0},
		{"distinct prompts", distinct, 0},
		{"a shared prefix of 48 tokens", prefixed, 48.0 / 64},
		{"the same prompt twice", []workload.Request{ids(0, 10, 1), ids(0, 10, 1)}, 1},
		{"text prompts", text, float64(2*len("shared system text. ")) / float64(len(text[0].Prompt)+len(text[1].Prompt)+2)},
		{"multi-turn sessions", []workload.Request{{Session: "s", Messages: []workload.Message{{Role: "user", Content: "x"}}}}, 1},
	} {
		if got := sharedPrefixShare(tc.reqs); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestWarmCacheWarning(t *testing.T) {
	for _, tc := range []struct {
		hit, self float64
		reset     bool
		warns     bool
	}{
		{0.875, 0, false, true},    // runs after a sweep that sent the same prompts
		{0.875, 0, true, false},    // reset: a cold start each time, whatever hits follow
		{0.70, 0.75, false, false}, // --prefix-len: the workload's own prefix
		{0.78, 0.75, false, false}, // within the margin
		{0.90, 0.75, false, true},  // more than the prefix explains
	} {
		w := warmCacheWarning(tc.hit, tc.self, tc.reset)
		if (w != "") != tc.warns || (w != "" && (!strings.Contains(w, "cached before this run began") || strings.Contains(w, "incomparable"))) {
			t.Errorf("hit %v self %v reset %v: %q", tc.hit, tc.self, tc.reset, w)
		}
	}
}
