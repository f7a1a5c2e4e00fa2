package xlsx

import (
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/servecmp/servecmp/compare"
)

// energy writes the Energy sheet: each run's GPU energy (the figures the
// energy rows of the Throughput sheet compare), then each run's total GPU
// power over time as two columns (seconds from the run start, W), drawn
// as one line per run in the side's colour (B's runs dashed).
func (b *book) energy(r *compare.Report) error {
	const s = "Energy"
	// The names of report.json's energy.runs (and each run's energy).
	if err := b.header(s, "side", "path", "joules", "per_output_token_j", "mean_power_w", "tokens_per_s_per_gpu",
		"gpus", "gpu_type", "source", "complete", "throttled"); err != nil {
		return err
	}
	if r.Energy == nil {
		return nil
	}
	n := 2
	for _, run := range r.Energy.Runs {
		throttled := "no"
		if run.Throttled {
			throttled = strings.Join(run.ThrottleReasons, ", ")
		}
		vals := []any{strings.ToUpper(run.Side), run.Path}
		if e := run.Energy; e != nil {
			vals = append(vals, e.Joules, e.PerOutputTokenJ, e.MeanPowerW, e.TokensPerSPerGPU, e.GPUs, run.GPUType, e.Source, yesNo(e.Complete), throttled)
		} else {
			vals = append(vals, nil, nil, nil, nil, run.GPUCount, run.GPUType, "", "no", throttled)
		}
		if err := b.row(s, n, vals...); err != nil {
			return err
		}
		n++
	}
	for _, c := range []int{3, 5, 6} {
		b.style(s, c, 2, n-1, b.num)
	}
	b.style(s, 4, 2, n-1, b.sci)
	return b.power(s, n+1, r.Energy.Runs)
}

// power writes the runs' power series from row top on, two columns a
// run, and charts them.
func (b *book) power(s string, top int, runs []compare.EnergyRun) error {
	var series []excelize.ChartSeries
	for k, run := range runs {
		if len(run.Power) == 0 {
			continue
		}
		col := 2*k + 1
		name := strings.ToUpper(run.Side) + " " + run.Path
		if err := b.f.SetSheetRow(s, cell(col, top), &[]any{name + " t (s)", name + " power (W)"}); err != nil {
			return err
		}
		b.f.SetCellStyle(s, cell(col, top), cell(col+1, top), b.head)
		for i, p := range run.Power {
			if err := b.f.SetSheetRow(s, cell(col, top+1+i), &[]any{p[0], p[1]}); err != nil {
				return err
			}
		}
		last := top + len(run.Power)
		b.style(s, col, top+1, last, b.num)
		b.style(s, col+1, top+1, last, b.num)
		rgb := sideColors[0]
		line := excelize.LineOptions{Type: excelize.LineSolid, Width: 1.25}
		if run.Side == "b" {
			rgb, line.Dash = sideColors[1], excelize.LineDashDash
		}
		series = append(series, excelize.ChartSeries{Name: ref(s, col+1, top, col+1, top), Categories: ref(s, col, top+1, col, last),
			Values: ref(s, col+1, top+1, col+1, last), Fill: solid(rgb), Line: line, Marker: excelize.ChartMarker{Symbol: "none"}})
	}
	if len(series) == 0 {
		return nil
	}
	b.charts = append(b.charts, pendingChart{s, cell(13, 1), &excelize.Chart{
		Type: excelize.Scatter, Series: series, Title: title("GPU power over time, per run (W; warmup and drain included)"),
		XAxis:     excelize.ChartAxis{Title: title("seconds from the run start"), MajorGridLines: true, Minimum: ptr(0.0)},
		YAxis:     excelize.ChartAxis{Title: title("W (all the engine's GPUs)"), MajorGridLines: true, Minimum: ptr(0.0)},
		Legend:    excelize.ChartLegend{Position: "bottom"},
		Dimension: excelize.ChartDimension{Width: 900, Height: 420},
	}})
	return nil
}

func yesNo(v bool) string {
	if v {
		return "yes"
	}
	return "no"
}
