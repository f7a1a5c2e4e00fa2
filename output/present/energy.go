package present

import (
	"fmt"
	"io"
	"strings"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/compare"
	"github.com/servecmp/servecmp/output/table"
)

// energyTable lists each run's GPU energy: the figures the energy rows
// compare, with the telemetry behind them (GPUs, source, completeness,
// clock-limiting events).
func energyTable(rep *compare.Report) *table.Table {
	t := &table.Table{Name: "energy", Title: "GPU energy per run (measured window; energy rows compare the complete runs)",
		Columns: []table.Column{textCol("side"), {Name: "path", Footnote: true}, num("joules", "J"), num("per_output_token_j", "J/tok"),
			num("mean_power_w", "W"), num("tokens_per_s_per_gpu", "tok/s"), {Name: "gpus", Unit: table.Count}, {Name: "gpu_type", Drop: 2},
			{Name: "source", Drop: 1}, textCol("complete"), textCol("throttled")}}
	for _, run := range rep.Energy.Runs {
		throttled := "no"
		if run.Throttled {
			throttled = strings.Join(run.ThrottleReasons, " ")
		}
		e := run.Energy
		if e == nil {
			t.Add(strings.ToUpper(run.Side), run.Path, nil, nil, nil, nil, int64(run.GPUCount), orDash(run.GPUType), "-", "no", throttled)
			continue
		}
		complete := "yes"
		if !e.Complete {
			complete = "no"
		}
		t.Add(strings.ToUpper(run.Side), run.Path, e.Joules, orNil(e.PerOutputTokenJ), e.MeanPowerW, orNil(e.TokensPerSPerGPU),
			int64(e.GPUs), orDash(run.GPUType), e.Source, complete, throttled)
	}
	return t
}

// writeEnergy adds a benchmark summary's energy lines (nothing without
// GPU telemetry).
func writeEnergy(w io.Writer, e *result.Energy) {
	if e == nil {
		return
	}
	fmt.Fprintf(w, "energy\t%.1f J on %d GPU(s) (%s, ±%.1f J), mean power %.1f W", e.Joules, e.GPUs, e.Source, e.UncertaintyJ, e.MeanPowerW)
	if !e.Complete {
		fmt.Fprint(w, " INCOMPLETE")
	}
	fmt.Fprintln(w)
	if e.PerOutputTokenJ != nil && e.TokensPerSPerGPU != nil {
		fmt.Fprintf(w, "energy per token\t%.4g J/output token, %.4g J/request, %.1f output tok/s per GPU, %.3g tok/s per W\n",
			*e.PerOutputTokenJ, deref(e.PerRequestJ), *e.TokensPerSPerGPU, deref(e.TokensPerSPerW))
	}
	if e.Throttled {
		fmt.Fprintf(w, "throttled\t%s\n", strings.Join(e.ThrottleReasons, ", "))
	}
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}
