// Package analysis runs servecmp analyze: it reads every input capture,
// decides the rank labels, classifies and summarizes every rank, and
// returns one classify.Report. The command line only parses flags, calls
// Run and picks an encoder.
//
// Invariants:
//   - ranks are never summed: the report lists them side by side;
//   - rank labels are decided here and nowhere else (see labels.go);
//     readers leave event.Rank.Label empty;
//   - warnings and hints are data: Run returns them in Report.Warnings
//     (sorted, deduplicated), never prints them; a capture's own warnings
//     appear once per input file, hints once per rank;
//   - an input that cannot be read or summarized is skipped with a
//     warning naming it and why, unless Options.Strict; Run fails only
//     when no input could be read;
//   - at most Options.Parallelism files or ranks are worked on at a time,
//     and at most Options.Parallelism files are held in memory; the
//     result does not depend on the order in which they finish.
//
// Times are ns throughout, as in package classify.
package analysis

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/servecmp/servecmp/classify"
	"github.com/servecmp/servecmp/event"
	"github.com/servecmp/servecmp/input"
	"github.com/servecmp/servecmp/rules"
)

// Input is one capture to analyse: a file path and the label the user gave
// it ("" for none).
type Input struct {
	Label, Path string
}

// Options are the choices of one analysis.
type Options struct {
	Summary classify.Options // window, iteration pattern, known work
	// Explain fills every rank's Explain list (analyze --explain).
	Explain bool
	// Parallelism caps the files and ranks worked on at once; 0 means
	// GOMAXPROCS.
	Parallelism int
	// Strict fails the run on the first input that cannot be read or
	// summarized; by default such an input is skipped with a warning.
	Strict bool
	// WorkWindowNs is the profile window recorded with the work of
	// --work-from (Flags.Options); a rank whose window differs from it by
	// more than SpanTolerance is warned about. 0: none.
	WorkWindowNs int64
}

// Run analyses the inputs with the rule set and returns their report:
// ranks in natural label order, warnings in Report.Warnings. An input
// that fails is skipped, with a warning "skipped: " and its one-line
// error; Run fails when every input failed (with the first failure in
// input order). With opts.Strict a failure stops the inputs not yet
// started; the error is the first failure in input order among those
// tried (never the cancellation it caused). A duplicate user label is an
// error.
func Run(ctx context.Context, inputs []Input, set *rules.Set, opts Options) (*classify.Report, error) {
	// A capture's few large slices live until the end: collecting garbage
	// at the default pace only rescans them. Collect less often.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	if len(inputs) == 0 {
		return nil, errors.New("analysis: no inputs")
	}
	n := opts.Parallelism
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	gov := newMemGovernor(len(inputs), n)
	defer gov.restore()
	results, errs := runAll(ctx, inputs, set, opts, gov)
	if err := failure(ctx, errs, opts.Strict); err != nil {
		return nil, err
	}
	var ranks []*classify.RankSummary
	var warns []string
	for i, r := range results {
		if errs[i] != nil {
			warns = append(warns, "skipped: "+errs[i].Error())
		}
		ranks = append(ranks, r.ranks...)
		warns = append(warns, r.warnings...)
	}
	qualifyDuplicates(ranks)
	rep, err := classify.NewReport(set.Digest, ranks)
	if err != nil {
		return nil, err
	}
	rep.AddWarnings(warns...)
	rep.AddWarnings(spanWarnings(rep.Ranks, opts)...)
	results = nil
	runtime.GC() // the captures are garbage now: give their memory back before the output is made
	return rep, nil
}

// fileResult is what one input yields: its ranks' summaries and the
// capture's own warnings.
type fileResult struct {
	ranks    []*classify.RankSummary
	warnings []string
}

// failure returns the error that fails a run whose inputs ended with
// errs, or nil: the cancellation of ctx; with strict, the first failure
// in input order that is not a cancellation it caused; otherwise the
// first failure when every input failed.
func failure(ctx context.Context, errs []error, strict bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	failed := 0
	var first error
	for _, err := range errs {
		if err != nil {
			failed++
			if first == nil || errors.Is(first, context.Canceled) && !errors.Is(err, context.Canceled) {
				first = err
			}
		}
	}
	switch {
	case failed == 0 || !strict && failed < len(errs):
		return nil
	case !strict && len(errs) > 1:
		return fmt.Errorf("none of the %d inputs could be analysed; the first: %w", len(errs), first)
	}
	return first
}

// runAll works on every input at once, at most opts.Parallelism of them
// (and of their ranks) busy at a time, and at most opts.Parallelism of
// them in memory. The results and errors are in input order; with
// opts.Strict the first failure cancels the inputs not yet done.
func runAll(ctx context.Context, inputs []Input, set *rules.Set, opts Options, gov *memGovernor) ([]fileResult, []error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	n := opts.Parallelism
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	sem := make(chan struct{}, n)
	loaded := make(chan struct{}, n)
	out := make([]fileResult, len(inputs))
	errs := make([]error, len(inputs))
	var wg sync.WaitGroup
	for i, in := range inputs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], errs[i] = loadOne(ctx, loaded, sem, in, set, opts, gov, len(inputs) > 1)
			if errs[i] != nil && opts.Strict {
				cancel()
			}
		}()
	}
	wg.Wait()
	return out, errs
}

// loadOne runs one input while holding a slot of loaded: at most
// cap(loaded) inputs are in memory at once. With more inputs to come
// (collect), it collects the input's garbage before giving the slot
// back: at the pace Run sets, the slices of inputs done would otherwise
// be collected only after several more inputs were read into fresh
// memory.
func loadOne(ctx context.Context, loaded, sem chan struct{}, in Input, set *rules.Set, opts Options,
	gov *memGovernor, collect bool) (fileResult, error) {
	if err := acquire(ctx, loaded); err != nil {
		gov.read(nil)
		return fileResult{}, err
	}
	defer func() { <-loaded }()
	res, err := runOne(ctx, sem, in, set, opts, gov)
	if collect {
		runtime.GC()
	}
	return res, err
}

// acquire takes a slot of sem, or gives up when ctx ends.
func acquire(ctx context.Context, sem chan struct{}) error {
	select {
	case sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// runOne reads one input (holding one slot), labels its ranks, then
// summarizes each rank in its own goroutine (one slot each).
func runOne(ctx context.Context, sem chan struct{}, in Input, set *rules.Set, opts Options, gov *memGovernor) (fileResult, error) {
	if err := acquire(ctx, sem); err != nil {
		gov.read(nil)
		return fileResult{}, err
	}
	c, err := input.Open(ctx, in.Path, event.Context)
	gov.read(c)
	if err != nil {
		<-sem
		return fileResult{}, err
	}
	byName := classify.NameLabels(set, c.Names)
	<-sem
	if len(c.Ranks) == 0 {
		return fileResult{}, fmt.Errorf("%s: no ranks with device work", in.Path)
	}
	labelRanks(in.Label, c)
	res := fileResult{ranks: make([]*classify.RankSummary, len(c.Ranks))}
	for _, w := range c.Warnings {
		res.warnings = append(res.warnings, c.Path+": "+w)
	}
	errs := make([]error, len(c.Ranks))
	var wg sync.WaitGroup
	for i, rk := range c.Ranks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if errs[i] = acquire(ctx, sem); errs[i] != nil {
				return
			}
			defer func() { <-sem }()
			res.ranks[i], errs[i] = summarizeGuarded(c, rk, set, byName, opts, sem)
		}()
	}
	wg.Wait()
	// One line for the user: the first rank's failure (the others of the
	// file usually fail the same way).
	for _, err := range errs {
		if err != nil {
			return fileResult{}, err
		}
	}
	return res, nil
}

// summarize attributes and summarizes one rank, adding its hints as
// warnings and, when asked, its explain rows. The caller holds a slot of
// sem; the free ones are lent to the work on the rank (classify.Pool).
func summarize(c *event.Capture, rk *event.Rank, set *rules.Set, byName []classify.Label, opts Options, sem chan struct{}) (*classify.RankSummary, error) {
	rs, labels, err := classify.SummarizeRank(c, rk, set, byName, opts.Summary, classify.NewPool(sem))
	if err != nil {
		return nil, err
	}
	for _, h := range classify.Hints(rk, labels) {
		rs.Warnings = append(rs.Warnings, hintWarning(rs.Rank, h))
	}
	if opts.Explain {
		rs.Explain = classify.ExplainWindow(rk, set, labels, rs.WindowStartNs, rs.WindowEndNs)
	}
	return rs, nil
}

// hintWarning is the warning line of one capture hint for a rank.
func hintWarning(rank, hint string) string { return "rank " + rank + ": hint: " + hint }
