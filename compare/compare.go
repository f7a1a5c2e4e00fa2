// Package compare builds servecmp's two-layer A/B verdict.
//
// Layer 1 answers which complete serving system is faster for the same
// workload, from normal benchmark results (result.Result) and, when given,
// their per-request records: it states the workload, the resource contract,
// every manifest difference and the correctness status, refuses the claim
// (Comparable false) when the model, workload or resource contract differ
// without being declared intentional, and compares every summary metric with
// a test suited to it, the runs' GPU energy among them (energy.go: compared,
// never counted as speed). Layer 2 shows where each engine spent its GPU time
// (classify.RankSummary per rank), diagnostic only.
//
// Units: latencies are milliseconds, throughputs per second, GPU times
// nanoseconds, shares fractions in [0, 1]. Deltas are (B−A)/A in percent and
// confidence intervals bound B−A in the metric's unit. A verdict "a" means A
// is significantly better (lower latency or completion time, higher
// throughput), "b" that B is, "~" that no difference was found although the
// runs could have detected one of 10% of A, and NeedsMoreRuns that none was
// found and the runs were too few for their spread to tell (verdicts.go:
// the run, not the request, is the unit of every test).
//
// LoadInput reads the files of a comparison and New builds the Report, the
// versioned saved type (Schema) that WriteJSON writes, with its
// Conclusion: the typed answer (conclusion.go), decided here once. The
// readings for people (tables, text, markdown, HTML, workbook, plots) are
// the output tree's; they print the conclusion's sentence as it is.
//
// compare reads the models of benchmark/result and check/checkreport and
// the GPU-time summaries of classify; it links neither the client, the
// load generator, the check runner nor the tokenizer.
//
// The package never prints and reads files only through the Load* helpers,
// which open them read-only.
package compare

import (
	"encoding/json"
	"io"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/check/checkreport"
)

// Run is one benchmark result file.
type Run struct {
	Path   string
	Result *result.Result
}

// Records is one records.jsonl file.
type Records struct {
	Path    string
	Records []result.Record
}

// Input is everything a comparison reads. A and B need at least one run each.
type Input struct {
	A, B               []Run
	RecordsA, RecordsB []Records
	ProfilesA          []Profile
	ProfilesB          []Profile
	Check              *checkreport.Report
	CheckPath          string
	// Intentional lists the manifest fields (flattened names such as
	// "manifest.quantization", or their last element, or one of the groups
	// "model", "workload", "load", "resources") whose difference is the
	// point of the experiment.
	Intentional []string
	Alpha       float64 // significance level; 0 means 0.05
	// Resamples is the number of random relabellings of the runs the
	// headline's max-T test draws when there are more than that to
	// enumerate; 0 means 2000.
	Resamples int
	Seed      uint64 // seed of every random relabelling; 0 means 1
	// SLO, when set, is held to both sides: goodput and attainment rows,
	// and each sweep's capacity (slo.go). Nil: the SLO the results carry.
	SLO result.SLO
}

// Report is the whole comparison.
type Report struct {
	Schema string `json:"schema"`
	// Conclusion is the comparison's answer, decided from everything
	// below (Conclude).
	Conclusion Conclusion `json:"conclusion"`
	Comparable bool       `json:"comparable"`
	// NotComparable names each undeclared difference that limits the claim.
	NotComparable []string `json:"not_comparable"`
	Alpha         float64  `json:"alpha"`
	RunsA         []string `json:"runs_a"`
	RunsB         []string `json:"runs_b"`
	// RunTimes are the compared runs' wall-clock start and end times.
	RunTimes    []RunTime    `json:"run_times"`
	Workload    WorkloadInfo `json:"workload"`
	Contract    []Field      `json:"contract"`
	Differences []Difference `json:"differences"`
	// Inputs compares the prompt tokens the engines reported for the
	// same requests (inputs.go); nil when neither records nor summaries
	// carry them, or the workloads differ.
	Inputs      *Inputs     `json:"inputs,omitempty"`
	Correctness Correctness `json:"correctness"`
	Phase       string      `json:"phase"`
	Metrics     []Metric    `json:"metrics"`
	Counts      []Count     `json:"counts"`
	// Server holds the scraped server-side metrics (KV-cache use, running
	// and waiting requests, memory, preemptions) of both sides.
	Server []ServerMetric `json:"server_metrics"`
	Sweeps []SweepCurve   `json:"sweeps,omitempty"`
	// Design is the order the runs were made in, and whether the verdicts
	// paired them.
	Design Design `json:"design"`
	// Headline is the answer to "which system is faster", decided on the
	// primary metrics with a family-wise error rate of at most Alpha.
	Headline *Headline `json:"headline"`
	// Latency holds the pooled per-request samples behind the latency rows
	// (for CDF plots and the workbook); empty without records.
	Latency []LatencySample `json:"-"`
	// RequestsA and RequestsB are the per-request records given, tagged
	// with their file.
	RequestsA []Records `json:"-"`
	RequestsB []Records `json:"-"`
	GPU       *GPUTime  `json:"gpu_time,omitempty"`
	// Energy is the runs' GPU energy and telemetry (energy rows are in
	// Metrics); nil when no run carries GPU telemetry.
	Energy *EnergyReport `json:"energy,omitempty"`
	// SLO is the objective's part (goodput rows are in Metrics); nil
	// without an SLO.
	SLO      *SLOReport `json:"slo,omitempty"`
	Notes    []string   `json:"notes"`
	Warnings []string   `json:"warnings"`
}

// Schema names the JSON report format.
//
// Version 2: latency verdicts take the run as the unit (p_value, ci_low,
// ci_high, n_a and n_b describe the per-run test and the hierarchical
// bootstrap, ITL rows are statistics of per-request mean gaps), verdict
// may be NeedsMoreRuns, and mdd_pct, runs_needed, reason and design are new.
//
// Version 3: latency metrics are named <kind>_ms_<statistic>
// ("ttft_ms_p50", was "ttft_ms.p50"), p_value is never 0 (at least
// PFloor), and run_times gives each run's wall-clock start and end.
//
// Version 4: one test per row (issue 20): a and b of a latency row are the
// means of its per-run values, p_value and ci_low..ci_high come from the
// row's one test (the t interval; null without a test), and the verdict
// is a or b exactly when p_value < alpha. headline (the family-wise
// decision on the primary metrics), primary, p_adjusted, same_as,
// design.counterbalanced and the conclusion's outcome confounded and its
// fields procedure, primary, exploratory_a/b, drift and largest are new.
// Version 3 gained the conclusion object late: a reader of version 3
// finds it absent in reports written before it.
const Schema = "servecmp.compare/4"

// WriteJSON writes the report as indented JSON, the saved format Schema
// names.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WorkloadInfo states the request population and load policy of each side.
type WorkloadInfo struct {
	SHA256A string `json:"sha256_a"`
	SHA256B string `json:"sha256_b"`
	CountA  int    `json:"count_a"`
	CountB  int    `json:"count_b"`
	LoadA   string `json:"load_a"`
	LoadB   string `json:"load_b"`
}

// Field is one line of the resource contract.
type Field struct {
	Name string `json:"name"`
	A    string `json:"a"`
	B    string `json:"b"`
}

// Difference is one manifest, workload or load field whose values differ
// between the sides. Values that vary between runs of one side are joined
// with " | ".
type Difference struct {
	Field       string `json:"field"`
	A           string `json:"a"`
	B           string `json:"b"`
	Intentional bool   `json:"intentional"`
	// Critical is set for the fields that make the sides not comparable
	// unless declared intentional (model, workload, tokenizer, load, resources).
	Critical bool `json:"critical"`
}

// Correctness is the pre-flight check's outcome as carried into compare.
type Correctness struct {
	Checked     bool   `json:"checked"`
	Path        string `json:"path,omitempty"`
	Requests    int    `json:"requests"`
	ExactMatch  int    `json:"exact_match"`
	Failed      int    `json:"failed"`
	Evidence    string `json:"evidence,omitempty"`
	Passed      bool   `json:"passed"`
	Quality     string `json:"quality"` // pass, fail or not-run
	QualityNote string `json:"quality_note,omitempty"`
}

// Metric is one compared summary metric.
type Metric struct {
	Name     string   `json:"name"`
	Unit     string   `json:"unit"`
	A        float64  `json:"a"`
	B        float64  `json:"b"`
	DeltaPct *float64 `json:"delta_pct"` // nil when A is 0
	Verdict  Verdict  `json:"verdict"`
	PValue   *float64 `json:"p_value"`
	CILow    *float64 `json:"ci_low"`
	CIHigh   *float64 `json:"ci_high"`
	Method   string   `json:"method"`
	// NA and NB are the runs behind the test (pairs when paired), the unit
	// of every verdict.
	NA int `json:"n_a"`
	NB int `json:"n_b"`
	// SDA and SDB are the run-to-run standard deviations of the per-run
	// values (0 with a single run).
	SDA float64 `json:"sd_a"`
	SDB float64 `json:"sd_b"`
	// MDDPct is the minimum detectable difference, in percent of A: the
	// smallest B−A the per-run test would find with power 0.8 at alpha,
	// given the run-to-run spread; nil with fewer than two runs on a side.
	MDDPct *float64 `json:"mdd_pct"`
	// RunsNeeded is, when Verdict is NeedsMoreRuns, the runs per side
	// (pairs when paired) recommended to detect the larger of the observed
	// difference and 10% of A; 0 otherwise.
	RunsNeeded int `json:"runs_needed"`
	// Reason says in one line why the verdict is what it is.
	Reason string `json:"reason,omitempty"`
	Note   string `json:"note,omitempty"`
	// Primary marks the metrics the headline is decided on (headline.go);
	// the others are exploratory. PAdjusted is a primary metric's p-value
	// adjusted for the family of primary metrics (Headline.Procedure).
	Primary   bool     `json:"primary"`
	PAdjusted *float64 `json:"p_adjusted,omitempty"`
	// SameAs names the row this one repeats (the same figure in another
	// form), which the headline's tallies count once.
	SameAs string `json:"same_as,omitempty"`
	// runsA and runsB are the per-run values the test compared and the
	// runs' start times, for the headline's family-wise test and drift check.
	runsA, runsB sideRuns
}

// Count is a descriptive total over all runs of a side.
type Count struct {
	Name string  `json:"name"`
	A    float64 `json:"a"`
	B    float64 `json:"b"`
}

// ServerMetric is one scraped server-side metric: for gauges the largest
// in-window peak over a side's runs and the mean of the in-window means;
// for counters the mean in-window increase per run. Nil when a side does not
// expose it.
type ServerMetric struct {
	Name  string   `json:"name"`
	Unit  string   `json:"unit"`
	Kind  string   `json:"kind"`
	PeakA *float64 `json:"peak_a"`
	PeakB *float64 `json:"peak_b"`
	MeanA *float64 `json:"mean_a"` // gauges: mean level; counters: increase per run
	MeanB *float64 `json:"mean_b"`
}

// SweepCurve is one sweep result: offered load against throughput and
// latency per step.
type SweepCurve struct {
	Side         string       `json:"side"`
	Path         string       `json:"path"`
	Kind         string       `json:"kind"`
	SaturationAt *float64     `json:"saturation_at"`
	Points       []SweepPoint `json:"points"`
}

// SweepPoint is one sweep step.
type SweepPoint struct {
	Offered           float64 `json:"offered"`
	RequestThroughput float64 `json:"request_throughput"`
	OutputThroughput  float64 `json:"output_throughput"`
	TTFTP50           float64 `json:"ttft_ms_p50"`
	TTFTP99           float64 `json:"ttft_ms_p99"`
	TPOTP50           float64 `json:"tpot_ms_p50"`
	E2EP50            float64 `json:"e2e_ms_p50"`
	E2EP99            float64 `json:"e2e_ms_p99"`
}

// LatencySample is one latency kind's pooled per-request values.
type LatencySample struct {
	Name string // ttft_ms, tpot_ms, itl_ms, itl_per_token_ms, e2e_ms
	A, B []float64
}

// CausalNote is the sentence every report carries under its GPU-time layer.
const CausalNote = "The regions show where GPU work moved; they need not add up to the end-to-end gap, " +
	"and no causal claim is made without a controlled experiment."
