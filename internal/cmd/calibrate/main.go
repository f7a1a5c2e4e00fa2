// Command calibrate checks compare's verdicts by simulation (make
// calibrate): it runs the A/A and A/B scenarios of internal/testkit/calibrate
// through the real result and records files and the real comparison, and
// prints the calibration tables as markdown on stdout, a line as each
// scenario ends. Progress goes to stderr.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/servecmp/servecmp/internal/testkit/calibrate"
)

func main() {
	n := flag.Int("n", 400, "comparisons per scenario")
	seed := flag.Uint64("seed", 20, "simulation seed")
	resamples := flag.Int("resamples", 0, "compare's --resamples (0: its default)")
	only := flag.String("only", "", "run only the scenarios whose name contains one of these comma-separated parts")
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
	fmt.Printf("## A/A: two identical systems (alpha 0.05, %d requests a run)\n\n", calibrate.Requests)
	calibrate.AAHeader(os.Stdout)
	aa, err := simulate(ctx, calibrate.AAScenarios(n), o, only, calibrate.AARow)
	if err != nil {
		return err
	}
	fmt.Printf("\n## A/B: B's TTFT longer, decode speed unchanged\n\n")
	calibrate.ABHeader(os.Stdout)
	ab, err := simulate(ctx, calibrate.ABScenarios(n), o, only, calibrate.ABRow)
	if err != nil {
		return err
	}
	fmt.Printf("\n## Done when (issue 20): the worst scenario of each condition, within three binomial standard errors\n\n")
	calibrate.WriteChecks(os.Stdout, calibrate.Checks(aa, ab))
	fmt.Println()
	for _, t := range aa {
		if t.Scenario.Name == "A/A 3 runs interleaved 20%" {
			calibrate.WriteRows(os.Stdout, t)
		}
	}
	return followUp(ctx, ab, o)
}

// simulate runs the scenarios whose name matches only and writes each
// one's line with row as soon as it ends.
func simulate(ctx context.Context, ss []calibrate.Scenario, o calibrate.Options, only string, row func(io.Writer, *calibrate.Tally)) ([]*calibrate.Tally, error) {
	var out []*calibrate.Tally
	for i, s := range ss {
		if !matches(s.Name, only) {
			continue
		}
		start := time.Now()
		so := o
		so.Seed = o.Seed + uint64(i)*7919 // a scenario's draws do not depend on the others run
		t, err := calibrate.Simulate(ctx, s, so)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.Name, err)
		}
		fmt.Fprintf(os.Stderr, "%s: %d comparisons, %d claims, %.0f s\n", s.Name, t.N, t.Claimed(), time.Since(start).Seconds())
		row(os.Stdout, t)
		out = append(out, t)
	}
	return out, nil
}

// matches reports whether name contains one of the comma-separated parts
// of only (every name matches an empty only).
func matches(name, only string) bool {
	if only == "" {
		return true
	}
	for _, part := range strings.Split(only, ",") {
		if part != "" && strings.Contains(name, part) {
			return true
		}
	}
	return false
}

// followUp reruns the "needs more runs" recommendations of the A/B
// scenarios with 3 runs and 20% spread, with the runs they ask for.
func followUp(ctx context.Context, ab []*calibrate.Tally, o calibrate.Options) error {
	fmt.Printf("## Needs more runs (N): %s rows rerun with N runs per side, B's TTFT off by the target\n\n", calibrate.FollowRow)
	fmt.Println("| scenario | recommendations | rerun | found % | mean N |")
	fmt.Println("|---|---|---|---|---|")
	for _, t := range ab {
		w := t.Scenario.World
		if w.Runs != 3 || w.Spread != 0.20 || len(t.NeedMore) == 0 {
			continue
		}
		order := calibrate.OrderInterleaved
		if w.Order[1] == "a" {
			order = calibrate.OrderBlocked
		}
		o.Seed += 104729
		found, total, err := calibrate.FollowUp(ctx, w, order, t.NeedMore, o, 100)
		if err != nil {
			return err
		}
		var runs int
		for _, nd := range t.NeedMore[:total] {
			runs += nd.Runs
		}
		fmt.Printf("| %s | %d | %d | %.1f | %.1f |\n", t.Scenario.Name, len(t.NeedMore), total, 100*calibrate.Rate(found, total), calibrate.Rate(runs, total))
	}
	return nil
}
