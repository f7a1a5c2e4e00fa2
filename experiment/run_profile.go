//go:build unix

package experiment

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/servecmp/servecmp/analysis"
	"github.com/servecmp/servecmp/input"
	"github.com/servecmp/servecmp/profile"
	"github.com/servecmp/servecmp/rules"
)

// Outputs of the profile and analyze steps, in their folders.
const (
	// TracesDir, inside profile-X, is the trace directory of an engine
	// without trace_dir (sent as SGLang's output_dir).
	TracesDir = "traces"
	// SummaryFile, inside analyze-X, is the analysis summary (analyze
	// --save) that the report gives compare as the side's profile.
	SummaryFile = "summary.json"
)

// layer2 reports whether s is a step of layer 2 (a profile or its
// analysis): its failure leaves the report to layer 1, never stops the
// run.
func layer2(s Step) bool { return s.Kind == KindProfile || s.Kind == KindAnalyze }

// profile captures one engine's profile under the runs' load
// (profile.Run) and writes its result (with the profile block) and
// records. An engine without a profiler API fails before any request.
func (r *runner) profile(ctx context.Context, s Step, dir string) error {
	cfg, err := r.benchConfig(s)
	if err != nil {
		return err
	}
	pr := r.e.Profile
	o := profile.Options{After: pr.After, For: pr.For, Steps: pr.Steps, Activities: pr.Activities, TraceDir: r.e.Side(s.Side).TraceDir}
	if o.TraceDir == "" {
		// The engine writes its traces into the step's folder: the folder
		// is the run's whole, removed with the step when it is redone.
		rel := s.Name + "/" + TracesDir
		if _, err := r.st.Out().Sub(rel); err != nil {
			return err
		}
		if err := r.st.Own(rel); err != nil {
			return err
		}
		if o.TraceDir, err = filepath.Abs(filepath.Join(dir, TracesDir)); err != nil {
			return err
		}
	}
	res, runErr, recErr := profile.RunStream(ctx, cfg, o, r.st.Stream(s, RecordsFile))
	if res == nil {
		return fmt.Errorf("engine %s: %v", s.Side, runErr)
	}
	var buf bytes.Buffer
	if err := profile.WriteResult("-", &buf, res); err != nil {
		return err
	}
	if err := r.st.Write(s, ResultFile, buf.Bytes()); err != nil {
		return fmt.Errorf("writing %v", err)
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(r.o.Stderr, "servecmp run: %s: warning: %s\n", s.Name, w)
	}
	switch {
	case res.Incomplete || ctx.Err() != nil:
		return ErrInterrupted
	case runErr != nil:
		return fmt.Errorf("engine %s: %v", s.Side, runErr)
	case recErr != nil:
		return fmt.Errorf("writing %v", recErr)
	}
	return nil
}

// analyze analyses the traces of the side's profile step with the work
// of its window (analyze --work-from) and saves the summary.
func (r *runner) analyze(ctx context.Context, s Step) error {
	ps := stepsOf(r.out.Plan, KindProfile, s.Side)[0]
	if !r.st.Done(ps) {
		return fmt.Errorf("no profile of engine %s to analyse: step %s did not complete", s.Side, ps.Name)
	}
	resPath := filepath.Join(r.st.Dir(ps), ResultFile)
	files, err := r.traceFiles(s, resPath)
	if err != nil {
		return err
	}
	opts, err := analysis.Flags{WorkFrom: resPath}.Options()
	if err != nil {
		return err
	}
	inputs := make([]analysis.Input, len(files))
	for i, f := range files {
		inputs[i] = analysis.Input{Path: f}
	}
	rep, err := analysis.Run(ctx, inputs, rules.Default(), opts)
	if err != nil {
		return err
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(r.o.Stderr, "servecmp run: %s: warning: %s\n", s.Name, w)
	}
	if err := r.st.WriteFunc(s, SummaryFile, rep.WriteSummary); err != nil {
		return fmt.Errorf("writing %v", err)
	}
	return nil
}

// traceFiles lists the traces the profile step reported that analyze
// reads; when it reported none, those found in its trace directory.
func (r *runner) traceFiles(s Step, resPath string) ([]string, error) {
	b, err := profile.ReadBlock(resPath)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, f := range b.Files {
		if _, err := input.Detect(f); err == nil {
			files = append(files, f)
		}
	}
	if len(files) > 0 {
		return files, nil
	}
	if b.TraceDir != "" {
		if files, err = input.Expand([]string{b.TraceDir}); err == nil && len(files) > 0 {
			fmt.Fprintf(r.o.Stderr, "servecmp run: %s: warning: the profile reported no new trace; analysing the %d trace file(s) found in %s\n", s.Name, len(files), b.TraceDir)
			return files, nil
		}
	}
	return nil, fmt.Errorf("no trace of engine %s in %q: give %s.trace_dir, the directory the engine's profiler writes to", s.Side, b.TraceDir, s.Side)
}

// profiles lists the analysis summaries for the report: one per side when
// both analyze steps completed, none otherwise, with the reason layer 2
// is missing ("" when there is no profile block).
func (r *runner) profiles() (a, b []string, missing string) {
	if r.e.Profile == nil {
		return nil, nil, ""
	}
	var why []string
	for _, side := range []string{"a", "b"} {
		s := stepsOf(r.out.Plan, KindAnalyze, side)[0]
		if r.st.Done(s) {
			continue
		}
		reason := fmt.Sprintf("step %s did not complete", s.Name)
		for _, dep := range []string{"profile-" + side, s.Name} {
			if f, err := r.st.Read(Step{Name: dep}); err == nil && f.Status == StatusFailed && f.Error != "" {
				reason = f.Error
				break
			}
		}
		why = append(why, reason)
	}
	if len(why) > 0 {
		return nil, nil, "layer 2 (GPU time) was not captured: " + strings.Join(why, "; ") + "; the report holds layer 1 only"
	}
	return []string{filepath.Join(r.st.Dir(stepsOf(r.out.Plan, KindAnalyze, "a")[0]), SummaryFile)},
		[]string{filepath.Join(r.st.Dir(stepsOf(r.out.Plan, KindAnalyze, "b")[0]), SummaryFile)}, ""
}
