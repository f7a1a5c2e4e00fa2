//go:build unix

package experiment

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/servecmp/servecmp/benchmark/result"

	"github.com/servecmp/servecmp/compare"
)

// ReportSchema names the extra part report.json carries beside compare's
// JSON report (compare.Schema).
const ReportSchema = "servecmp.run/1"

// RunReport is report.json: compare's report, inline, plus the run's
// experiment, order and steps.
type RunReport struct {
	*compare.Report
	Run RunInfo `json:"run"`
}

// RunInfo says how the experiment ran.
type RunInfo struct {
	Schema     string `json:"schema"`
	Experiment string `json:"experiment"` // the file's path
	Workload   string `json:"workload_sha256"`
	SLO        string `json:"slo,omitempty"`
	// Order is the runs' order (interleaved or blocked) and RunOrder the
	// measured runs' steps in the order they ran.
	Order    string   `json:"order"`
	RunOrder []string `json:"run_order"`
	// Steps are every step of the plan but the report, with their record.
	Steps []StepFile `json:"steps"`
	// Failed lists the measured runs with more failed requests than
	// result.DefaultMaxFailedShare allows (Outcome.Failed).
	Failed []string `json:"failed_runs,omitempty"`
}

// report compares the results of the plan's sweeps and runs, writes
// report.json and has RunOptions.Report write the rest. The outputs of
// an earlier report go first: a report that fails leaves none.
func (r *runner) report(s Step) error {
	r.removeReport()
	plan := r.out.Plan
	var p compare.Paths
	for _, side := range []string{"a", "b"} {
		var res, recs []string
		for _, s := range append(stepsOf(plan, KindSweep, side), stepsOf(plan, KindRun, side)...) {
			res = append(res, filepath.Join(r.st.Dir(s), ResultFile))
			if s.Kind == KindRun {
				recs = append(recs, filepath.Join(r.st.Dir(s), RecordsFile))
			}
		}
		if side == "a" {
			p.A, p.RecordsA = res, recs
		} else {
			p.B, p.RecordsB = res, recs
		}
	}
	var missing string
	p.ProfilesA, p.ProfilesB, missing = r.profiles()
	for _, s := range stepsOf(plan, KindCheck, "") {
		p.Check = filepath.Join(r.st.Dir(s), CheckFile)
	}
	in, warnings, err := compare.LoadInput(p)
	if err != nil {
		return fmt.Errorf("report: %v", err)
	}
	if err := r.applySLO(in); err != nil {
		return fmt.Errorf("report: %v", err)
	}
	r.out.Failed = failedRuns(in)
	in.Intentional, in.Alpha, in.SLO = r.e.Intentional, r.e.Alpha, r.e.SLO
	rep, err := compare.New(in)
	if err != nil {
		return fmt.Errorf("report: %v", err)
	}
	rep.Warnings = append(warnings, rep.Warnings...)
	if missing != "" {
		rep.Warnings = append(rep.Warnings, missing)
	}
	for _, f := range r.out.Failed {
		rep.Warnings = append(rep.Warnings, f+": the comparison stands on a run with too many failed requests")
	}
	info := r.runInfo()
	info.Failed = r.out.Failed
	b, err := jsonBytes(RunReport{Report: rep, Run: info})
	if err != nil {
		return err
	}
	if err := r.st.Out().Write(ReportJSON, b); err != nil {
		return fmt.Errorf("writing %v", err)
	}
	if r.o.Report != nil {
		if err := r.o.Report(reportPaths(r.st.Out()), rep, r.e.SLO); err != nil {
			return fmt.Errorf("report: %v", err)
		}
	}
	r.out.Report = rep
	return nil
}

// failedRuns lists the sweeps and measured runs whose failed share
// is above result.DefaultMaxFailedShare, as benchmark's exit 4 counts it.
func failedRuns(in compare.Input) []string {
	var out []string
	for _, run := range append(slices.Clone(in.A), in.B...) {
		res := run.Result
		if res.FailedShare() <= result.DefaultMaxFailedShare {
			continue
		}
		step := filepath.Base(filepath.Dir(run.Path))
		out = append(out, fmt.Sprintf("%s: %.1f%% of the requests failed (%s), more than %g allowed",
			step, 100*res.FailedShare(), failureClasses(res.Summary.FailedByClass), result.DefaultMaxFailedShare))
	}
	return out
}

// keptReport gives the outcome the report an earlier run wrote with the
// same keys, so that a rerun with nothing to do exits as the first did.
func (r *runner) keptReport() error {
	b, err := r.st.Out().ReadFile(ReportJSON, 1<<30)
	if err != nil {
		return fmt.Errorf("the kept report: %v (rerun with --force)", err)
	}
	var rep RunReport
	if err := json.Unmarshal(b, &rep); err != nil || rep.Report == nil {
		return fmt.Errorf("the kept report %s: %v (rerun with --force)", r.st.Out().Join(ReportJSON), err)
	}
	r.out.Report, r.out.Failed = rep.Report, rep.Run.Failed
	return nil
}

// applySLO holds every result to the experiment's SLO, evaluated afresh
// from its records: a changed slo redoes only the report step, and the
// sweeps' capacity must follow it.
func (r *runner) applySLO(in compare.Input) error {
	for _, run := range append(slices.Clone(in.A), in.B...) {
		recs, err := compare.LoadRecords(filepath.Join(filepath.Dir(run.Path), RecordsFile))
		if err != nil {
			return err
		}
		result.ApplySLO(run.Result, recs.Records, r.e.SLO)
	}
	return nil
}

// runInfo gathers the run's order and the steps' records.
func (r *runner) runInfo() RunInfo {
	info := RunInfo{Schema: ReportSchema, Experiment: r.e.File, Workload: r.wlSHA, SLO: r.e.SLO.String(),
		Order: r.e.Runs.Order, RunOrder: []string{}, Steps: []StepFile{}}
	for _, s := range r.out.Plan {
		if s.Kind == KindRun {
			info.RunOrder = append(info.RunOrder, s.Name)
		}
		if f, err := r.st.Read(s); err == nil && s.Kind != KindReport {
			info.Steps = append(info.Steps, f)
		}
	}
	return info
}
