package experiment

import (
	"slices"
	"strings"
	"testing"
)

func parse(t *testing.T, src string) *Experiment {
	t.Helper()
	e, err := Parse("exp.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func names(steps []Step) []string {
	out := make([]string, len(steps))
	for i, s := range steps {
		out[i] = s.Name
	}
	return out
}

const planSrc = `a: {url: "http://127.0.0.1:8001", model: m, engine: vllm}
b:
  launch: "servecmp serve-sim --addr 127.0.0.1:8002 --model m --max-running 32"
  url: "http://127.0.0.1:8002"
  model: m
workload: {random: {num: 64, input_len: 128, output_len: 32, seed: 1}}
check: {requests: 8}
sweep: {concurrency: [1, 4, 16]}
runs: {count: 3, concurrency: 16}
slo: {ttft_ms: "p99<=500", tpot_ms: "p99<=50"}
`

func TestPlanOrder(t *testing.T) {
	for _, tc := range []struct {
		name, from, to string
		want           string
	}{
		{"interleaved by default", "", "",
			"check sweep-a sweep-b run-a-1 run-b-1 run-b-2 run-a-2 run-a-3 run-b-3 report"},
		{"blocked", "concurrency: 16}", "concurrency: 16, order: blocked}",
			"check sweep-a sweep-b run-a-1 run-a-2 run-a-3 run-b-1 run-b-2 run-b-3 report"},
		{"no sweep, with a profile", "sweep: {concurrency: [1, 4, 16]}", "profile: {for: 5s}",
			"check run-a-1 run-b-1 run-b-2 run-a-2 run-a-3 run-b-3 profile-a profile-b analyze-a analyze-b report"},
		{"one run", "count: 3", "count: 1", "check sweep-a sweep-b run-a-1 run-b-1 report"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan := Plan(parse(t, strings.Replace(planSrc, tc.from, tc.to, 1)), "wl")
			if got := strings.Join(names(plan), " "); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
			keys := map[string]bool{}
			for _, s := range plan {
				if len(s.Key) != 64 || keys[s.Key] {
					t.Errorf("step %s: key %q missing or shared", s.Name, s.Key)
				}
				keys[s.Key] = true
			}
			last := plan[len(plan)-1]
			if len(last.Deps) != len(plan)-1 {
				t.Errorf("report depends on %v", last.Deps)
			}
		})
	}
}

// changed lists the steps whose key differs between two plans (steps
// present in only one count as changed).
func changed(a, b []Step) []string {
	ka := map[string]string{}
	for _, s := range a {
		ka[s.Name] = s.Key
	}
	var out []string
	for _, s := range b {
		if ka[s.Name] != s.Key {
			out = append(out, s.Name)
		}
	}
	return out
}

func TestPlanKeys(t *testing.T) {
	before := Plan(parse(t, planSrc), "wl")
	for _, tc := range []struct {
		name, from, to string
		wl             string
		want           string
	}{
		{"same file", "", "", "wl", ""},
		{"formatting and comments", "runs: {count: 3, concurrency: 16}", "# the measured runs\nruns:\n  concurrency: 16\n  count: 3", "wl", ""},
		{"defaults written out", "runs: {count: 3, concurrency: 16}", "runs: {count: 3, concurrency: 16, order: interleaved}", "wl", ""},
		{"launch timing", "launch: \"servecmp", "launch:\n    grace: 1s\n    ready_timeout: 1m\n    command: \"servecmp", "wl", ""},
		{"runs.concurrency", "concurrency: 16}", "concurrency: 8}", "wl",
			"run-a-1 run-b-1 run-b-2 run-a-2 run-a-3 run-b-3 report"},
		{"runs.count raised", "count: 3", "count: 4", "wl", "run-b-4 run-a-4 report"},
		{"runs.order", "concurrency: 16}", "concurrency: 16, order: blocked}", "wl",
			"run-a-1 run-a-2 run-a-3 run-b-1 run-b-2 run-b-3 report"},
		{"slo", "p99<=500", "p99<=400", "wl", "report"},
		{"alpha", "slo:", "alpha: 0.1\nslo:", "wl", "report"},
		{"sweep", "[1, 4, 16]", "[1, 4, 16, 32]", "wl", "sweep-a sweep-b report"},
		{"engine b", "--max-running 32", "--max-running 8", "wl",
			"check sweep-b run-b-1 run-b-2 run-b-3 report"},
		{"engine a manifest", "engine: vllm}", "engine: vllm, gpu_type: H100}", "wl",
			"check sweep-a run-a-1 run-a-2 run-a-3 report"},
		{"check", "requests: 8", "requests: 16", "wl", "check report"},
		{"workload", "", "", "other",
			"check sweep-a sweep-b run-a-1 run-b-1 run-b-2 run-a-2 run-a-3 run-b-3 report"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			after := Plan(parse(t, strings.Replace(planSrc, tc.from, tc.to, 1)), tc.wl)
			if got := strings.Join(changed(before, after), " "); got != tc.want {
				t.Errorf("changed: %q\nwant     %q", got, tc.want)
			}
		})
	}
}

func TestRunOrderCounts(t *testing.T) {
	for _, order := range []string{OrderInterleaved, OrderBlocked} {
		runs := runOrder(Runs{Count: 4, Order: order})
		if len(runs) != 8 {
			t.Fatalf("%s: %d runs", order, len(runs))
		}
		for _, side := range []string{"a", "b"} {
			var idx []int
			for _, r := range runs {
				if r.side == side {
					idx = append(idx, r.i)
				}
			}
			if !slices.Equal(idx, []int{1, 2, 3, 4}) {
				t.Errorf("%s: side %s runs %v", order, side, idx)
			}
		}
	}
}

// TestRunOrderCounterbalanced: interleaved pairs alternate which side
// starts (A B, B A, A B, …), so that a drift over time favours neither.
func TestRunOrderCounterbalanced(t *testing.T) {
	got := strings.Join(RunSides(Runs{Count: 4, Order: OrderInterleaved}), " ")
	if want := "a b b a a b b a"; got != want {
		t.Errorf("interleaved sides %q, want %q", got, want)
	}
	got = strings.Join(RunSides(Runs{Count: 2, Order: OrderBlocked}), " ")
	if want := "a a b b"; got != want {
		t.Errorf("blocked sides %q, want %q", got, want)
	}
}
