// Package calibrate checks compare's verdicts by simulation through the
// real code path: it simulates A/A and A/B experiments (World), writes
// every run's result and records files as benchmark does, reads them back
// with compare.LoadInput and builds the report with compare.New, then
// counts how often the headline and each metric row claim a difference,
// how often the rows' intervals cover the true difference, and how often
// "needs more runs (N)" keeps its promise.
//
// Rates are fractions of the comparisons of a scenario; differences are
// relative to A (0.2 = 20%). The figures are deterministic for a seed.
package calibrate

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/servecmp/servecmp/compare"
)

// Scenario is one line of a calibration table: a world, simulated
// Comparisons times.
type Scenario struct {
	Name        string
	World       World
	Comparisons int
}

// Options are the settings shared by every scenario.
type Options struct {
	Dir       string // where each comparison's files are written (and removed)
	Seed      uint64
	Alpha     float64 // compare's --alpha; 0 means 0.05
	Resamples int     // compare's --resamples; 0 means its default
	Workers   int     // comparisons at once; 0 means GOMAXPROCS
}

// Tally is what the comparisons of one scenario said.
type Tally struct {
	Scenario Scenario
	N        int // comparisons made
	// Headline counts the headline outcomes: Winner A ("a"), B ("b"),
	// "mixed", "confounded", or "none" (no side named).
	Headline map[string]int
	Rows     map[string]*RowTally
	// NeedMore lists, for the row FollowRow, each "needs more runs (N)"
	// with the difference it aims at.
	NeedMore []Need
}

// RowTally counts one metric row's verdicts over a scenario.
type RowTally struct {
	N                int // comparisons with this row
	CalledA, CalledB int // verdict a or b
	NeedsMore, Same  int // verdict "needs more runs" or "~"
	// WithTruth counts rows whose true B−A is known (Truth); Covered how
	// many of their intervals held it, NoInterval how many had none.
	WithTruth, Covered, NoInterval int
}

// Need is one "needs more runs" recommendation: Runs per side to detect
// Target (relative to A, signed as the observed difference).
type Need struct {
	Runs   int
	Target float64
}

// FollowRow is the row whose "needs more runs" recommendations are kept
// for the follow-up check.
const FollowRow = "ttft_ms_p50"

// Claimed reports whether the headline named a side or called the
// comparison mixed: a claim that the systems differ.
func (t *Tally) Claimed() int { return t.Headline["a"] + t.Headline["b"] + t.Headline["mixed"] }

// Rate is k of n as a fraction (NaN for n = 0).
func Rate(k, n int) float64 {
	if n == 0 {
		return math.NaN()
	}
	return float64(k) / float64(n)
}

// Simulate runs every comparison of s and tallies them.
func Simulate(ctx context.Context, s Scenario, o Options) (*Tally, error) {
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	t := &Tally{Scenario: s, Headline: map[string]int{}, Rows: map[string]*RowTally{}}
	var mu sync.Mutex
	var firstErr error
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				rep, err := compareOnce(ctx, s.World, o, i)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				if err == nil {
					t.add(rep, s.World)
				}
				mu.Unlock()
			}
		}()
	}
	for i := range s.Comparisons {
		if ctx.Err() != nil {
			break
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return t, firstErr
	}
	return t, ctx.Err()
}

// compareOnce simulates comparison i of w, writes its files and runs the
// real comparison on them.
func compareOnce(ctx context.Context, w World, o Options, i int) (*compare.Report, error) {
	dir, done, err := tempDir(o.Dir)
	if err != nil {
		return nil, err
	}
	defer done()
	rng := rand.New(rand.NewPCG(o.Seed, uint64(i)+1))
	f, err := w.Write(dir, rng, fmt.Sprintf("c%d", i))
	if err != nil {
		return nil, err
	}
	in, _, err := compare.LoadInput(compare.Paths{A: f.A, B: f.B, RecordsA: f.RecordsA, RecordsB: f.RecordsB})
	if err != nil {
		return nil, err
	}
	in.Alpha, in.Resamples, in.Seed, in.SLO = o.Alpha, o.Resamples, uint64(i)+1, SLO
	if in.Alpha == 0 {
		in.Alpha = 0.05
	}
	return compare.NewContext(ctx, in)
}

// add counts one report.
func (t *Tally) add(rep *compare.Report, w World) {
	t.N++
	t.Headline[claim(rep)]++
	for _, m := range rep.Metrics {
		r := t.Rows[m.Name]
		if r == nil {
			r = &RowTally{}
			t.Rows[m.Name] = r
		}
		r.N++
		switch m.Verdict {
		case "a":
			r.CalledA++
		case "b":
			r.CalledB++
		case compare.NeedsMoreRuns:
			r.NeedsMore++
			if m.Name == FollowRow && m.RunsNeeded > 0 && m.DeltaPct != nil {
				d := *m.DeltaPct / 100
				t.NeedMore = append(t.NeedMore, Need{Runs: m.RunsNeeded, Target: math.Copysign(math.Max(math.Abs(d), 0.10), d)})
			}
		default:
			r.Same++
		}
		if truth, ok := Truth(w, m); ok {
			r.WithTruth++
			switch {
			case m.CILow == nil || m.CIHigh == nil:
				r.NoInterval++
			case *m.CILow <= truth && truth <= *m.CIHigh:
				r.Covered++
			}
		}
	}
}

// Truth is the true B−A of a row where the world fixes it: 0 for every
// row when A and B are the same system without drift, and for the rows
// of decode speed (TPOT, ITL) and for mean TTFT when only TTFT differs.
// Mean TTFT then differs by TTFTEffect times A's expected mean TTFT. The
// quantile rows' truth depends on how a row pools requests, and is left
// out.
func Truth(w World, m compare.Metric) (float64, bool) {
	if w.Drift != 0 {
		return 0, false
	}
	if w.TTFTEffect == 0 {
		return 0, true
	}
	kind, _ := compare.SplitMetric(m.Name)
	switch {
	case kind == "tpot_ms" || kind == "itl_ms" || kind == "itl_per_token_ms":
		return 0, true
	case m.Name == "ttft_ms_mean" && !w.HeavyTails:
		// E[level] · E[request TTFT] for a log-normal level and request.
		mean := baseTTFT * math.Exp(w.Spread*w.Spread/2) * math.Exp(sdTTFT*sdTTFT/2)
		return w.TTFTEffect * mean, true
	}
	return 0, false
}

// RowNames returns the rows tallied, in a stable order.
func (t *Tally) RowNames() []string {
	names := make([]string, 0, len(t.Rows))
	for n := range t.Rows {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int { return strings.Compare(a, b) })
	return names
}

// WorstRow is the row with the most claims of a difference (a or b), and
// its rate.
func (t *Tally) WorstRow() (string, float64) {
	name, worst := "", -1.0
	for _, n := range t.RowNames() {
		r := t.Rows[n]
		if v := Rate(r.CalledA+r.CalledB, r.N); v > worst {
			name, worst = n, v
		}
	}
	return name, worst
}

// Coverage is the share of intervals, over the rows with a known truth,
// that held it, and the lowest share of one row; rows without an
// interval are left out (NoInterval counts them).
func (t *Tally) Coverage() (all, lowest float64, lowRow string) {
	var n, k int
	lowest = math.Inf(1)
	for _, name := range t.RowNames() {
		r := t.Rows[name]
		if r.WithTruth == r.NoInterval {
			continue
		}
		n += r.WithTruth - r.NoInterval
		k += r.Covered
		if v := Rate(r.Covered, r.WithTruth-r.NoInterval); v < lowest {
			lowest, lowRow = v, name
		}
	}
	return Rate(k, n), lowest, lowRow
}

// FollowUp checks "needs more runs (N)": for each recommendation (at
// most limit of them) it simulates a fresh comparison of N runs per side
// of base's spread and order, where B's TTFT differs by the target the
// recommendation aimed at, and counts how often FollowRow then finds the
// difference on the right side. A recommendation keeps its promise when
// that share reaches the power it states (0.8).
func FollowUp(ctx context.Context, base World, order Order, needs []Need, o Options, limit int) (found, total int, err error) {
	for i, nd := range needs {
		if i >= limit || ctx.Err() != nil {
			break
		}
		w := base
		w.Runs, w.Order, w.TTFTEffect = nd.Runs, order.Build(nd.Runs), nd.Target
		rep, err := compareOnce(ctx, w, o, 1_000_000+i)
		if err != nil {
			return found, total, err
		}
		total++
		want := compare.VerdictA // B's TTFT longer: A is better
		if nd.Target < 0 {
			want = compare.VerdictB
		}
		for _, m := range rep.Metrics {
			if m.Name == FollowRow && m.Verdict == want {
				found++
			}
		}
	}
	return found, total, ctx.Err()
}
