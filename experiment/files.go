package experiment

import (
	"errors"
	"io"
	"time"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/check/checkreport"
	"github.com/servecmp/servecmp/compare"
	"github.com/servecmp/servecmp/internal/atomicfile"
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
	// APIKey is sent as a bearer token to both engines (the check, the
	// runs, the profiler, the readiness probes) and never recorded.
	APIKey string
	// Inputs are more files the run reads (the key file): no output may
	// replace one. The experiment and workload files are always inputs.
	Inputs []string
	// Version and Commit are servecmp's, recorded in every manifest.
	Version, Commit string
	// Report writes the readings for people (report.txt, report.html, the
	// workbook, plots/) under the names it is given, in the output
	// directory (written through the Dir: inside it, listed in its
	// manifest); Run itself writes report.json. Nil writes report.json
	// only. slo is the experiment's.
	Report func(paths ReportPaths, rep *compare.Report, slo result.SLO) error
	// Poll is the launcher's gap between readiness probes (0: its default).
	Poll time.Duration
}

// ReportPaths are where the report step's readings for people go: the
// names, in the output directory Dir, of the text report, the HTML page,
// the workbook and the plot folder.
type ReportPaths struct {
	Dir                         *atomicfile.Dir
	Text, HTML, Workbook, Plots string
}

// reportPaths are the report's names in the output directory d.
func reportPaths(d *atomicfile.Dir) ReportPaths {
	return ReportPaths{Dir: d, Text: ReportText, HTML: ReportHTML, Workbook: Workbook, Plots: PlotsDir}
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
	// Failed lists the measured runs in which more than
	// result.DefaultMaxFailedShare of the requests failed, one line each
	// ("run-b-1: 52.0% of the requests failed (...)"); the report says so.
	Failed []string
}

// ErrInterrupted is wrapped by the error of a run cut short by its
// context (Ctrl-C): the step under way is left incomplete.
var ErrInterrupted = errors.New("interrupted")

// ErrCheckFailed is wrapped by the error of a run stopped by a failing
// pre-flight check (check.on_mismatch: stop).
var ErrCheckFailed = errors.New("pre-flight check failed")
