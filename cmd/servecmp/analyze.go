package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/servecmp/servecmp/classify"
	"github.com/servecmp/servecmp/event"
	"github.com/servecmp/servecmp/input"
	"github.com/servecmp/servecmp/internal/table"
	"github.com/servecmp/servecmp/rules"
)

// analyzeFlags are the flags of analyze (and, for output, of merge).
type analyzeFlags struct {
	rulesFile, rulesAdd string
	window, windowNVTX  string
	skipStart, skipEnd  string
	iteration           string
	work                string
	top                 int
	format              string
	save                string
	explain             bool
}

func newAnalyzeCmd(e *env) *cobra.Command {
	var f analyzeFlags
	cmd := &cobra.Command{
		Use:   "analyze [flags] [LABEL=]EXPORT...",
		Short: "Where each rank spends its GPU time, by region (Nsight Systems exports, PyTorch traces)",
		Long: `analyze reads profile captures (Nsight Systems SQLite exports or PyTorch-profiler
traces), splits each into ranks (one process and GPU each), classifies every
kernel, memcpy and memset into attention, ffn, communication, io or other, and
reports per rank: summed time and GPU-busy wall time (the union over all
streams) per region, classification coverage, launch shapes, engine
iterations and, when the completed work is known, time per request and per
output token. Ranks are shown side by side and never summed; the bottleneck
rank is the one with the most busy time outside communication.

A rank is labelled LABEL when given as LABEL=EXPORT (LABEL:<pid>/<device> when
that file holds several ranks), else by the RANK environment variable captured
in the file, else by file, pid and device.

Times in --window, --skip-start and --skip-end are seconds, or carry a unit
(ns, us, ms, s): "2:5", "1.5s:2500ms", "3e9ns:4e9ns". --window counts from the
session start (an nsys export's time 0; a PyTorch trace's first event); the
window is cut to the capture span. Work straddling a
window edge counts only its part inside.

Per-work figures use --work, or else the iteration ranges (--iteration-nvtx,
by default vLLM's execute_context_N(T)_generation_N(T) step ranges, also in
their newer spellings execute_context_N(T_S)... and
execute_R_context_N(sqT...)_generation_N(sqT...)): requests = the summed
context requests, output tokens = the summed generation tokens plus one first
token per context request. With chunked prefill these are upper bounds.

Warnings go to stderr after the data. --save writes a summary for merge and
compare.`,
		Example: `  servecmp analyze vllm-tp2.sqlite
  servecmp analyze --window-nvtx 'steady' --format json a=vllm.sqlite b=sglang.sqlite
  servecmp analyze --work requests=512,output_tokens=65536 --save node3.json rank*.sqlite`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runAnalyze(cmd.Context(), e, &f, args)
		},
	}
	fl := cmd.Flags()
	addRulesFlags(cmd, &f.rulesFile, &f.rulesAdd)
	fl.StringVar(&f.window, "window", "", "analyse `START:END` only (seconds or with a unit, from the session start)")
	fl.StringVar(&f.windowNVTX, "window-nvtx", "", "window from the first start to the last end of host ranges matching `REGEX`")
	fl.StringVar(&f.skipStart, "skip-start", "", "trim `DUR` from the window's start (e.g. 2s, 500ms)")
	fl.StringVar(&f.skipEnd, "skip-end", "", "trim `DUR` from the window's end")
	fl.StringVar(&f.iteration, "iteration-nvtx", "",
		"`REGEX` of the host ranges marking one iteration, with named groups ctx_reqs, ctx_tokens, gen_reqs, gen_tokens\n(default: vLLM's execute_context_<reqs>(<tokens>)_generation_<reqs>(<tokens>), newer spellings included)")
	fl.StringVar(&f.work, "work", "", "completed `WORK` as requests=N,output_tokens=M,input_tokens=K (default: from iteration ranges)")
	addOutputFlags(cmd, &f)
	fl.BoolVar(&f.explain, "explain", false, "also list every distinct name in the window with its region, method and rule id (per rank)")
	fl.StringVar(&f.save, "save", "", "also write a mergeable summary to `FILE` (JSON, schema "+classify.SummarySchema+")")
	return cmd
}

func addOutputFlags(cmd *cobra.Command, f *analyzeFlags) {
	cmd.Flags().IntVar(&f.top, "top", 10, "show the top `N` unmapped names and shapes per region (0: all)")
	cmd.Flags().StringVar(&f.format, "format", "text", "output `FORMAT`: text, json or csv")
}

// analyzeInput is one EXPORT argument.
type analyzeInput struct{ label, path string }

// parseInputs splits LABEL=PATH arguments and expands a directory into the
// exports and traces inside it. A labelled directory labels each of its
// files LABEL/<file name>.
func parseInputs(args []string) ([]analyzeInput, error) {
	var out []analyzeInput
	for _, a := range args {
		in := analyzeInput{path: a}
		if l, p, ok := strings.Cut(a, "="); ok && l != "" && p != "" && !strings.ContainsRune(l, filepath.Separator) {
			if _, err := os.Stat(a); err != nil { // not a file whose name holds '='
				in = analyzeInput{label: l, path: p}
			}
		}
		st, err := os.Stat(in.path)
		if err != nil || !st.IsDir() {
			out = append(out, in) // input.Open names a missing file
			continue
		}
		files, err := input.Expand([]string{in.path})
		if err != nil {
			return nil, err
		}
		for _, fp := range files {
			sub := analyzeInput{path: fp}
			if in.label != "" {
				sub.label = in.label + "/" + filepath.Base(fp)
			}
			out = append(out, sub)
		}
	}
	return out, nil
}

// options turns the flags into summarizer options; errors are usage errors.
func (f *analyzeFlags) options() (classify.Options, error) {
	var o classify.Options
	if f.window != "" && f.windowNVTX != "" {
		return o, usagef("--window and --window-nvtx exclude each other")
	}
	if f.window != "" {
		a, b, ok := strings.Cut(f.window, ":")
		if !ok {
			return o, usagef("--window %q: want START:END", f.window)
		}
		start, err := parseDuration(a)
		if err != nil {
			return o, usagef("--window %q: start: %v", f.window, err)
		}
		end, err := parseDuration(b)
		if err != nil {
			return o, usagef("--window %q: end: %v", f.window, err)
		}
		if end <= start {
			return o, usagef("--window %q: end must be after start", f.window)
		}
		o.Window.Explicit, o.Window.Start, o.Window.End = true, start, end
	}
	if f.windowNVTX != "" {
		re, err := regexp.Compile(f.windowNVTX)
		if err != nil {
			return o, usagef("--window-nvtx: %v", err)
		}
		o.Window.NVTX = re
	}
	var err error
	if f.skipStart != "" {
		if o.Window.SkipStart, err = parseDuration(f.skipStart); err != nil {
			return o, usagef("--skip-start %q: %v", f.skipStart, err)
		}
	}
	if f.skipEnd != "" {
		if o.Window.SkipEnd, err = parseDuration(f.skipEnd); err != nil {
			return o, usagef("--skip-end %q: %v", f.skipEnd, err)
		}
	}
	if f.iteration != "" {
		re, err := regexp.Compile(f.iteration)
		if err != nil {
			return o, usagef("--iteration-nvtx: %v", err)
		}
		o.Iteration = re
	}
	if f.work != "" {
		if o.Work, err = classify.ParseWork(f.work); err != nil {
			return o, usagef("--work: %v", err)
		}
	}
	return o, nil
}

func (f *analyzeFlags) checkOutput() error {
	switch f.format {
	case "text", "json", "csv":
	default:
		return usagef("--format %q: want text, json or csv", f.format)
	}
	if f.top < 0 {
		return usagef("--top %d: want 0 or more", f.top)
	}
	return nil
}

// parseDuration reads a non-negative time: a bare number is seconds; a
// number with the suffix ns, us, µs, ms or s is in that unit; a Go duration
// ("1m30s") is accepted too. The result is in ns.
func parseDuration(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("empty time")
	}
	num, scale := s, 1e9
	for _, u := range []struct {
		suffix string
		scale  float64
	}{{"ns", 1}, {"us", 1e3}, {"µs", 1e3}, {"ms", 1e6}, {"s", 1e9}} {
		if strings.HasSuffix(s, u.suffix) {
			num, scale = strings.TrimSuffix(s, u.suffix), u.scale
			break
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		d, derr := time.ParseDuration(s)
		if derr != nil {
			return 0, fmt.Errorf("bad time %q (want seconds or a number with ns, us, ms or s)", s)
		}
		v, scale = float64(d), 1
	}
	ns := v * scale
	if math.IsNaN(ns) || ns < 0 || ns > math.MaxInt64/2 {
		return 0, fmt.Errorf("time %q out of range", s)
	}
	return int64(math.Round(ns)), nil
}

func runAnalyze(ctx context.Context, e *env, f *analyzeFlags, args []string) error {
	// A capture's few large slices live until the end: collecting garbage
	// at the default pace only rescans them. Collect less often.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	opt, err := f.options()
	if err != nil {
		return err
	}
	if err := f.checkOutput(); err != nil {
		return err
	}
	set, err := loadRules(f.rulesFile, f.rulesAdd)
	if err != nil {
		return err
	}
	inputs, err := parseInputs(args)
	if err != nil {
		return err
	}
	ranks, err := analyzeAll(ctx, inputs, set, opt, f.explain)
	if err != nil {
		return err
	}
	qualifyDuplicateLabels(ranks)
	rep, err := classify.NewReport(set.Digest, ranks)
	if err != nil {
		return err
	}
	if f.save != "" {
		if err := saveSummary(f.save, rep); err != nil {
			return err
		}
	}
	return render(e, f, rep)
}

// analyzeAll reads every input and summarizes every rank, at most
// GOMAXPROCS at a time. The result is in input order, then rank order.
func analyzeAll(ctx context.Context, inputs []analyzeInput, set *rules.Set, opt classify.Options, explain bool) ([]*classify.RankSummary, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	perInput := make([][]*classify.RankSummary, len(inputs))
	errs := make([]error, len(inputs))
	var wg sync.WaitGroup
	for i, in := range inputs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			perInput[i], errs[i] = analyzeOne(ctx, sem, in, set, opt, explain)
			if errs[i] != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
	// Report the first real failure in input order, not a cancellation it caused.
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return nil, err
		}
	}
	var out []*classify.RankSummary
	for i, err := range errs {
		if err != nil {
			return nil, err
		}
		out = append(out, perInput[i]...)
	}
	return out, nil
}

func analyzeOne(ctx context.Context, sem chan struct{}, in analyzeInput, set *rules.Set, opt classify.Options, explain bool) ([]*classify.RankSummary, error) {
	select {
	case sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	c, err := input.Open(ctx, in.path, event.Context)
	if err != nil {
		<-sem
		return nil, err
	}
	byName := classify.NameLabels(set, c.Names)
	<-sem
	if len(c.Ranks) == 0 {
		return nil, fmt.Errorf("%s: no ranks with device work", in.path)
	}
	out := make([]*classify.RankSummary, len(c.Ranks))
	errs := make([]error, len(c.Ranks))
	var wg sync.WaitGroup
	for i, rk := range c.Ranks {
		if in.label != "" {
			rk.Label, rk.LabelFrom = in.label, "user"
			if len(c.Ranks) > 1 {
				rk.Label = fmt.Sprintf("%s:%d/%d", in.label, rk.PID, rk.Device)
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				errs[i] = ctx.Err()
				return
			}
			defer func() { <-sem }()
			labels := classify.Attribute(rk, set, byName)
			rs, err := classify.Summarize(c, rk, labels, opt)
			if err != nil {
				errs[i] = err
				return
			}
			for _, h := range classify.Hints(rk, labels) {
				rs.Warnings = append(rs.Warnings, "rank "+rs.Rank+": hint: "+h)
			}
			if explain {
				rs.Explain = classify.ExplainWindow(rk, set, labels, rs.WindowStartNs, rs.WindowEndNs)
			}
			out[i] = rs
		}()
	}
	wg.Wait()
	// One line for the user: the first rank's failure (the others of the
	// file usually fail the same way).
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// qualifyDuplicateLabels prefixes the file name to rank labels that came
// from captured environments or defaults and collide across files (two
// single-GPU traces both recorded as rank 0, say), with a warning. Labels the
// user gave are left alone, so that NewReport refuses their duplicates.
func qualifyDuplicateLabels(ranks []*classify.RankSummary) {
	seen := map[string]int{}
	for _, r := range ranks {
		seen[r.Rank]++
	}
	for _, r := range ranks {
		if seen[r.Rank] < 2 || r.LabelFrom == "user" {
			continue
		}
		old := r.Rank
		r.Rank = filepath.Base(r.Source) + ":" + old
		r.Warnings = append(r.Warnings, fmt.Sprintf("rank label %q is used by several inputs; %s's is shown as %q (give LABEL=FILE to choose)", old, r.Source, r.Rank))
	}
}

// saveSummary writes the summary next to path and renames it into place,
// so that a failed run never leaves a half-written file.
func saveSummary(path string, rep *classify.Report) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("--save %s: is a directory", path)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // name the user's path, not the temporary one
		}
		return fmt.Errorf("--save %s: cannot create it in %s: %w", path, filepath.Dir(path), err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o644); err != nil { // CreateTemp makes it private
		tmp.Close()
		return fmt.Errorf("--save %s: %w", path, err)
	}
	if err := rep.WriteSummary(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("--save %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("--save %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		var le *os.LinkError
		if errors.As(err, &le) {
			err = le.Err
		}
		return fmt.Errorf("--save %s: %w", path, err)
	}
	return nil
}

// render writes the report to stdout in the chosen format, then the
// warnings to stderr.
func render(e *env, f *analyzeFlags, rep *classify.Report) error {
	var err error
	switch f.format {
	case "json":
		err = rep.Trim(f.top).WriteJSON(e.stdout)
	case "csv":
		err = table.CSV(e.stdout, rep.Tables(f.top))
	default:
		err = table.Text(e.stdout, rep.Tables(f.top))
	}
	if err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	printWarnings(e.stderr, rep.Warnings)
	return nil
}

func printWarnings(w io.Writer, warnings []string) {
	for _, s := range warnings {
		fmt.Fprintf(w, "servecmp: warning: %s\n", s)
	}
}

func newMergeCmd(e *env) *cobra.Command {
	var f analyzeFlags
	cmd := &cobra.Command{
		Use:   "merge [flags] SUMMARY...",
		Short: "Merge summaries saved by analyze --save into one report",
		Long: `merge reads summaries written by analyze --save (for example one per node of
a large job, analysed where the exports are) and reports all their ranks
together, as analyze would. Summaries made with different rules are refused,
and rank labels must be unique across them. Ranks are listed side by side and
never summed; the bottleneck rank and the spread across ranks are computed
over all of them.`,
		Example: `  servecmp merge node*.json
  servecmp merge --format json --save job.json node*.json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.checkOutput(); err != nil {
				return err
			}
			reps := make([]*classify.Report, 0, len(args))
			for _, p := range args {
				r, err := readSummaryFile(p)
				if err != nil {
					return err
				}
				reps = append(reps, r)
			}
			rep, err := classify.Merge(reps...)
			if err != nil {
				return err
			}
			if f.save != "" {
				if err := saveSummary(f.save, rep); err != nil {
					return err
				}
			}
			return render(e, &f, rep)
		},
	}
	addOutputFlags(cmd, &f)
	cmd.Flags().StringVar(&f.save, "save", "", "also write the merged summary to `FILE`")
	return cmd
}

func readSummaryFile(path string) (*classify.Report, error) {
	fh, err := os.Open(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is already in front
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer fh.Close()
	r, err := classify.ReadSummary(fh)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return r, nil
}
