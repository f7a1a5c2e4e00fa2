//go:build unix

package experiment

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/compare"
	"github.com/servecmp/servecmp/internal/infile"
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
func Run(ctx context.Context, e *Experiment, dir string, o RunOptions) (*Outcome, error) {
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	st, err := OpenStore(dir)
	if err != nil {
		return nil, fmt.Errorf("--out %s: %v", dir, err)
	}
	r := &runner{e: e, dir: dir, o: o, st: st, out: &Outcome{Dir: dir}}
	if err := r.loadWorkload(); err != nil {
		return nil, err
	}
	r.out.Plan = Plan(e, r.wlSHA)
	todo := st.Todo(r.out.Plan)
	if o.Force {
		todo = r.out.Plan
	}
	r.sayKept(todo)
	if err := r.keptCheck(todo); err != nil {
		return r.out, err
	}
	if slices.ContainsFunc(todo, func(s Step) bool { return s.Kind == KindReport }) {
		r.removeReport()
	}
	r.eng = newEngines(e, filepath.Join(dir, LogsDir), o, todo)
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
		return r.out, r.reprint()
	}
	return r.out, nil
}

// reprint writes the standing report.txt to Stdout, as a run that made
// it did: "run ... > report.txt" keeps its report when nothing was left
// to do.
func (r *runner) reprint() error {
	p := filepath.Join(r.dir, ReportText)
	fmt.Fprintf(r.o.Stderr, "servecmp run: every step is done and unchanged: nothing to do; the report stands (%s)\n", p)
	if r.o.Stdout == nil {
		return nil
	}
	b, err := infile.ReadFile(p)
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

// removeReport deletes the outputs of an earlier report, so that a run
// that stops before its own report leaves none that looks current.
func (r *runner) removeReport() {
	for _, name := range []string{ReportJSON, ReportText, ReportHTML, Workbook, PlotsDir} {
		_ = os.RemoveAll(filepath.Join(r.dir, name))
	}
}

// loadWorkload hashes the workload file, or materialises the random
// workload into the output directory (rewritten only when it changed).
func (r *runner) loadWorkload() error {
	path := r.e.Workload.File
	if rnd := r.e.Workload.Random; rnd != nil {
		path = filepath.Join(r.dir, WorkloadFile)
		if err := materialise(*rnd, path); err != nil {
			return fmt.Errorf("%s: workload.random: %v", r.e.File, err)
		}
	}
	if tr := r.e.Workload.Trace; tr != nil {
		path = filepath.Join(r.dir, WorkloadFile)
		if err := materialiseTrace(context.Background(), *tr, path); err != nil { // trace.go
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
