package experiment

import (
	"errors"
	"io"
	"path/filepath"
	"time"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/check/checkreport"
	"github.com/servecmp/servecmp/compare"
)

// Output files of the report step, in the output directory.
const (
	ReportJSON   = "report.json"
	ReportText   = "report.txt"
	ReportHTML   = "report.html"
	Workbook     = "review.xlsx"
	PlotsDir     = "plots"
	LogsDir      = "logs"
	WorkloadFile = "workload.jsonl"
	ResultFile   = "result.json"
	RecordsFile  = "records.jsonl"
	CheckFile    = "check.json"
)

// RunOptions tunes Run.
type RunOptions struct {
	// Stderr receives progress: each step begun, kept or finished.
	Stderr io.Writer
	// Stdout receives the report text again when every step was done
	// before and nothing is run (a new report goes through Report).
	Stdout io.Writer
	// Self is the servecmp binary a launch command named servecmp runs
	// (LaunchOptions.Self).
	Self string
	// Force redoes every step, done or not.
	Force bool
	// Version and Commit are servecmp's, recorded in every manifest.
	Version, Commit string
	// Report writes the readings for people (report.txt, report.html, the
	// workbook, plots/) to the paths it is given, in the output
	// directory; Run itself writes report.json. Nil writes report.json
	// only. slo is the experiment's.
	Report func(paths ReportPaths, rep *compare.Report, slo result.SLO) error
	// Poll is the launcher's gap between readiness probes (0: its default).
	Poll time.Duration
}

// ReportPaths are where the report step's readings for people go: the
// text report, the HTML page, the workbook and the plot directory.
type ReportPaths struct {
	Text, HTML, Workbook, Plots string
}

// reportPaths are the report's paths in the output directory dir.
func reportPaths(dir string) ReportPaths {
	return ReportPaths{Text: filepath.Join(dir, ReportText), HTML: filepath.Join(dir, ReportHTML),
		Workbook: filepath.Join(dir, Workbook), Plots: filepath.Join(dir, PlotsDir)}
}

// Outcome is what a Run did.
type Outcome struct {
	Dir  string
	Plan []Step
	// Kept lists the steps done by an earlier run and kept (their keys
	// unchanged); Ran those this run did, in order.
	Kept, Ran []string
	Check     *checkreport.Report // nil when no check result exists
	Report    *compare.Report     // nil when the run stopped before the report
}

// ErrInterrupted is wrapped by the error of a run cut short by its
// context (Ctrl-C): the step under way is left incomplete.
var ErrInterrupted = errors.New("interrupted")

// ErrCheckFailed is wrapped by the error of a run stopped by a failing
// pre-flight check (check.on_mismatch: stop).
var ErrCheckFailed = errors.New("pre-flight check failed")
