package workload

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestParseShard(t *testing.T) {
	tests := []struct {
		in   string
		i, n int
		err  string
	}{
		{"0/1", 0, 1, ""},
		{" 3/4 ", 3, 4, ""},
		{"4/4", 0, 0, "i must be 0 to N-1 (3)"},
		{"-1/4", 0, 0, "i must be"},
		{"0/0", 0, 0, "N must be 1 to 4096"},
		{"0/5000", 0, 0, "N must be 1 to 4096"},
		{"1", 0, 0, "want i/N"},
		{"a/b", 0, 0, "whole numbers"},
		{"1/2/3", 0, 0, "whole numbers"},
	}
	for _, tt := range tests {
		i, n, err := ParseShard(tt.in)
		switch {
		case tt.err == "" && (err != nil || i != tt.i || n != tt.n):
			t.Errorf("ParseShard(%q) = %d, %d, %v; want %d, %d", tt.in, i, n, err, tt.i, tt.n)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("ParseShard(%q) error %v, want %q", tt.in, err, tt.err)
		}
	}
}

// sessionWorkload is n units in random order: single requests and
// sessions of 2 to 6 turns whose turns interleave with other units.
func sessionWorkload(rng *rand.Rand, n int) []Request {
	var reqs []Request
	open := map[string]int{} // session -> turns left
	next := map[string]int{}
	for u := 0; u < n || len(open) > 0; {
		if u < n && (len(open) == 0 || rng.IntN(2) == 0) {
			if rng.IntN(3) == 0 {
				name := fmt.Sprintf("s%d", u)
				open[name] = 2 + rng.IntN(5)
			} else {
				reqs = append(reqs, Request{ID: fmt.Sprintf("r%d", u), Prompt: "x", MaxTokens: 1})
			}
			u++
		}
		if len(open) > 0 { // one turn of an open session, drawn by rng
			names := slices.Sorted(maps.Keys(open))
			name := names[rng.IntN(len(names))]
			reqs = append(reqs, Request{ID: fmt.Sprintf("%s-t%d", name, next[name]), Messages: []Message{{Role: "user", Content: "x"}},
				MaxTokens: 1, Session: name, Turn: next[name]})
			next[name]++
			if open[name]--; open[name] == 0 {
				delete(open, name)
			}
		}
	}
	return reqs
}

// TestShardSplit: for many workloads and shard counts, the shards are
// disjoint, cover the workload, keep every session whole in one shard,
// keep workload order, and balance requests to within one session.
func TestShardSplit(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for trial := range 20 {
		reqs := sessionWorkload(rng, 10+rng.IntN(60))
		if err := Validate(reqs); err != nil {
			t.Fatalf("trial %d: the generated workload is invalid: %v", trial, err)
		}
		longest := 1
		for _, u := range Units(reqs) {
			longest = max(longest, len(u))
		}
		for n := 1; n <= 7; n++ {
			checkSplit(t, reqs, n, longest)
		}
	}
}

func checkSplit(t *testing.T, reqs []Request, n, longest int) {
	t.Helper()
	owner := make([]int, len(reqs))
	for i := range owner {
		owner[i] = -1
	}
	lo, hi := len(reqs), 0
	for s := range n {
		idx, err := Shard(reqs, s, n)
		if err != nil {
			t.Fatalf("shard %d/%d: %v", s, n, err)
		}
		if !slices.IsSorted(idx) {
			t.Errorf("shard %d/%d is not in workload order: %v", s, n, idx)
		}
		for _, i := range idx {
			if owner[i] != -1 {
				t.Fatalf("request %d is in shards %d and %d of %d", i, owner[i], s, n)
			}
			owner[i] = s
		}
		lo, hi = min(lo, len(idx)), max(hi, len(idx))
	}
	session := map[string]int{}
	for i, s := range owner {
		if s == -1 {
			t.Fatalf("request %d is in no shard of %d", i, n)
		}
		if name := reqs[i].Session; name != "" {
			if first, ok := session[name]; ok && first != s {
				t.Fatalf("session %s is split between shards %d and %d of %d", name, first, s, n)
			}
			session[name] = s
		}
	}
	if hi-lo > longest {
		t.Errorf("%d shards hold %d to %d requests: more apart than the longest session (%d)", n, lo, hi, longest)
	}
}

// TestShardRoundRobin: single requests go round-robin, request k to
// shard k mod N, which is what the docs promise.
func TestShardRoundRobin(t *testing.T) {
	reqs := make([]Request, 10)
	for i := range reqs {
		reqs[i] = Request{ID: fmt.Sprint(i), Prompt: "x", MaxTokens: 1}
	}
	for s := range 3 {
		idx, err := Shard(reqs, s, 3)
		if err != nil {
			t.Fatal(err)
		}
		for _, i := range idx {
			if i%3 != s {
				t.Errorf("request %d in shard %d of 3, want %d", i, s, i%3)
			}
		}
	}
	if _, err := Shard(reqs, 0, 11); err == nil || !strings.Contains(err.Error(), "at most 10 shards") {
		t.Errorf("11 shards of 10 requests: %v", err)
	}
}

// FuzzParseShard: any text gives a shard within bounds or an error.
func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"0/1", "3/4", "4/4", "-1/2", "1/0", "a/b", "9999999999999999999/1", " 2/3 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		i, n, err := ParseShard(s)
		if err == nil && (n < 1 || n > MaxShards || i < 0 || i >= n) {
			t.Fatalf("ParseShard(%q) = %d/%d without an error", s, i, n)
		}
	})
}
