package stats

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// This file makes verdicts that hold across runs. The unit of evidence is
// the run, not the request: requests of one run share its warm-up, cache
// state, clocks and background load, so they are not independent, and a
// test that pools them counts the same run effect hundreds of times (see
// RUNS.md). A difference is called only when
//
//   - a t-test on per-run values (Welch's; a paired t-test for interleaved
//     pairs) has p < alpha,
//   - the permutation test over run labels (sign flips for pairs) has
//     p < alpha too, wherever it can reach alpha at all,
//   - the confidence interval of B−A excludes 0 on the same side (for
//     per-request values: the hierarchical bootstrap's), and
//   - the per-run values barely overlap: at most MaxOverlap of the run
//     pairs (a, b) point the other way.
//
// A difference that is not called is "needs more runs" when the runs could
// not have detected one of Threshold·|A| (the MDD, power.go), else "~".

// Call is the verdict on B against A.
type Call int

const (
	// NotSignificant ("~"): no difference was found, and the runs were
	// enough to detect one of the threshold size.
	NotSignificant Call = iota
	// Higher: B is higher than A, significantly.
	Higher
	// Lower: B is lower than A, significantly.
	Lower
	// NeedsMoreRuns: no difference was found, but the run-to-run spread
	// is too large, for the runs at hand, to detect one of the threshold
	// size; Verdict.Recommended says how many runs would.
	NeedsMoreRuns
)

// String returns "~", "higher", "lower" or "needs more runs".
func (c Call) String() string {
	switch c {
	case Higher:
		return "higher"
	case Lower:
		return "lower"
	case NeedsMoreRuns:
		return "needs more runs"
	}
	return "~"
}

// Significant reports whether the call is Higher or Lower.
func (c Call) Significant() bool { return c == Higher || c == Lower }

// RunOptions tunes the run-aware comparisons. The zero value asks for the
// defaults; a zero field takes its default.
type RunOptions struct {
	Alpha     float64 // test level; default 0.05
	Power     float64 // power the MDD is computed for; default 0.8
	Threshold float64 // smallest difference worth detecting, a fraction of A's mean; default 0.10
	MaxRuns   int     // cap of the recommended runs per side; default 50
	// MaxOverlap is the largest share of run pairs (a, b) allowed to point
	// against the difference for it to be called; default 0.25, so that B's
	// runs beat A's in at least three pairs out of four.
	MaxOverlap float64
	Resamples  int // hierarchical bootstrap resamples; default 2000
	// Permutations is the number of random relabellings when exact
	// enumeration would exceed it; default 20000.
	Permutations int
	Seed         uint64 // seeds every resampling; equal seeds, equal results
	// Paired says the runs ran in interleaved pairs, a[i] next to b[i]
	// (see DetectDesign); both sides then need the same number of runs.
	Paired bool
	// Stats are the statistics CompareRequests compares; default Mean,
	// 0.5, 0.9, 0.99.
	Stats []Stat
	// Context, when non-nil, stops the resampling loops once it is
	// cancelled; the comparison then returns its error.
	Context context.Context
}

func (o RunOptions) withDefaults() RunOptions {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&o.Alpha, 0.05)
	def(&o.Power, 0.8)
	def(&o.Threshold, 0.10)
	def(&o.MaxOverlap, 0.25)
	if o.MaxRuns == 0 {
		o.MaxRuns = 50
	}
	if o.Resamples == 0 {
		o.Resamples = 2000
	}
	if o.Permutations == 0 {
		o.Permutations = 20000
	}
	if len(o.Stats) == 0 {
		o.Stats = []Stat{Mean, 0.5, 0.9, 0.99}
	}
	return o
}

func (o RunOptions) check() error {
	switch {
	case !(o.Alpha > 0 && o.Alpha < 1):
		return fmt.Errorf("stats: alpha %v outside (0, 1)", o.Alpha)
	case !(o.Power > 0 && o.Power < 1):
		return fmt.Errorf("stats: power %v outside (0, 1)", o.Power)
	case !(o.Threshold > 0):
		return fmt.Errorf("stats: threshold %v not positive", o.Threshold)
	case o.MaxRuns < 2:
		return fmt.Errorf("stats: max runs %d below 2", o.MaxRuns)
	case !(o.MaxOverlap > 0 && o.MaxOverlap <= 1):
		return fmt.Errorf("stats: max overlap %v outside (0, 1]", o.MaxOverlap)
	case o.Resamples < 1 || o.Permutations < 1:
		return errors.New("stats: resamples and permutations must be positive")
	}
	for _, s := range o.Stats {
		if s != Mean && !(s >= 0 && s <= 1) {
			return fmt.Errorf("stats: statistic %v is neither Mean nor a quantile in [0, 1]", float64(s))
		}
	}
	return nil
}

// Evidence is what the per-run values say about B−A.
type Evidence struct {
	// PerRunA and PerRunB hold one value per run, pairs in the same
	// order when paired (CompareRuns keeps the caller's slices).
	PerRunA, PerRunB []float64
	MeanA, MeanB     float64 // means of the per-run values
	SDA, SDB         float64 // their sample standard deviations; 0 with one run
	// Diff is MeanB−MeanA (the mean per-pair difference when paired).
	Diff float64
	// Method is "welch-t" or "paired-t"; P, DF, Low and High are its
	// two-sided p-value, degrees of freedom and interval of Diff at level
	// 1−alpha, NaN with fewer than two runs on a side.
	Method         string
	P, DF          float64
	Low, High      float64
	PermP, PermMin float64 // permutation test p and the smallest p it can reach
	// Overlap is the share of run pairs (a_i, b_j), or of pairs (a_i, b_i)
	// when paired, whose order is against Diff's sign; ties count one half.
	Overlap float64
	Power   Power
}

// Verdict is the call with its reason in one line.
type Verdict struct {
	Call Call
	// Recommended is the number of runs per side (pairs when paired) to
	// aim for when Call is NeedsMoreRuns, else 0. It is RunOptions.MaxRuns
	// when even that many would not do (Evidence.Power.Capped); the reason
	// then says to reduce the spread instead.
	Recommended int
	Reason      string
}

// RunComparison compares per-run scalars (a throughput, a completion time).
type RunComparison struct {
	Evidence
	Verdict
}

// CompareRuns compares one value per run of A and of B (for example each
// run's output throughput) and makes the run-aware verdict. Each side needs
// one run at least; with fewer than two on a side no test runs and the call
// is NeedsMoreRuns.
func CompareRuns(a, b []float64, o RunOptions) (RunComparison, error) {
	o = o.withDefaults()
	if err := checkRuns(a, b, o); err != nil {
		return RunComparison{}, err
	}
	ev := runEvidence(a, b, o)
	return RunComparison{Evidence: ev, Verdict: decide(&ev, nil, o)}, nil
}

func checkRuns(a, b []float64, o RunOptions) error {
	if err := o.check(); err != nil {
		return err
	}
	if len(a) == 0 || len(b) == 0 {
		return ErrTooFew
	}
	if o.Paired && len(a) != len(b) {
		return fmt.Errorf("stats: paired runs need as many runs of A as of B, got %d and %d", len(a), len(b))
	}
	for _, v := range append(a[:len(a):len(a)], b...) {
		if math.IsNaN(v) {
			return errors.New("stats: NaN in per-run values")
		}
	}
	return nil
}

// runEvidence computes the per-run tests and the power of the design.
func runEvidence(a, b []float64, o RunOptions) Evidence {
	ev := Evidence{PerRunA: a, PerRunB: b, P: math.NaN(), DF: math.NaN(), Low: math.NaN(), High: math.NaN()}
	ev.MeanA, ev.SDA = MeanSD(a)
	ev.MeanB, ev.SDB = MeanSD(b)
	if o.Paired {
		pt, err := PairedT(a, b, o.Alpha, o.Permutations, o.Seed)
		ev.Method, ev.Diff = "paired-t", pt.MeanDiff
		ev.PermP, ev.PermMin = pt.FlipP, pt.FlipMin
		if err == nil {
			ev.P, ev.DF, ev.Low, ev.High = pt.P, pt.DF, pt.CILow, pt.CIHigh
		}
		ev.Overlap = pairOverlap(a, b, ev.Diff)
		ev.Power = pairedPower(&ev, pt.SDDiff, o)
		return ev
	}
	ev.Method, ev.Diff = "welch-t", ev.MeanB-ev.MeanA
	if w, err := WelchT(a, b, o.Alpha); err == nil {
		ev.P, ev.DF, ev.Low, ev.High = w.P, w.DF, w.CILow, w.CIHigh
	}
	ev.PermP, ev.PermMin = PermutationRuns(a, b, o.Permutations, o.Seed)
	ev.Overlap = runOverlap(a, b, ev.Diff)
	ev.Power = unpairedPower(&ev, o)
	return ev
}

// decide applies the verdict rule. boot, when not nil, is the interval of
// B−A that must exclude 0 (the hierarchical bootstrap's); without it the
// t interval of the evidence serves.
func decide(ev *Evidence, boot *Interval, o RunOptions) Verdict {
	low, high, what := ev.Low, ev.High, "t interval"
	if boot != nil {
		low, high, what = boot.Low, boot.High, "hierarchical bootstrap interval"
	}
	var against []string
	if !(ev.P < o.Alpha) {
		against = append(against, fmt.Sprintf("%s p=%.3g", ev.Method, ev.P))
	}
	if ev.PermMin < o.Alpha && !(ev.PermP < o.Alpha) {
		against = append(against, fmt.Sprintf("permutation p=%.3g", ev.PermP))
	}
	if !((ev.Diff > 0 && low > 0) || (ev.Diff < 0 && high < 0)) {
		against = append(against, fmt.Sprintf("%s [%.4g, %.4g] does not exclude 0", what, low, high))
	}
	if !(ev.Overlap <= o.MaxOverlap) {
		against = append(against, fmt.Sprintf("per-run values overlap (%.0f%% of run pairs point the other way)", 100*ev.Overlap))
	}
	if len(against) == 0 {
		c := Higher
		if ev.Diff < 0 {
			c = Lower
		}
		return Verdict{Call: c, Reason: fmt.Sprintf("B %s than A: %s p=%.3g, %s [%.4g, %.4g], %.0f%% of run pairs point the other way",
			c, ev.Method, ev.P, what, low, high, 100*ev.Overlap)}
	}
	why := ""
	if ev.P < o.Alpha {
		why = " (" + joinComma(against) + ")"
	}
	p := ev.Power
	if !p.Enough(o.Threshold) {
		return needsMore(ev, o, why)
	}
	return Verdict{Call: NotSignificant, Reason: fmt.Sprintf("no significant difference%s; %d and %d runs could detect %.3g%% of A (alpha %.2g, power %.2g)",
		why, p.NA, p.NB, 100*p.MDDFrac, o.Alpha, o.Power)}
}

// needsMore is the NeedsMoreRuns verdict with its recommendation.
func needsMore(ev *Evidence, o RunOptions, why string) Verdict {
	p := ev.Power
	unit := "runs per side"
	if o.Paired {
		unit = "pairs"
	}
	if p.Recommended == 0 {
		return Verdict{Call: NeedsMoreRuns, Recommended: 2,
			Reason: fmt.Sprintf("needs more runs%s: %d and %d runs give no run-to-run spread; run at least 2 %s", why, p.NA, p.NB, unit)}
	}
	head := fmt.Sprintf("needs more runs%s: with %d and %d runs the run-to-run spread lets only %.3g%% of A be detected (alpha %.2g, power %.2g)",
		why, p.NA, p.NB, 100*p.MDDFrac, o.Alpha, o.Power)
	if p.Capped {
		return Verdict{Call: NeedsMoreRuns, Recommended: o.MaxRuns,
			Reason: fmt.Sprintf("%s; even %d %s would not detect %.3g%%: reduce the run-to-run spread (warm-up, fixed clocks, a quiet host) or pair the runs",
				head, o.MaxRuns, unit, 100*p.Target)}
	}
	rec := max(p.Recommended, p.NA+1, p.NB+1)
	return Verdict{Call: NeedsMoreRuns, Recommended: rec,
		Reason: fmt.Sprintf("%s; %d %s would detect %.3g%%", head, rec, unit, 100*p.Target)}
}

func joinComma(s []string) string {
	out := ""
	for i, v := range s {
		if i > 0 {
			out += ", "
		}
		out += v
	}
	return out
}

// runOverlap is the share of pairs (a_i, b_j) ordered against the sign of
// diff (b_j < a_i when diff ≥ 0), ties counting one half.
func runOverlap(a, b []float64, diff float64) float64 {
	var against float64
	for _, x := range a {
		for _, y := range b {
			against += orderAgainst(y-x, diff)
		}
	}
	return against / float64(len(a)*len(b))
}

// pairOverlap is runOverlap over the pairs (a_i, b_i) only.
func pairOverlap(a, b []float64, diff float64) float64 {
	var against float64
	for i := range a {
		against += orderAgainst(b[i]-a[i], diff)
	}
	return against / float64(len(a))
}

func orderAgainst(d, diff float64) float64 {
	switch {
	case d == 0:
		return 0.5
	case (d < 0) == (diff >= 0):
		return 1
	}
	return 0
}
