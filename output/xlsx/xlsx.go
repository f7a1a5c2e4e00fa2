// Package xlsx writes a compare.Report as a review workbook: one sheet per
// part of the report (Summary, Latency, Throughput, Energy, Sweep, Regions,
// Shapes, Unmapped, Contract, Requests), raw numbers with real number formats and
// units in the headers, frozen header rows, columns as wide as their
// longest cell (capped, longer text wraps), and native charts: latency
// percentiles A vs B in two charts by scale (TTFT and E2E; TPOT and ITL),
// output throughput against offered load, output throughput against TPOT
// and TTFT across the sweep, GPU power over time per run, and stacked
// region bars per rank.
//
// GPU times are written in milliseconds, shares as fractions with a
// percentage format, p-values in scientific format (a p-value of 1e-12
// reads 1.00E-12, never 0.000). Chart series refer to their cells with
// quoted sheet names ('Sweep'!$D$2:$D$5) and plot numeric cells only.
package xlsx

import (
	"fmt"
	"io"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/servecmp/servecmp/compare"
	"github.com/servecmp/servecmp/internal/atomicfile"
	"github.com/servecmp/servecmp/output/plots"
	"github.com/servecmp/servecmp/output/present"
)

// Sheets lists the workbook's sheets in order.
var Sheets = []string{"Summary", "Latency", "Throughput", "Energy", "Sweep", "Regions", "Shapes", "Unmapped", "Contract", "Requests"}

// Options tunes the workbook.
type Options struct {
	// SLO maps a latency objective to its threshold in ms, with the keys
	// of plots.Options.SLO ("ttft_ms", "ttft_ms_p50", "ttft_ms_p99",
	// "tpot_ms", "tpot_ms_p50"). The Sweep sheet lists each, and the
	// throughput–latency chart whose x axis it bounds (TPOT p50, TTFT p99)
	// draws it as a vertical line.
	SLO map[string]float64
}

type book struct {
	f                                          *excelize.File
	head, num, num3, pct, intS, sci, wrap, top int
	slo                                        []present.SLOLine
	// charts are added last, once the column widths are final: a chart
	// is anchored to cells, so that wider columns would stretch it.
	charts []pendingChart
}

// pendingChart is a chart to add to a sheet at a cell.
type pendingChart struct {
	sheet, cell string
	chart       *excelize.Chart
}

// WriteFile writes the workbook of r to path (internal/atomicfile), with
// the SLO lines of o drawn on its charts.
func WriteFile(path string, r *compare.Report, o Options) error {
	f, err := BuildWith(r, o)
	if err != nil {
		return err
	}
	defer f.Close()
	return atomicfile.WriteFunc(path, func(w io.Writer) error {
		_, err := f.WriteTo(w)
		return err
	})
}

// Write writes the workbook of r to w (an output opened by the caller:
// a file of a run's directory).
func Write(w io.Writer, r *compare.Report, o Options) error {
	f, err := BuildWith(r, o)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.WriteTo(w)
	return err
}

// BuildWith is Build with options.
func BuildWith(r *compare.Report, o Options) (*excelize.File, error) {
	slo, err := present.ParseSLOLines(o.SLO)
	if err != nil {
		return nil, fmt.Errorf("xlsx: %w", err)
	}
	f := excelize.NewFile()
	b := &book{f: f, slo: slo}
	if err := b.styles(); err != nil {
		return nil, err
	}
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
	for _, step := range []func(*compare.Report) error{b.summary, b.latency, b.throughput, b.energy, b.sweep, b.regions, b.shapes, b.unmapped, b.contract, b.requests} {
		if err := step(r); err != nil {
			return nil, err
		}
	}
	for _, s := range Sheets {
		if err := b.fitColumns(s); err != nil {
			return nil, err
		}
		if err := b.pageSetup(s); err != nil {
			return nil, err
		}
	}
	for _, c := range b.charts {
		if err := f.AddChart(c.sheet, c.cell, c.chart); err != nil {
			return nil, fmt.Errorf("chart %q on sheet %s: %w", chartTitle(c.chart), c.sheet, err)
		}
	}
	if err := b.forest(r); err != nil {
		return nil, err
	}
	f.SetActiveSheet(0)
	return f, nil
}

// ForestCell is where the forest of every metric's relative difference
// (plots.Forest) opens the Summary sheet, right of its text.
const ForestCell = "F1"

// forest puts the forest figure on the Summary sheet as a picture: the
// metrics at a glance, B/A with its interval; a report without metrics
// has none.
func (b *book) forest(r *compare.Report) error {
	fig, ok := plots.Forest(r)
	if !ok {
		return nil
	}
	png, err := fig.PNG()
	if err != nil {
		return fmt.Errorf("forest: %w", err)
	}
	return b.f.AddPictureFromBytes("Summary", ForestCell, &excelize.Picture{Extension: ".png", File: png,
		Format: &excelize.GraphicOptions{AltText: "Every metric: B relative to A with its interval (forest plot)", ScaleX: 0.6, ScaleY: 0.6}})
}

// Number formats of the cells, by what they hold.
const (
	fmtNum2   = "0.00"
	fmtNum3   = "0.000"
	fmtPct    = "0.0%"
	fmtPValue = "0.00E+00"
)

func (b *book) styles() error {
	f := b.f
	var err error
	if b.head, err = f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}, Fill: excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"DDEBF7"}}}); err != nil {
		return err
	}
	for _, st := range []struct {
		dst *int
		s   excelize.Style
	}{
		{&b.num, excelize.Style{CustomNumFmt: ptr(fmtNum2)}},
		{&b.num3, excelize.Style{CustomNumFmt: ptr(fmtNum3)}},
		{&b.pct, excelize.Style{CustomNumFmt: ptr(fmtPct)}},
		{&b.sci, excelize.Style{CustomNumFmt: ptr(fmtPValue)}},
		{&b.intS, excelize.Style{NumFmt: 3}}, // #,##0
		{&b.wrap, excelize.Style{Alignment: &excelize.Alignment{WrapText: true, Vertical: "top"}}},
		{&b.top, excelize.Style{Alignment: &excelize.Alignment{Vertical: "top"}}},
	} {
		if *st.dst, err = f.NewStyle(&st.s); err != nil {
			return err
		}
	}
	return nil
}

func ptr[T any](v T) *T { return &v }

// chartTitle returns the plain text of a chart's title.
func chartTitle(c *excelize.Chart) string {
	var t string
	for _, r := range c.Title.Paragraph {
		t += r.Text
	}
	return t
}

// ref returns an absolute reference to a cell range of sheet, the sheet
// name quoted so that names with spaces or punctuation stay valid:
// 'Sweep'!$D$2:$D$5.
func ref(sheet string, col1, row1, col2, row2 int) string {
	q := "'" + strings.ReplaceAll(sheet, "'", "''") + "'!"
	a := fmt.Sprintf("$%s$%d", colName(col1), row1)
	if col1 == col2 && row1 == row2 {
		return q + a
	}
	return q + a + fmt.Sprintf(":$%s$%d", colName(col2), row2)
}

// title is a chart or axis title.
func title(s string) excelize.ChartTitle {
	return excelize.ChartTitle{Paragraph: []excelize.RichTextRun{{Text: s}}}
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
	for i, l := range present.Conclusion(r) {
		k := ""
		if i == 0 {
			k = "conclusion"
		}
		b.row(s, n, k, l)
		n++
	}
	n++
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
	return nil
}

func (b *book) metrics(sheet string, ms []compare.Metric) (int, error) {
	if err := b.header(sheet, "name", "unit", "a", "b", "delta (%)", "verdict", "p_value", "ci_low", "ci_high", "method", "n_a", "n_b", "sd_a", "sd_b", "note"); err != nil {
		return 0, err
	}
	n := 2
	for _, m := range ms {
		var d any
		if m.DeltaPct != nil {
			d = *m.DeltaPct / 100
		}
		if err := b.row(sheet, n, m.Name, m.Unit, m.A, m.B, d, string(m.Verdict), m.PValue, m.CILow, m.CIHigh, m.Method, m.NA, m.NB, m.SDA, m.SDB, m.Note); err != nil {
			return 0, err
		}
		n++
	}
	last := n - 1
	for _, c := range []int{3, 4, 8, 9, 13, 14} {
		b.style(sheet, c, 2, last, b.num3)
	}
	b.style(sheet, 5, 2, last, b.pct)
	b.style(sheet, 7, 2, last, b.sci)
	b.style(sheet, 11, 2, last, b.intS)
	b.style(sheet, 12, 2, last, b.intS)
	return last, nil
}

// latencyGroups orders the Latency rows by scale, so that each chart reads
// one contiguous block: first token and end to end (hundreds of ms), then
// per token (a few ms). Rows of other kinds follow, uncharted.
var latencyGroups = []struct {
	title string
	kinds []string
}{
	{"TTFT and E2E latency, A vs B (ms)", []string{"ttft_ms", "e2e_ms"}},
	{"TPOT and ITL, A vs B (ms)", []string{"tpot_ms", "itl_ms", "itl_per_token_ms"}},
}

// latencyRows returns the latency metrics of r grouped as latencyGroups,
// and the number of rows in each group.
func latencyRows(r *compare.Report) ([]compare.Metric, []int) {
	var out []compare.Metric
	counts := make([]int, len(latencyGroups))
	used := map[int]bool{}
	for g, grp := range latencyGroups {
		for _, kind := range grp.kinds {
			for i, m := range r.Metrics {
				if k, _ := compare.SplitMetric(m.Name); m.Unit == "ms" && k == kind {
					out = append(out, m)
					counts[g]++
					used[i] = true
				}
			}
		}
	}
	for i, m := range r.Metrics {
		if m.Unit == "ms" && !used[i] {
			out = append(out, m)
		}
	}
	return out, counts
}

func (b *book) latency(r *compare.Report) error {
	const s = "Latency"
	ms, counts := latencyRows(r)
	if _, err := b.metrics(s, ms); err != nil {
		return err
	}
	first, at := 2, 2
	for g, n := range counts {
		if n == 0 {
			continue
		}
		last := first + n - 1
		var series []excelize.ChartSeries
		for i, col := range []int{3, 4} {
			series = append(series, excelize.ChartSeries{
				Name: ref(s, col, 1, col, 1), Categories: ref(s, 1, first, 1, last), Values: ref(s, col, first, col, last),
				Fill: solid(sideColors[i]),
			})
		}
		b.charts = append(b.charts, pendingChart{s, cell(17, at), &excelize.Chart{
			Type: excelize.Col, Series: series, Title: title(latencyGroups[g].title),
			YAxis:     excelize.ChartAxis{Title: title("ms"), MajorGridLines: true, Minimum: ptr(0.0)},
			Legend:    excelize.ChartLegend{Position: "bottom"},
			Dimension: excelize.ChartDimension{Width: 900, Height: 400},
		}})
		first, at = last+1, at+22
	}
	return nil
}

// sideColors are A's and B's colours, as in the plots.
var sideColors = []string{"1F77B4", "D62728"}

// solid is a solid fill of an RRGGBB colour.
func solid(rgb string) excelize.Fill {
	return excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{rgb}}
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
		cols = append(cols, rg+"_busy (ms)")
	}
	cols = append(cols, "device_work_busy (ms)", "device_work_sum (ms)", "window (ms)", "coverage_time (%)", "bottleneck")
	for _, rg := range regionOrder {
		cols = append(cols, rg+"_busy_per_output_token (ms)")
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
		series = append(series, excelize.ChartSeries{
			Name:       ref(s, 4+i, 1, 4+i, 1),
			Categories: ref(s, 1, 2, 2, last),
			Values:     ref(s, 4+i, 2, 4+i, last),
		})
	}
	b.charts = append(b.charts, pendingChart{s, cell(1, last+3), &excelize.Chart{
		Type:      excelize.ColStacked,
		Series:    series,
		Title:     title("GPU busy time by region per rank (ms)"),
		YAxis:     excelize.ChartAxis{Title: title("ms"), MajorGridLines: true, Minimum: ptr(0.0)},
		Legend:    excelize.ChartLegend{Position: "bottom"},
		Dimension: excelize.ChartDimension{Width: 820, Height: 420},
	}})
	return nil
}

func (b *book) shapes(r *compare.Report) error {
	const s = "Shapes"
	if err := b.header(s, "side", "rank", "region", "grid", "block", "count", "sum (ms)", "time (%)"); err != nil {
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
	if err := b.header(s, "side", "rank", "name", "count", "sum (ms)", "time (%)"); err != nil {
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
	return nil
}

func (b *book) contract(r *compare.Report) error {
	const s = "Contract"
	if err := b.header(s, "name", "a", "b", "differs"); err != nil {
		return err
	}
	n := 2
	for _, c := range r.Contract {
		b.row(s, n, c.Name, c.A, c.B, c.A != c.B)
		n++
	}
	b.row(s, n, "workload sha256", r.Workload.SHA256A, r.Workload.SHA256B, r.Workload.SHA256A != r.Workload.SHA256B)
	b.row(s, n+1, "load", r.Workload.LoadA, r.Workload.LoadB, r.Workload.LoadA != r.Workload.LoadB)
	return nil
}

func (b *book) requests(r *compare.Report) error {
	const s = "Requests"
	if err := b.header(s, "side", "path", "id", "step", "ok", "error_class", "ttft_ms", "e2e_ms", "prompt_tokens", "completion_tokens", "finish_reason"); err != nil {
		return err
	}
	n := 2
	for _, sd := range []struct {
		name  string
		files []compare.Records
	}{{"A", r.RequestsA}, {"B", r.RequestsB}} {
		for _, f := range sd.files {
			for _, rec := range f.Records {
				ttft, e2e := rec.Latencies() // empty cells, not 0, for a failed request
				b.row(s, n, sd.name, f.Path, rec.ID, rec.Step, rec.OK, rec.ErrorClass, ttft, e2e, rec.PromptTokens, rec.CompletionTokens, rec.FinishReason)
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
