package stats

import (
	"errors"
	"fmt"
	"math"
)

// This file makes verdicts that hold across runs. The unit of evidence is
// the run, not the request: requests of one run share its warm-up, cache
// state, clocks and background load, so they are not independent, and a
// test that pools them counts the same run effect hundreds of times (see
// RUNS.md). One test decides each comparison, and its p-value, its
// interval and the call agree by construction:
//
//   - Welch's t-test on the per-run values, or the paired t-test on the
//     per-pair differences when the runs are paired; the call is Higher or
//     Lower exactly when p < alpha, which is exactly when the t interval of
//     B−A at level 1−alpha excludes 0;
//   - when neither side's runs vary (every run gave the same value) the t
//     statistic is undefined: the permutation test over run labels (sign
//     flips for pairs) decides instead, and there is no interval;
//   - with fewer than two runs on a side there is no test and no interval.
//
// A difference that is not called is "needs more runs" when the runs
// could not have detected one of Threshold·|A| with the assured power of
// power.go, else "~".

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
	// Permutations is the number of random relabellings of the
	// permutation test (used when no run varies) when exact enumeration
	// would exceed it; default 20000.
	Permutations int
	Seed         uint64 // seeds the random relabellings; equal seeds, equal results
	// Paired says the runs ran in interleaved pairs, a[i] next to b[i]
	// (see DetectDesign); both sides then need the same number of runs.
	Paired bool
	// Stats are the statistics CompareRequests compares; default Mean,
	// 0.5, 0.9, 0.99.
	Stats []Stat
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
	if o.MaxRuns == 0 {
		o.MaxRuns = 50
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
	case o.Permutations < 1:
		return errors.New("stats: permutations must be positive")
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
	// Method is the test that decides: "welch-t", "paired-t",
	// "permutation" (no run varies: the t statistic is undefined) or
	// "none" (fewer than two runs on a side).
	Method string
	// P is the test's two-sided p-value (NaN without a test). DF, Low and
	// High are the t-test's degrees of freedom and interval of Diff at
	// level 1−alpha, NaN without a t-test.
	P, DF     float64
	Low, High float64
	// PMin is the smallest p-value the permutation test can reach with
	// these runs (set when Method is "permutation").
	PMin  float64
	Power Power
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
	return RunComparison{Evidence: ev, Verdict: decide(&ev, o)}, nil
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
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return errors.New("stats: NaN or infinite per-run value")
		}
	}
	return nil
}

// runEvidence runs the test of the design and computes its power.
func runEvidence(a, b []float64, o RunOptions) Evidence {
	ev := Evidence{PerRunA: a, PerRunB: b, Method: "none", P: math.NaN(), DF: math.NaN(), Low: math.NaN(), High: math.NaN(), PMin: math.NaN()}
	ev.MeanA, ev.SDA = MeanSD(a)
	ev.MeanB, ev.SDB = MeanSD(b)
	if o.Paired {
		pt, err := PairedT(a, b, o.Alpha, o.Permutations, o.Seed)
		ev.Diff = pt.MeanDiff
		switch {
		case err != nil: // one pair
		case pt.SDDiff == 0 && pt.MeanDiff != 0:
			ev.Method, ev.P, ev.PMin = "permutation", pt.FlipP, pt.FlipMin
		default:
			ev.Method, ev.P, ev.DF, ev.Low, ev.High = "paired-t", pt.P, pt.DF, pt.CILow, pt.CIHigh
		}
		ev.Power = pairedPower(&ev, pt.SDDiff, o)
		return ev
	}
	ev.Diff = ev.MeanB - ev.MeanA
	if w, err := WelchT(a, b, o.Alpha); err == nil {
		if w.SDX == 0 && w.SDY == 0 && ev.Diff != 0 {
			ev.Method = "permutation"
			ev.P, ev.PMin = PermutationRuns(a, b, o.Permutations, o.Seed)
		} else {
			ev.Method, ev.P, ev.DF, ev.Low, ev.High = "welch-t", w.P, w.DF, w.CILow, w.CIHigh
		}
	}
	ev.Power = unpairedPower(&ev, o)
	return ev
}

// decide makes the call from the one test of the evidence: Higher or
// Lower when its p < alpha; else "~" when the runs could have detected
// the threshold difference, NeedsMoreRuns when they could not.
func decide(ev *Evidence, o RunOptions) Verdict {
	unit := "runs per side"
	if o.Paired {
		unit = "pairs"
	}
	switch {
	case ev.Method == "none":
		return tooFewRuns(ev, o, unit)
	case ev.P < o.Alpha:
		c := Higher
		if ev.Diff < 0 {
			c = Lower
		}
		if ev.Method == "permutation" {
			return Verdict{Call: c, Reason: fmt.Sprintf("B %s than A: no run varies, and the permutation test over the runs gives p=%.3g", c, ev.P)}
		}
		return Verdict{Call: c, Reason: fmt.Sprintf("B %s than A: %s p=%.3g, %.0f%% interval of B−A [%.4g, %.4g]", c, ev.Method, ev.P, 100*(1-o.Alpha), ev.Low, ev.High)}
	case ev.Method == "permutation":
		return noSpread(ev, o, unit)
	}
	p := ev.Power
	if !p.Enough(o.Threshold) {
		return needsMore(ev, o, unit, fmt.Sprintf("%s p=%.3g; ", ev.Method, ev.P))
	}
	return Verdict{Call: NotSignificant, Reason: fmt.Sprintf("no significant difference (%s p=%.3g); %d and %d runs could detect %.3g%% of A with power %.2g at alpha %.2g, allowing for the uncertainty of their spread",
		ev.Method, ev.P, p.NA, p.NB, 100*p.MDDFrac, o.Power, o.Alpha)}
}

// tooFewRuns is the verdict without a test: a side has a single run.
func tooFewRuns(ev *Evidence, o RunOptions, unit string) Verdict {
	nA, nB := len(ev.PerRunA), len(ev.PerRunB)
	head := fmt.Sprintf("needs more runs: %d run(s) of A and %d of B give no run-to-run spread to judge a difference by, so no test and no interval", nA, nB)
	if ev.Power.Recommended == 0 {
		return Verdict{Call: NeedsMoreRuns, Recommended: 2, Reason: head + fmt.Sprintf("; run at least 2 %s, more where runs vary", unit)}
	}
	return needsMore(ev, o, unit, fmt.Sprintf("%d run(s) of A and %d of B give no test; ", nA, nB))
}

// noSpread is the verdict when no run varies and the permutation test,
// the only test left, did not reach alpha: say how many runs it needs.
func noSpread(ev *Evidence, o RunOptions, unit string) Verdict {
	n := len(ev.PerRunA)
	for n < o.MaxRuns && !(permutationMin(n, o.Paired) < o.Alpha) {
		n++
	}
	n = max(n, len(ev.PerRunA)+1, len(ev.PerRunB)+1)
	return Verdict{Call: NeedsMoreRuns, Recommended: n, Reason: fmt.Sprintf("needs more runs: no run varies, so the t-test has no spread to go by; "+
		"the permutation test over the runs gives p=%.3g, the smallest it can reach with %d and %d runs; %d %s can reach alpha %.2g",
		ev.P, len(ev.PerRunA), len(ev.PerRunB), n, unit, o.Alpha)}
}

// permutationMin is the smallest p-value of the permutation test with n
// runs per side (sign flips of n pairs when paired).
func permutationMin(n int, paired bool) float64 {
	if paired {
		return 2 / math.Pow(2, float64(n))
	}
	return 2 / binomial(2*n, n)
}

// needsMore is the NeedsMoreRuns verdict with its recommendation; why
// opens the reason.
func needsMore(ev *Evidence, o RunOptions, unit, why string) Verdict {
	p := ev.Power
	head := fmt.Sprintf("needs more runs: %swith %d and %d runs the run-to-run spread lets only %.3g%% of A be detected (power %.2g at alpha %.2g)",
		why, p.NA, p.NB, 100*p.MDDFrac, o.Power, o.Alpha)
	if math.IsInf(p.MDDFrac, 1) {
		head = "needs more runs: " + why + "the spread of the side with two runs or more stands in for both"
	}
	if p.Capped {
		return Verdict{Call: NeedsMoreRuns, Recommended: o.MaxRuns,
			Reason: fmt.Sprintf("%s; even %d %s would not detect %.3g%%: reduce the run-to-run spread (warm-up, fixed clocks, a quiet host) or pair the runs",
				head, o.MaxRuns, unit, 100*p.Target)}
	}
	rec := max(p.Recommended, p.NA+1, p.NB+1)
	return Verdict{Call: NeedsMoreRuns, Recommended: rec,
		Reason: fmt.Sprintf("%s; %d %s would detect %.3g%% of A with power %.2g (averaged over what these runs say the spread may be)",
			head, rec, unit, 100*p.Target, o.Power)}
}
