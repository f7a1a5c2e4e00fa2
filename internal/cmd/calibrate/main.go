// Command calibrate checks compare's verdicts by simulation (make
// calibrate): it runs the A/A and A/B scenarios of compare/calibrate
// through the real result and records files and the real comparison, and
// prints the calibration tables as markdown on stdout. Progress goes to
// stderr.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"time"

	"github.com/servecmp/servecmp/compare/calibrate"
)

func main() {
	n := flag.Int("n", 400, "comparisons per scenario")
	seed := flag.Uint64("seed", 20, "simulation seed")
	resamples := flag.Int("resamples", 0, "compare's --resamples (0: its default)")
	only := flag.String("only", "", "run only the scenarios whose name contains this")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *n, *seed, *resamples, *only); err != nil {
		fmt.Fprintln(os.Stderr, "calibrate:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, n int, seed uint64, resamples int, only string) error {
	dir, err := os.MkdirTemp("", "servecmp-calibrate-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	o := calibrate.Options{Dir: dir, Seed: seed, Resamples: resamples}
	aa, err := simulate(ctx, calibrate.AAScenarios(n), o, only)
	if err != nil {
		return err
	}
	ab, err := simulate(ctx, calibrate.ABScenarios(n), o, only)
	if err != nil {
		return err
	}
	fmt.Printf("## A/A: two identical systems (%d comparisons per scenario, alpha 0.05)\n\n", n)
	calibrate.WriteAA(os.Stdout, aa)
	fmt.Printf("\n## A/B: B's TTFT longer, decode speed unchanged\n\n")
	calibrate.WriteAB(os.Stdout, ab)
	fmt.Println()
	for _, t := range aa {
		if t.Scenario.Name == "A/A 3 runs interleaved 20%" {
			calibrate.WriteRows(os.Stdout, t)
		}
	}
	return followUp(ctx, ab, o)
}

// followUp reruns the "needs more runs" recommendations of the A/B
// scenarios with 3 runs and 20% spread, with the runs they ask for.
func followUp(ctx context.Context, ab []*calibrate.Tally, o calibrate.Options) error {
	fmt.Printf("## Needs more runs (N): %s rows rerun with N runs per side, B's TTFT off by the target\n\n", calibrate.FollowRow)
	fmt.Println("| scenario | recommendations | rerun | found % |")
	fmt.Println("|---|---|---|---|")
	for _, t := range ab {
		w := t.Scenario.World
		if w.Runs != 3 || w.Spread != 0.20 || len(t.NeedMore) == 0 {
			continue
		}
		order := calibrate.OrderInterleaved
		if t.Scenario.World.Order[1] == "a" {
			order = calibrate.OrderBlocked
		}
		o.Seed += 104729
		found, total, err := calibrate.FollowUp(ctx, w, order, t.NeedMore, o, 100)
		if err != nil {
			return err
		}
		fmt.Printf("| %s | %d | %d | %s |\n", t.Scenario.Name, len(t.NeedMore), total, pct(calibrate.Rate(found, total)))
	}
	return nil
}

func pct(v float64) string { return fmt.Sprintf("%.1f", 100*v) }

func simulate(ctx context.Context, ss []calibrate.Scenario, o calibrate.Options, only string) ([]*calibrate.Tally, error) {
	var out []*calibrate.Tally
	for i, s := range ss {
		if only != "" && !contains(s.Name, only) {
			continue
		}
		start := time.Now()
		o.Seed += uint64(i) * 7919
		t, err := calibrate.Simulate(ctx, s, o)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.Name, err)
		}
		fmt.Fprintf(os.Stderr, "%s: %d comparisons, %d claims, %.0f s\n", s.Name, t.N, t.Claimed(), time.Since(start).Seconds())
		out = append(out, t)
	}
	return out, nil
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}
