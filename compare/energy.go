package compare

import (
	"fmt"
	"slices"
	"strings"

	"github.com/servecmp/servecmp/benchmark/result"
)

// This file compares what the runs cost in GPU energy (issue 26). The
// figures come from each run's summary.energy (benchmark's GPU telemetry:
// the engine's GPUs over the measured window); the rows below take one
// value per run, like the throughput rows, and go through the same
// run-aware test (verdicts.go). They are not speed metrics: the
// conclusion's "faster" never counts them, and the energy clause
// (conclusion.go) is added only when the energy-per-token row's own
// verdict is significant. A run counts only when its energy is complete
// (every exporter answered, every GPU's energy covers the window).

// MetricEnergyPerToken is the headline energy row: joules per output
// token.
const MetricEnergyPerToken = "energy_per_output_token_j"

// energyMetrics are the per-run energy figures compared run by run.
var energyMetrics = []struct {
	name, unit  string
	lowerBetter bool
	get         func(*result.Result) float64
	ok          func(*result.Result) bool
}{
	{MetricEnergyPerToken, "J/tok", true, func(r *result.Result) float64 { return *r.Summary.Energy.PerOutputTokenJ },
		func(r *result.Result) bool { return usableEnergy(r) && r.Summary.Energy.PerOutputTokenJ != nil }},
	{"mean_power_w", "W", true, func(r *result.Result) float64 { return r.Summary.Energy.MeanPowerW }, usableEnergy},
	{"output_throughput_per_gpu", "tok/s/GPU", false, func(r *result.Result) float64 { return *r.Summary.Energy.TokensPerSPerGPU },
		func(r *result.Result) bool { return usableEnergy(r) && r.Summary.Energy.TokensPerSPerGPU != nil }},
}

// IsEnergyMetric reports whether a metric row is an energy row: compared
// like the others, never counted as a speed metric by the conclusion.
func IsEnergyMetric(name string) bool {
	for _, m := range energyMetrics {
		if m.name == name {
			return true
		}
	}
	return false
}

// usableEnergy reports whether a run's energy may enter an energy row: it
// has one, and it is complete.
func usableEnergy(r *result.Result) bool {
	return r.Summary.Energy != nil && r.Summary.Energy.Complete && r.Summary.Energy.GPUs > 0
}

// EnergyReport is the runs' GPU energy, side by side: one entry per run
// that carries GPU telemetry.
type EnergyReport struct {
	Runs []EnergyRun `json:"runs"`
}

// EnergyRun is one run's energy and telemetry, as its result gives them.
type EnergyRun struct {
	Side string `json:"side"` // "a" or "b"
	Path string `json:"path"`
	// Energy is the run's summary.energy; nil when the run has telemetry
	// but no energy figure.
	Energy *result.Energy `json:"energy"`
	// GPUType and GPUCount are what the exporters' labels report.
	GPUType  string `json:"gpu_type,omitempty"`
	GPUCount int    `json:"gpu_count"`
	// Throttled is set when a GPU reported a clock-limiting event in the
	// measured window; ThrottleReasons names them.
	Throttled       bool     `json:"throttled"`
	ThrottleReasons []string `json:"throttle_reasons,omitempty"`
	// Power is the GPUs' total power over the run (W), warmup and drain
	// included: the workbook's power-over-time sheet.
	Power []result.PowerSample `json:"-"`
}

// energy collects the runs' energy, and warns of what makes the energy
// rows (or the speed rows) doubtful: a side that throttled, a run whose
// energy is incomplete, a side without telemetry.
func (r *Report) energy(runsA, runsB []Run) {
	rep := &EnergyReport{}
	for _, side := range []struct {
		name string
		runs []Run
	}{{"a", runsA}, {"b", runsB}} {
		var throttled, incomplete []string
		reasons := []string{}
		for _, run := range side.runs {
			t := run.Result.GPUTelemetry
			if t == nil {
				continue
			}
			e := run.Result.Summary.Energy
			rep.Runs = append(rep.Runs, EnergyRun{Side: side.name, Path: run.Path, Energy: e, GPUType: t.Contract.GPUType,
				GPUCount: t.Contract.GPUCount, Throttled: t.Throttled, ThrottleReasons: t.ThrottleReasons, Power: t.Power})
			if t.Throttled {
				throttled = append(throttled, run.Path)
				for _, n := range t.ThrottleReasons {
					if !slices.Contains(reasons, n) {
						reasons = append(reasons, n)
					}
				}
			}
			if e == nil || !e.Complete {
				incomplete = append(incomplete, run.Path)
			}
		}
		r.energyWarnings(strings.ToUpper(side.name), len(side.runs), throttled, reasons, incomplete)
	}
	if len(rep.Runs) == 0 {
		return
	}
	r.Energy = rep
	if a, b := rep.count("a"), rep.count("b"); a == 0 || b == 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("energy rows need GPU telemetry on both sides (benchmark --gpu-metrics-url): A has it in %d run(s), B in %d", a, b))
	} else if sa, sb := rep.sources("a"), rep.sources("b"); sa != sb {
		r.Notes = append(r.Notes, fmt.Sprintf("energy comes from %s on A and %s on B: the energy counter and the power integral can differ by the exporter's sampling", sa, sb))
	}
}

// energyWarnings warns of a side that throttled in any run, and of runs
// whose energy is left out of the rows.
func (r *Report) energyWarnings(side string, runs int, throttled, reasons, incomplete []string) {
	if len(throttled) > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%s's GPUs throttled in %d of %d run(s) (%s: %s): clock events lower the clocks below what the load asks for, "+
			"a confound like a warm cache; its speed and energy rows may reflect the throttling rather than the system",
			side, len(throttled), runs, strings.Join(reasons, ", "), strings.Join(throttled, ", ")))
	}
	if len(incomplete) > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%s: GPU energy incomplete in %s (an exporter failed, a GPU was missing or the samples did not cover the window; "+
			"see the result's warnings): left out of the energy rows", side, strings.Join(incomplete, ", ")))
	}
}

// count is how many runs of side carry telemetry.
func (e *EnergyReport) count(side string) int {
	n := 0
	for _, run := range e.Runs {
		if run.Side == side {
			n++
		}
	}
	return n
}

// sources names the energy sources of side's runs, joined with " and ".
func (e *EnergyReport) sources(side string) string {
	var out []string
	for _, run := range e.Runs {
		if run.Side == side && run.Energy != nil && !slices.Contains(out, run.Energy.Source) {
			out = append(out, run.Energy.Source)
		}
	}
	slices.Sort(out)
	return strings.Join(out, " and ")
}
