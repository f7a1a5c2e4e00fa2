//go:build unix

package experiment

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/compare"
	"github.com/servecmp/servecmp/profile"
)

// runner is one Run's state.
type runner struct {
	e     *Experiment
	dir   string
	o     RunOptions
	st    *Store
	wl    *workload.Workload
	wlSHA string
	eng   *engines
	out   *Outcome
	// warned maps a step warning, its figures masked, to the steps that
	// gave it (warnOnce).
	warned map[string][]string
	wkeys  []string // warned's keys in the order first given
	wfirst []string // the warning as first given, per wkeys
}

// Run executes the experiment's plan into dir: it materialises or hashes
// the workload, keeps the steps an earlier run completed with the same
// key (saying so on Stderr), launches the engines that have a launch
// command for as long as their steps need them, runs the other steps in
// plan order and writes the report. A failing check stops it before the
// long runs unless check.on_mismatch is continue. When ctx ends, the
// launched engines are stopped, finished steps are kept, the step under
// way is marked incomplete and the error wraps ErrInterrupted.
//
// dir is opened as a Store: it must be new, empty or an earlier run's,
// and one run at a time holds it. A run that ends without a current
// report (it failed, or was stopped) leaves none: the report of an
// earlier run is removed, so that no old report reads as this run's.
func Run(ctx context.Context, e *Experiment, dir string, o RunOptions) (out *Outcome, err error) {
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	st, err := OpenStore(dir, e.Inputs(o.Inputs...)...)
	if err != nil {
		return nil, fmt.Errorf("--out %s: %v", dir, err)
	}
	defer st.Close()
	r := &runner{e: e, dir: dir, o: o, st: st, out: &Outcome{Dir: dir}}
	defer func() {
		if err != nil && !r.reportCurrent() {
			r.removeReport()
		}
	}()
	if err := r.loadWorkload(ctx); err != nil {
		return r.out, err
	}
	r.out.Plan = Plan(e, r.wlSHA)
	todo := st.Todo(r.out.Plan)
	if o.Force {
		todo = r.out.Plan
	}
	if err := r.validateSteps(); err != nil {
		return r.out, err
	}
	if err := r.checkOutputs(); err != nil {
		return r.out, err
	}
	r.sayKept(todo)
	if err := r.keptCheck(todo); err != nil {
		return r.out, err
	}
	if slices.ContainsFunc(todo, func(s Step) bool { return s.Kind == KindReport }) {
		r.removeReport()
	}
	r.eng = newEngines(e, st, o, todo)
	defer r.eng.stopAll()
	if err := r.eng.reachAll(ctx); err != nil {
		return r.out, fmt.Errorf("%s: %w", e.File, err)
	}
	for i, s := range todo {
		fmt.Fprintf(o.Stderr, "servecmp run: step %s (%d of %d to do)\n", s.Name, i+1, len(todo))
		if err := r.eng.before(ctx, s); err != nil {
			return r.out, fmt.Errorf("%s: %w", e.File, err)
		}
		if err := r.step(ctx, s); err != nil {
			return r.out, err
		}
		r.out.Ran = append(r.out.Ran, s.Name)
		r.eng.after(i)
	}
	r.sayRepeats()
	if len(todo) == 0 {
		if err := r.reprint(); err != nil {
			return r.out, err
		}
		return r.out, r.keptReport()
	}
	return r.out, nil
}

// reprint writes the standing report.txt to Stdout, as a run that made
// it did: "run ... > report.txt" keeps its report when nothing was left
// to do.
func (r *runner) reprint() error {
	p := r.st.Out().Join(ReportText)
	fmt.Fprintf(r.o.Stderr, "servecmp run: every step is done and unchanged: nothing to do; the report stands (%s)\n", p)
	if r.o.Stdout == nil {
		return nil
	}
	b, err := r.st.Out().ReadFile(ReportText, 1<<30)
	if err != nil {
		return fmt.Errorf("the standing report: %v (rerun with --force)", err)
	}
	_, err = r.o.Stdout.Write(b)
	return err
}

// figures matches the numbers of a warning, which differ from step to
// step when the cause is the same.
var figures = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`)

// warnOnce prints a step's warning the first time a warning like it (the
// same words, whatever its figures) comes, and remembers the steps that
// repeat it for sayRepeats: one cause, one line, however many steps.
func (r *runner) warnOnce(step, w string) {
	key := figures.ReplaceAllString(w, "#")
	if r.warned == nil {
		r.warned = map[string][]string{}
	}
	steps, seen := r.warned[key]
	r.warned[key] = append(steps, step)
	if !seen {
		r.wkeys, r.wfirst = append(r.wkeys, key), append(r.wfirst, w)
		fmt.Fprintf(r.o.Stderr, "servecmp run: %s: warning: %s\n", step, w)
	}
}

// sayRepeats tells, once per warning, which later steps gave it again.
func (r *runner) sayRepeats() {
	for i, k := range r.wkeys {
		if steps := r.warned[k]; len(steps) > 1 {
			w := []rune(r.wfirst[i])
			if len(w) > 60 {
				w = append(w[:60], '…')
			}
			fmt.Fprintf(r.o.Stderr, "servecmp run: %s's warning \"%s\" came again from %s (each step's result.json keeps its own)\n",
				steps[0], string(w), strings.Join(steps[1:], ", "))
		}
	}
}

// validateSteps checks the configuration of every measuring step of the
// plan against the workload before the first step runs (the file was
// checked when read; this is what needs the workload): a mistake stops
// the run before any engine starts, not hours into it.
func (r *runner) validateSteps() error {
	for _, s := range r.out.Plan {
		if s.Kind != KindSweep && s.Kind != KindRun && s.Kind != KindProfile {
			continue
		}
		cfg, err := r.benchConfig(s)
		if err == nil && s.Kind == KindProfile {
			pr := r.e.Profile
			o := profile.Options{After: pr.After, For: pr.For, Steps: pr.Steps, Activities: pr.Activities}
			err = profile.Validate(&cfg, &o)
		} else if err == nil {
			err = cfg.Validate()
		}
		if err != nil {
			return fmt.Errorf("%s: step %s: %v", r.e.File, s.Name, err)
		}
	}
	return nil
}

// checkOutputs refuses, before any step, a plan whose outputs would
// replace one of the run's inputs (an experiment file kept in a step's
// folder under an output's name) or a folder.
func (r *runner) checkOutputs() error {
	names := []string{ReportJSON, ReportText, ReportHTML, Workbook}
	if r.e.Workload.Random != nil {
		names = append(names, WorkloadFile)
	}
	for _, s := range r.out.Plan {
		for _, f := range []string{StepFileName, ResultFile, RecordsFile, CheckFile, SummaryFile} {
			names = append(names, s.Name+"/"+f)
		}
	}
	for _, n := range names {
		if err := r.st.Out().CheckWrite(n); err != nil {
			return fmt.Errorf("--out %v", err)
		}
	}
	return nil
}

// sayKept tells which steps an earlier run completed and this one keeps.
func (r *runner) sayKept(todo []Step) {
	for _, s := range r.out.Plan {
		if !slices.ContainsFunc(todo, func(t Step) bool { return t.Name == s.Name }) {
			r.out.Kept = append(r.out.Kept, s.Name)
		}
	}
	if len(r.out.Kept) > 0 {
		fmt.Fprintf(r.o.Stderr, "servecmp run: resuming in %s: kept %d step(s) done earlier with unchanged inputs: %v\n", r.dir, len(r.out.Kept), r.out.Kept)
	}
}

// removeReport removes the outputs of an earlier report that a run
// wrote (the manifest's), so that a run that stops before its own report
// leaves none that looks current; files a run did not write stay.
func (r *runner) removeReport() {
	for _, name := range []string{ReportJSON, ReportText, ReportHTML, Workbook, PlotsDir} {
		if err := r.st.Remove(name); err != nil {
			fmt.Fprintf(r.o.Stderr, "servecmp run: warning: removing the earlier report: %v\n", err)
		}
	}
}

// reportCurrent reports whether the report step is done with the key of
// this run's plan.
func (r *runner) reportCurrent() bool {
	reports := stepsOf(r.out.Plan, KindReport, "")
	return len(reports) == 1 && r.st.Done(reports[0])
}

// loadWorkload hashes the workload file, or materialises the random
// workload into the output directory (rewritten only when it changed).
func (r *runner) loadWorkload(ctx context.Context) error {
	path := r.e.Workload.File
	if rnd := r.e.Workload.Random; rnd != nil {
		path = filepath.Join(r.dir, WorkloadFile)
		if err := materialise(ctx, *rnd, r.st.Out()); err != nil {
			return fmt.Errorf("%s: workload.random: %v", r.e.File, err)
		}
	}
	if tr := r.e.Workload.Trace; tr != nil {
		path = filepath.Join(r.dir, WorkloadFile)
		if err := materialiseTrace(ctx, *tr, r.st.Out()); err != nil { // trace.go
			return fmt.Errorf("%s: workload.trace: %v", r.e.File, err)
		}
	}
	sha, err := HashFile(path)
	if err != nil {
		return fmt.Errorf("%s: workload: %v", r.e.File, err)
	}
	wl, err := workload.Load(path)
	if err != nil {
		return fmt.Errorf("%s: workload: %v", r.e.File, err)
	}
	r.wl, r.wlSHA = wl, sha
	return nil
}

// stepsOf lists the plan's steps of one kind (and side, when not "").
func stepsOf(plan []Step, kind, side string) []Step {
	var out []Step
	for _, s := range plan {
		if s.Kind == kind && (side == "" || s.Side == side) {
			out = append(out, s)
		}
	}
	return out
}

// keptCheck applies the verdict of a check kept from an earlier run, so
// that a failing check stops a resumed run as it stopped the first.
func (r *runner) keptCheck(todo []Step) error {
	checks := stepsOf(r.out.Plan, KindCheck, "")
	if len(checks) == 0 || slices.ContainsFunc(todo, func(s Step) bool { return s.Kind == KindCheck }) {
		return nil
	}
	path := filepath.Join(r.st.Dir(checks[0]), CheckFile)
	rep, err := compare.LoadCheck(path)
	if err != nil {
		return fmt.Errorf("%s: the kept check: %v (rerun with --force)", r.e.File, err)
	}
	r.out.Check = rep
	if !slices.ContainsFunc(todo, func(s Step) bool { return s.Kind == KindSweep || s.Kind == KindRun }) {
		return nil
	}
	return r.checkVerdict(rep)
}
