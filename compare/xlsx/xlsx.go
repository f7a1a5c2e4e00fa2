// Package xlsx writes a compare.Report as a review workbook: one sheet per
// part of the report (Summary, Latency, Throughput, Sweep, Regions, Shapes,
// Unmapped, Contract, Requests), raw numbers with real number formats and
// units in the headers, frozen header rows, and native Excel charts
// (latency percentiles A vs B, throughput against offered load, stacked
// region bars per rank). GPU times are written in milliseconds.
package xlsx

import (
	"fmt"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/servecmp/servecmp/compare"
	"github.com/servecmp/servecmp/internal/present"
)

// Sheets lists the workbook's sheets in order.
var Sheets = []string{"Summary", "Latency", "Throughput", "Sweep", "Regions", "Shapes", "Unmapped", "Contract", "Requests"}

type book struct {
	f                          *excelize.File
	head, num, num3, pct, intS int
}

// WriteFile writes the workbook to path.
func WriteFile(path string, r *compare.Report) error {
	f, err := Build(r)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.SaveAs(path)
}

// Build returns the workbook for r.
func Build(r *compare.Report) (*excelize.File, error) {
	f := excelize.NewFile()
	b := &book{f: f}
	var err error
	if b.head, err = f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}, Fill: excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"DDEBF7"}}}); err != nil {
		return nil, err
	}
	fmt2 := "0.00"
	fmt3 := "0.000"
	fmtP := "0.0%"
	b.num, _ = f.NewStyle(&excelize.Style{CustomNumFmt: &fmt2})
	b.num3, _ = f.NewStyle(&excelize.Style{CustomNumFmt: &fmt3})
	b.pct, _ = f.NewStyle(&excelize.Style{CustomNumFmt: &fmtP})
	b.intS, _ = f.NewStyle(&excelize.Style{NumFmt: 3}) // #,##0
	for i, s := range Sheets {
		if i == 0 {
			if err := f.SetSheetName("Sheet1", s); err != nil {
				return nil, err
			}
			continue
		}
		if _, err := f.NewSheet(s); err != nil {
			return nil, err
		}
	}
	for _, step := range []func(*compare.Report) error{b.summary, b.latency, b.throughput, b.sweep, b.regions, b.shapes, b.unmapped, b.contract, b.requests} {
		if err := step(r); err != nil {
			return nil, err
		}
	}
	f.SetActiveSheet(0)
	return f, nil
}

func cell(col, row int) string {
	c, _ := excelize.CoordinatesToCellName(col, row)
	return c
}

func colName(col int) string {
	c, _ := excelize.ColumnNumberToName(col)
	return c
}

// header writes a bold, frozen header row.
func (b *book) header(sheet string, cols ...string) error {
	row := make([]any, len(cols))
	for i, c := range cols {
		row[i] = c
	}
	if err := b.f.SetSheetRow(sheet, "A1", &row); err != nil {
		return err
	}
	if err := b.f.SetCellStyle(sheet, "A1", cell(len(cols), 1), b.head); err != nil {
		return err
	}
	for i, c := range cols {
		b.f.SetColWidth(sheet, colName(i+1), colName(i+1), float64(min(max(len(c)+2, 10), 48)))
	}
	return b.f.SetPanes(sheet, &excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"})
}

func (b *book) row(sheet string, r int, vals ...any) error {
	for i, v := range vals {
		if p, ok := v.(*float64); ok {
			if p == nil {
				vals[i] = nil
			} else {
				vals[i] = *p
			}
		}
	}
	return b.f.SetSheetRow(sheet, cell(1, r), &vals)
}

func (b *book) style(sheet string, col, fromRow, toRow, style int) {
	if toRow >= fromRow {
		b.f.SetCellStyle(sheet, cell(col, fromRow), cell(col, toRow), style)
	}
}

func (b *book) summary(r *compare.Report) error {
	const s = "Summary"
	if err := b.header(s, "item", "value"); err != nil {
		return err
	}
	n := 2
	verdict := "comparable"
	if !r.Comparable {
		verdict = "NOT COMPARABLE: " + strings.Join(r.NotComparable, ", ") + " differ(s)"
	}
	b.row(s, n, "verdict", verdict)
	n++
	for _, l := range present.Headline(r) {
		k, v, ok := strings.Cut(l, ": ")
		if !ok {
			k, v = "", l
		}
		b.row(s, n, k, v)
		n++
	}
	n++
	b.row(s, n, "difference", "A", "B", "status")
	b.f.SetCellStyle(s, cell(1, n), cell(4, n), b.head)
	n++
	for _, d := range r.Differences {
		st := "differs"
		if d.Intentional {
			st = "intentional"
		} else if d.Critical {
			st = "NOT COMPARABLE"
		}
		b.row(s, n, d.Field, d.A, d.B, st)
		n++
	}
	n++
	for _, x := range r.Notes {
		b.row(s, n, "note", x)
		n++
	}
	for _, x := range r.Warnings {
		b.row(s, n, "warning", x)
		n++
	}
	if r.GPU != nil {
		b.row(s, n, "GPU time", r.GPU.Note)
		n++
		for _, l := range r.GPU.Limitations {
			b.row(s, n, "profiling limitation", l)
			n++
		}
	}
	b.f.SetColWidth(s, "A", "A", 28)
	b.f.SetColWidth(s, "B", "D", 60)
	return nil
}

func (b *book) metrics(sheet string, ms []compare.Metric) (int, error) {
	if err := b.header(sheet, "metric", "unit", "A", "B", "delta %", "verdict", "p value", "CI low (B-A)", "CI high (B-A)", "method", "n A", "n B", "sd A", "sd B", "note"); err != nil {
		return 0, err
	}
	n := 2
	for _, m := range ms {
		var d any
		if m.DeltaPct != nil {
			d = *m.DeltaPct / 100
		}
		if err := b.row(sheet, n, m.Name, m.Unit, m.A, m.B, d, m.Verdict, m.PValue, m.CILow, m.CIHigh, m.Method, m.NA, m.NB, m.SDA, m.SDB, m.Note); err != nil {
			return 0, err
		}
		n++
	}
	last := n - 1
	for _, c := range []int{3, 4, 8, 9, 13, 14} {
		b.style(sheet, c, 2, last, b.num3)
	}
	b.style(sheet, 5, 2, last, b.pct)
	b.style(sheet, 7, 2, last, b.num3)
	b.style(sheet, 11, 2, last, b.intS)
	b.style(sheet, 12, 2, last, b.intS)
	b.f.SetColWidth(sheet, "O", "O", 60)
	return last, nil
}

func (b *book) latency(r *compare.Report) error {
	const s = "Latency"
	var ms []compare.Metric
	for _, m := range r.Metrics {
		if m.Unit == "ms" {
			ms = append(ms, m)
		}
	}
	last, err := b.metrics(s, ms)
	if err != nil || last < 2 {
		return err
	}
	return b.f.AddChart(s, "Q2", &excelize.Chart{
		Type: excelize.Col,
		Series: []excelize.ChartSeries{
			{Name: s + "!$C$1", Categories: fmt.Sprintf("%s!$A$2:$A$%d", s, last), Values: fmt.Sprintf("%s!$C$2:$C$%d", s, last)},
			{Name: s + "!$D$1", Categories: fmt.Sprintf("%s!$A$2:$A$%d", s, last), Values: fmt.Sprintf("%s!$D$2:$D$%d", s, last)},
		},
		Title:     excelize.ChartTitle{Paragraph: []excelize.RichTextRun{{Text: "Latency percentiles, A vs B (ms)"}}},
		Legend:    excelize.ChartLegend{Position: "bottom"},
		Dimension: excelize.ChartDimension{Width: 900, Height: 420},
	})
}

func (b *book) throughput(r *compare.Report) error {
	const s = "Throughput"
	var ms []compare.Metric
	for _, m := range r.Metrics {
		if m.Unit != "ms" {
			ms = append(ms, m)
		}
	}
	last, err := b.metrics(s, ms)
	if err != nil {
		return err
	}
	n := last + 2
	b.row(s, n, "total", "", "A", "B")
	b.f.SetCellStyle(s, cell(1, n), cell(4, n), b.head)
	n++
	for _, c := range r.Counts {
		b.row(s, n, c.Name, "", c.A, c.B)
		n++
	}
	if len(r.Server) > 0 {
		n++
		b.row(s, n, "server metric (scraped)", "unit", "peak A", "peak B", "mean A", "mean B", "kind")
		b.f.SetCellStyle(s, cell(1, n), cell(7, n), b.head)
		n++
		for _, m := range r.Server {
			b.row(s, n, m.Name, m.Unit, m.PeakA, m.PeakB, m.MeanA, m.MeanB, m.Kind)
			n++
		}
	}
	return nil
}

func (b *book) sweep(r *compare.Report) error {
	const s = "Sweep"
	if err := b.header(s, "side", "file", "kind", "offered", "request throughput (req/s)", "output throughput (tok/s)",
		"TTFT p50 (ms)", "TTFT p99 (ms)", "TPOT p50 (ms)", "E2E p50 (ms)", "E2E p99 (ms)", "saturation at"); err != nil {
		return err
	}
	n := 2
	var series []excelize.ChartSeries
	for _, c := range r.Sweeps {
		first := n
		for _, p := range c.Points {
			b.row(s, n, strings.ToUpper(c.Side), c.Path, c.Kind, p.Offered, p.RequestThroughput, p.OutputThroughput,
				p.TTFTP50, p.TTFTP99, p.TPOTP50, p.E2EP50, p.E2EP99, c.SaturationAt)
			n++
		}
		if n > first {
			series = append(series, excelize.ChartSeries{
				Name:       fmt.Sprintf("%s!$A$%d", s, first),
				Categories: fmt.Sprintf("%s!$D$%d:$D$%d", s, first, n-1),
				Values:     fmt.Sprintf("%s!$F$%d:$F$%d", s, first, n-1),
				Marker:     excelize.ChartMarker{Symbol: "circle", Size: 6},
			})
		}
	}
	for c := 4; c <= 11; c++ {
		b.style(s, c, 2, n-1, b.num)
	}
	if len(series) == 0 {
		b.row(s, 2, "no sweep results given (benchmark --sweep-concurrency / --sweep-rate)")
		return nil
	}
	return b.f.AddChart(s, "N2", &excelize.Chart{
		Type:      excelize.Scatter,
		Series:    series,
		Title:     excelize.ChartTitle{Paragraph: []excelize.RichTextRun{{Text: "Output throughput vs offered load"}}},
		XAxis:     excelize.ChartAxis{Title: excelize.ChartTitle{Paragraph: []excelize.RichTextRun{{Text: "offered concurrency or rate"}}}},
		YAxis:     excelize.ChartAxis{Title: excelize.ChartTitle{Paragraph: []excelize.RichTextRun{{Text: "output tokens/s"}}}, MajorGridLines: true},
		Legend:    excelize.ChartLegend{Position: "bottom"},
		Dimension: excelize.ChartDimension{Width: 720, Height: 400},
	})
}

var regionOrder = []string{"attention", "ffn", "communication", "io", "other"}

// gpuSide is one side of the GPU comparison, named "A" or "B".
type gpuSide struct {
	name string
	g    *compare.SideGPU
}

// gpuSides returns the sides of r's GPU comparison that hold profiles, A
// first.
func gpuSides(r *compare.Report) []gpuSide {
	if r.GPU == nil {
		return nil
	}
	var out []gpuSide
	for _, sd := range []gpuSide{{"A", r.GPU.A}, {"B", r.GPU.B}} {
		if sd.g != nil {
			out = append(out, sd)
		}
	}
	return out
}

func (b *book) regions(r *compare.Report) error {
	const s = "Regions"
	// Wide layout: one row per (side, rank), busy ms per region, so that a
	// stacked column chart shows every rank of both engines side by side.
	cols := []string{"side", "rank", "gpu"}
	for _, rg := range regionOrder {
		cols = append(cols, rg+" busy (ms)")
	}
	cols = append(cols, "device busy (ms)", "summed (ms)", "window (ms)", "coverage", "bottleneck")
	for _, rg := range regionOrder {
		cols = append(cols, rg+" busy/token (ms)")
	}
	if err := b.header(s, cols...); err != nil {
		return err
	}
	n := 2
	if r.GPU == nil {
		b.row(s, 2, "no profiles given (--profile-a / --profile-b)")
		return nil
	}
	for _, sd := range gpuSides(r) {
		for _, rk := range sd.g.Ranks {
			vals := []any{sd.name, rk.Rank, rk.GPU}
			busy := map[string]int64{}
			perTok := map[string]*float64{}
			for _, rg := range rk.Regions {
				busy[rg.Region] = rg.BusyNs
				perTok[rg.Region] = rg.BusyPerOutputTokenNs
			}
			for _, rg := range regionOrder {
				vals = append(vals, float64(busy[rg])/1e6)
			}
			vals = append(vals, float64(rk.DeviceWorkBusyNs)/1e6, float64(rk.DeviceWorkSumNs)/1e6, float64(rk.WindowNs)/1e6,
				rk.Coverage.TimeShare, rk.Rank == sd.g.BottleneckRank)
			for _, rg := range regionOrder {
				if p := perTok[rg]; p != nil {
					vals = append(vals, *p/1e6)
				} else {
					vals = append(vals, nil)
				}
			}
			b.row(s, n, vals...)
			n++
		}
	}
	// Columns: 1-3 side, rank, gpu; 4-8 region busy; 9 device busy; 10
	// summed; 11 window (all ms); 12 coverage (a share); 13 bottleneck;
	// 14-18 busy per token (ms).
	last := n - 1
	nr := len(regionOrder)
	for c := 4; c <= 6+nr; c++ {
		b.style(s, c, 2, last, b.num3)
	}
	b.style(s, 7+nr, 2, last, b.pct)
	for c := 9 + nr; c <= 8+2*nr; c++ {
		b.style(s, c, 2, last, b.num3)
	}
	if last < 2 {
		return nil
	}
	var series []excelize.ChartSeries
	for i := range regionOrder {
		col := colName(4 + i)
		series = append(series, excelize.ChartSeries{
			Name:       fmt.Sprintf("%s!$%s$1", s, col),
			Categories: fmt.Sprintf("%s!$A$2:$B$%d", s, last),
			Values:     fmt.Sprintf("%s!$%s$2:$%s$%d", s, col, col, last),
		})
	}
	return b.f.AddChart(s, cell(1, last+3), &excelize.Chart{
		Type:      excelize.ColStacked,
		Series:    series,
		Title:     excelize.ChartTitle{Paragraph: []excelize.RichTextRun{{Text: "GPU busy time by region per rank (ms)"}}},
		Legend:    excelize.ChartLegend{Position: "bottom"},
		Dimension: excelize.ChartDimension{Width: 820, Height: 420},
	})
}

func (b *book) shapes(r *compare.Report) error {
	const s = "Shapes"
	if err := b.header(s, "side", "rank", "region", "grid", "block", "launches", "summed (ms)", "share of region"); err != nil {
		return err
	}
	if r.GPU == nil {
		return nil
	}
	n := 2
	for _, sd := range gpuSides(r) {
		for _, rk := range sd.g.Ranks {
			for _, sh := range compare.TopShapes(rk, 10) {
				b.row(s, n, sd.name, rk.Rank, sh.Region, present.LaunchDims(sh.Grid), present.LaunchDims(sh.Block), sh.Count, float64(sh.SumNs)/1e6, sh.TimeShare)
				n++
			}
			if it := rk.Iterations; it != nil {
				for _, bk := range it.TokensHistogram {
					b.row(s, n, sd.name, rk.Rank, "iterations", fmt.Sprintf("tokens [%d, %d)", bk.Lo, bk.Hi), "", bk.Count)
					n++
				}
			}
		}
	}
	b.style(s, 6, 2, n-1, b.intS)
	b.style(s, 7, 2, n-1, b.num3)
	b.style(s, 8, 2, n-1, b.pct)
	return nil
}

func (b *book) unmapped(r *compare.Report) error {
	const s = "Unmapped"
	if err := b.header(s, "side", "rank", "name", "count", "summed (ms)", "share of device time"); err != nil {
		return err
	}
	if r.GPU == nil {
		return nil
	}
	n := 2
	for _, sd := range gpuSides(r) {
		for _, rk := range sd.g.Ranks {
			b.row(s, n, sd.name, rk.Rank, "(unmapped total)", nil, nil, 1-rk.Coverage.TimeShare)
			n++
			for k, u := range rk.UnmappedTop {
				if k == 25 {
					break
				}
				b.row(s, n, sd.name, rk.Rank, u.Name, u.Count, float64(u.SumNs)/1e6, u.TimeShare)
				n++
			}
		}
	}
	b.style(s, 4, 2, n-1, b.intS)
	b.style(s, 5, 2, n-1, b.num3)
	b.style(s, 6, 2, n-1, b.pct)
	b.f.SetColWidth(s, "C", "C", 80)
	return nil
}

func (b *book) contract(r *compare.Report) error {
	const s = "Contract"
	if err := b.header(s, "field", "A", "B", "differs"); err != nil {
		return err
	}
	n := 2
	for _, c := range r.Contract {
		b.row(s, n, c.Name, c.A, c.B, c.A != c.B)
		n++
	}
	b.row(s, n, "workload sha256", r.Workload.SHA256A, r.Workload.SHA256B, r.Workload.SHA256A != r.Workload.SHA256B)
	b.row(s, n+1, "load", r.Workload.LoadA, r.Workload.LoadB, r.Workload.LoadA != r.Workload.LoadB)
	b.f.SetColWidth(s, "B", "C", 60)
	return nil
}

func (b *book) requests(r *compare.Report) error {
	const s = "Requests"
	if err := b.header(s, "side", "file", "id", "step", "ok", "error class", "TTFT (ms)", "E2E (ms)", "prompt tokens", "completion tokens", "finish reason"); err != nil {
		return err
	}
	n := 2
	for _, sd := range []struct {
		name  string
		files []compare.Records
	}{{"A", r.RequestsA}, {"B", r.RequestsB}} {
		for _, f := range sd.files {
			for _, rec := range f.Records {
				b.row(s, n, sd.name, f.Path, rec.ID, rec.Step, rec.OK, rec.ErrorClass, rec.TTFTMs, rec.E2EMs, rec.PromptTokens, rec.CompletionTokens, rec.FinishReason)
				n++
			}
		}
	}
	if n == 2 {
		b.row(s, 2, "no records given (--records-a / --records-b)")
		return nil
	}
	b.style(s, 7, 2, n-1, b.num3)
	b.style(s, 8, 2, n-1, b.num3)
	return nil
}
