package present

import (
	"fmt"
	"io"
	"strings"

	"github.com/servecmp/servecmp/classify"
	"github.com/servecmp/servecmp/compare"
	"github.com/servecmp/servecmp/output/table"
)

// WriteComparison writes rep in a canonical format name (table.Lookup):
// text and markdown frame the tables with the headline, the two layers,
// the notes and the profiling limitations; json is the report itself,
// the versioned saved type; any other format is the tables through its
// encoder.
func WriteComparison(w io.Writer, rep *compare.Report, format string) error {
	switch format {
	case "text":
		return comparisonText(w, rep)
	case "markdown":
		return comparisonMarkdown(w, rep)
	case "json":
		return rep.WriteJSON(w)
	}
	_, enc, err := table.Lookup(format)
	if err != nil {
		return err
	}
	return enc(w, Comparison(rep))
}

// Comparison returns the report as tables of raw values: layer 1 (contract,
// differences, metrics, counts, server metrics, GPU energy, sweeps) first, then layer 2
// when profiles were given. Display precision is left to the encoders: the
// float columns carry Digits 4, p-values Floor 0.0001.
func Comparison(rep *compare.Report) []*table.Table {
	ts := []*table.Table{contractTable(rep), differencesTable(rep), metricsTable(rep), countsTable(rep)}
	if len(rep.Server) > 0 {
		ts = append(ts, serverTable(rep))
	}
	if rep.Energy != nil {
		ts = append(ts, energyTable(rep))
	}
	for _, sc := range rep.Sweeps {
		ts = append(ts, sweepTable(sc))
	}
	if rep.SLO != nil {
		ts = append(ts, sloTable(rep.SLO))
	}
	if rep.GPU != nil {
		ts = append(ts, gpuTables(rep.GPU)...)
	}
	return ts
}

// layer1Count is how many of Comparison's tables belong to layer 1.
func layer1Count(rep *compare.Report) int {
	n := 4 + len(rep.Sweeps)
	if len(rep.Server) > 0 {
		n++
	}
	if rep.Energy != nil {
		n++
	}
	if rep.SLO != nil {
		n++
	}
	return n
}

// rowUnit marks a column whose unit is the row's (table.Column.RowUnit).
func rowUnit(c table.Column) table.Column {
	c.RowUnit = true
	return c
}

// textCol is a text column; num a float column shown with 4 significant digits.
func textCol(name string) table.Column { return table.Column{Name: name} }
func num(name, unit string) table.Column {
	return table.Column{Name: name, Unit: unit, Digits: 4}
}

// longText is a text column whose long values (a launch command line,
// how the engine was detected) Text moves to footnotes.
func longText(name string) table.Column { return table.Column{Name: name, Footnote: true} }

func contractTable(rep *compare.Report) *table.Table {
	t := &table.Table{Name: "contract", Title: "Resource contract and configuration", Columns: []table.Column{textCol("name"), longText("a"), longText("b")}, Key: 1}
	for _, f := range rep.Contract {
		t.Add(f.Name, orDash(f.A), orDash(f.B))
	}
	return t
}

func differencesTable(rep *compare.Report) *table.Table {
	t := &table.Table{Name: "differences", Title: "Differences between A and B", Columns: []table.Column{textCol("field"), longText("a"), longText("b"), textCol("status")}, Key: 1}
	for _, x := range rep.Differences {
		st := "differs"
		switch {
		case x.Intentional:
			st = "intentional"
		case x.Critical:
			st = "NOT COMPARABLE"
		}
		t.Add(x.Field, orDash(x.A), orDash(x.B), st)
	}
	if len(rep.Differences) == 0 {
		t.Notes = append(t.Notes, "no manifest, workload or load field differs")
	}
	return t
}

func metricsTable(rep *compare.Report) *table.Table {
	p := num("p_value", table.Count)
	p.Floor, p.Digits = 1e-4, 2 // more digits of a p-value are noise
	p.Drop = 1                  // the last to go: the interval beside it says more
	t := &table.Table{Name: "metrics", Title: "Serving metrics (delta = (B-A)/A; verdict a/b = that side is better, ~ = not distinguishable, " +
		"needs more runs = too few runs for their spread; mdd = smallest detectable difference, % of A; n_a/n_b = runs)",
		Columns: []table.Column{textCol("name"), textCol("unit"), rowUnit(num("a", table.Count)), rowUnit(num("b", table.Count)), num("delta", "%"),
			textCol("verdict"), p, rowUnit(num("ci_low", table.Count)), rowUnit(num("ci_high", table.Count)),
			{Name: "method", Drop: 5}, {Name: "n_a", Unit: table.Count, Drop: 4}, {Name: "n_b", Unit: table.Count, Drop: 4},
			{Name: "mdd", Unit: "%", Digits: 4, Drop: 2}, {Name: "runs_needed", Unit: table.Count}}, Key: 1}
	for _, x := range rep.Metrics {
		var need any
		if x.RunsNeeded > 0 {
			need = int64(x.RunsNeeded)
		}
		t.Add(x.Name, x.Unit, x.A, x.B, orNil(x.DeltaPct), string(x.Verdict), orNil(x.PValue),
			orNil(x.CILow), orNil(x.CIHigh), x.Method, int64(x.NA), int64(x.NB), orNil(x.MDDPct), need)
		if x.Note != "" {
			t.Notes = appendOnce(t.Notes, x.Note)
		}
	}
	return t
}

func countsTable(rep *compare.Report) *table.Table {
	t := &table.Table{Name: "counts", Title: "Totals over all runs", Columns: []table.Column{textCol("name"), num("a", table.Count), num("b", table.Count)}}
	for _, x := range rep.Counts {
		t.Add(x.Name, x.A, x.B)
	}
	return t
}

func serverTable(rep *compare.Report) *table.Table {
	t := &table.Table{Name: "server_metrics", Title: "Server-side metrics (scraped; gauges: in-window peak over runs and mean level; counters: largest and mean increase per run)",
		Columns: []table.Column{textCol("name"), textCol("unit"), textCol("kind"), rowUnit(num("peak_a", table.Count)), rowUnit(num("peak_b", table.Count)),
			rowUnit(num("mean_a", table.Count)), rowUnit(num("mean_b", table.Count))}, Key: 1}
	for _, m := range rep.Server {
		t.Add(m.Name, m.Unit, m.Kind, orNil(m.PeakA), orNil(m.PeakB), orNil(m.MeanA), orNil(m.MeanB))
	}
	return t
}

func sweepTable(sc compare.SweepCurve) *table.Table {
	t := &table.Table{Name: "sweep_" + sc.Side, Title: fmt.Sprintf("Sweep %s (%s, %s)", strings.ToUpper(sc.Side), sc.Kind, sc.Path),
		Columns: []table.Column{num("offered", table.Count), num("request_throughput", "req/s"), num("output_throughput", "tok/s"),
			num("ttft_ms_p50", "ms"), num("ttft_ms_p99", "ms"), num("tpot_ms_p50", "ms"), num("e2e_ms_p50", "ms"), {Name: "e2e_ms_p99", Unit: "ms", Digits: 4, Drop: 1}}}
	for _, p := range sc.Points {
		t.Add(p.Offered, p.RequestThroughput, p.OutputThroughput, p.TTFTP50, p.TTFTP99, p.TPOTP50, p.E2EP50, p.E2EP99)
	}
	if sc.SaturationAt != nil {
		t.Notes = append(t.Notes, fmt.Sprintf("saturation observed at %g", *sc.SaturationAt))
	} else {
		t.Notes = append(t.Notes, "no saturation observed: throughput still improved at the last step")
	}
	return t
}

// gpuSide pairs each side's name with its GPU time, A first.
type gpuSide struct {
	name string
	s    *compare.SideGPU
}

func gpuTables(g *compare.GPUTime) []*table.Table {
	var ts []*table.Table
	for _, sd := range []gpuSide{{"a", g.A}, {"b", g.B}} {
		if sd.s != nil {
			ts = append(ts, gpuRegionsTable(sd))
		}
	}
	if len(g.Deltas) > 0 {
		ts = append(ts, deltasTable(g))
	}
	return append(ts, bottleneckTables(g)...)
}

func gpuRegionsTable(sd gpuSide) *table.Table {
	t := &table.Table{Name: "regions_" + sd.name, Title: fmt.Sprintf("GPU time by region, %s (bottleneck rank %s)", strings.ToUpper(sd.name), sd.s.BottleneckRank),
		Columns: []table.Column{textCol("rank"), textCol("gpu"), textCol("region"), {Name: "count", Unit: table.Count}, {Name: "busy", Unit: table.NS},
			{Name: "sum", Unit: table.NS}, num("busy_share", table.Share), {Name: "busy_per_request", Unit: table.NSPerReq, Drop: 1},
			{Name: "busy_per_output_token", Unit: table.NSPerTok}}}
	for _, rk := range sd.s.Ranks {
		for _, rg := range rk.Regions {
			t.Add(rk.Rank, rk.GPU, rg.Region, rg.Count, rg.BusyNs, rg.SumNs, rg.BusyShare, orNil(rg.BusyPerRequestNs), orNil(rg.BusyPerOutputTokenNs))
		}
		t.Add(rk.Rank, rk.GPU, "all device work", rk.DeviceWork, rk.DeviceWorkBusyNs, rk.DeviceWorkSumNs, rk.BusyShare, nil, nil)
	}
	t.Notes = append(t.Notes, "busy = union of the region's intervals on the rank; busy shares are of the rank's device-busy time and may add to more than 100% where regions overlap; the last row's share is busy/window")
	return t
}

func deltasTable(g *compare.GPUTime) *table.Table {
	unit := map[string]string{"output_token": table.NSPerTok, "request": table.NSPerReq, "none": table.NS}[g.Basis]
	t := &table.Table{Name: "region_deltas", Title: "Region deltas, bottleneck rank A vs bottleneck rank B (busy per " + g.Basis + ")",
		Columns: []table.Column{textCol("region"), {Name: "busy_per_work_ns_a", Unit: unit}, {Name: "busy_per_work_ns_b", Unit: unit}, num("delta", "%"),
			num("busy_share_a", table.Share), num("busy_share_b", table.Share)}}
	for _, d := range g.Deltas {
		t.Add(d.Region, orNil(d.PerWorkA), orNil(d.PerWorkB), orNil(d.DeltaPct), d.BusyShareA, d.BusyShareB)
	}
	if g.WorkFrom != "" {
		t.Notes = append(t.Notes, "per "+g.Basis+" of the work each profile window completed, recorded by servecmp profile ("+g.WorkFrom+")")
	}
	return t
}

// bottleneckTables are the launch shapes, iteration mix and unmapped work
// of each side's bottleneck rank.
func bottleneckTables(g *compare.GPUTime) []*table.Table {
	sh := &table.Table{Name: "shapes", Title: "Top launch shapes per region (bottleneck ranks)",
		Columns: []table.Column{textCol("side"), textCol("rank"), textCol("region"), textCol("grid"), textCol("block"), {Name: "count", Unit: table.Count},
			{Name: "sum", Unit: table.NS}, num("time", table.Share)}}
	it := &table.Table{Name: "iterations", Title: "Iteration mix and tokens per iteration (bottleneck ranks)",
		Columns: []table.Column{textCol("side"), textCol("rank"), textCol("bucket"), {Name: "iterations", Unit: table.Count}}}
	un := &table.Table{Name: "unmapped", Title: "Unmapped device work (top names, bottleneck ranks)",
		Columns: []table.Column{textCol("side"), textCol("rank"), textCol("name"), {Name: "count", Unit: table.Count}, {Name: "sum", Unit: table.NS}, num("time", table.Share)}}
	for _, sd := range []gpuSide{{"A", g.A}, {"B", g.B}} {
		b := sd.s.Bottleneck()
		if b == nil {
			continue
		}
		for _, s := range compare.TopShapes(b, 3) {
			sh.Add(sd.name, b.Rank, s.Region, LaunchDims(s.Grid), LaunchDims(s.Block), s.Count, s.SumNs, s.TimeShare)
		}
		addIterations(it, sd.name, b)
		un.Add(sd.name, b.Rank, "(unmapped total)", nil, nil, 1-b.Coverage.TimeShare)
		for k, n := range b.UnmappedTop {
			if k == 5 {
				break
			}
			un.Add(sd.name, b.Rank, n.Name, n.Count, n.SumNs, n.TimeShare)
		}
	}
	return []*table.Table{sh, it, un}
}

func addIterations(t *table.Table, side string, b *classify.RankSummary) {
	i := b.Iterations
	if i == nil {
		t.Add(side, b.Rank, "no iteration ranges in the window", nil)
		return
	}
	t.Add(side, b.Rank, "prefill iterations", i.Prefill.Iterations)
	t.Add(side, b.Rank, "decode-only iterations", i.Decode.Iterations)
	for _, k := range i.TokensHistogram {
		t.Add(side, b.Rank, fmt.Sprintf("tokens [%d, %d)", k.Lo, k.Hi), k.Count)
	}
}

// LaunchDims writes a kernel launch's grid or block dimension as 132x1x1.
func LaunchDims(d [3]int32) string {
	return fmt.Sprintf("%dx%dx%d", d[0], d[1], d[2])
}

func appendOnce(s []string, v string) []string {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Headline returns a comparison's opening lines: the verdict, workload,
// load, phase, runs, intentional differences and correctness status.
func Headline(rep *compare.Report) []string {
	var out []string
	if rep.Comparable {
		out = append(out, "COMPARABLE: model, workload, load and resource contract agree (or differ as declared)")
	} else {
		for _, f := range rep.NotComparable {
			out = append(out, "NOT COMPARABLE: "+f+" differs")
		}
		out = append(out, "metrics are shown but no claim that one system is faster holds across these differences")
	}
	if s := rep.Inputs.Sentence(); s != "" {
		out = append(out, "inputs: "+s)
	}
	w := rep.Workload
	sha := abbrevSHA(w.SHA256A)
	if w.SHA256B != w.SHA256A {
		sha += " (A) vs " + abbrevSHA(w.SHA256B) + " (B)"
	}
	out = append(out, fmt.Sprintf("workload: sha256 %s, %d requests", sha, w.CountA))
	if w.LoadA == w.LoadB {
		out = append(out, "load: "+w.LoadA)
	} else {
		out = append(out, "load: A "+w.LoadA+"; B "+w.LoadB)
	}
	out = append(out, "phase: "+rep.Phase, fmt.Sprintf("runs: A %d, B %d, %s", len(rep.RunsA), len(rep.RunsB), runOrder(rep.Design)))
	var intent []string
	for _, d := range rep.Differences {
		if d.Intentional {
			intent = append(intent, d.Field)
		}
	}
	if len(intent) == 0 {
		intent = []string{"none declared"}
	}
	out = append(out, "intentional differences: "+strings.Join(intent, ", "))
	if rep.SLO != nil {
		out = append(out, "slo: "+rep.SLO.Objective+" (goodput and capacity rows below)")
	}
	return append(out, correctnessLines(rep.Correctness)...)
}

// runOrder says in a few words how the runs were ordered and whether the
// verdicts paired them.
func runOrder(d compare.Design) string {
	switch {
	case d.Paired:
		return "interleaved in counterbalanced pairs (paired analysis)"
	case d.Layout == "interleaved" && d.Counterbalanced:
		return "interleaved, counterbalanced (unpaired: too few pairs to pair)"
	case d.Layout == "interleaved":
		return "interleaved, one side first in every pair (unpaired)"
	case d.Layout == "blocked":
		return "blocked (drift falls on one side)"
	case d.Layout == "unknown" || d.Layout == "":
		return "order unknown"
	}
	return d.Layout + " order (unpaired)"
}

func correctnessLines(c compare.Correctness) []string {
	line := "correctness: not checked"
	if c.Checked {
		st := "PASSED"
		if !c.Passed {
			st = "FAILED"
		}
		line = fmt.Sprintf("correctness: %s, %d/%d requests match exactly (evidence: %s; %d failed)", st, c.ExactMatch, c.Requests, c.Evidence, c.Failed)
	}
	q := "quality: " + c.Quality
	if c.QualityNote != "" {
		q += " (" + c.QualityNote + ")"
	}
	return []string{line, q}
}

// abbrevSHA shortens a digest for display to its first 16 hex digits and
// "…"; an empty one is "-".
func abbrevSHA(sha string) string {
	if len(sha) > 16 {
		return sha[:16] + "…"
	}
	if sha == "" {
		return "-"
	}
	return sha
}

const (
	layer1Heading = "Layer 1: overall serving performance"
	layer2Heading = "Layer 2: where the GPU time went (diagnostic only)"
)

// comparisonText is the plain-text reading of a comparison: the
// conclusion first, then the two layers.
//
// Lines wrap at table.WrapWidth (a conclusion's continuation lines are
// indented by two spaces) and tables keep within table.TextWidth.
func comparisonText(w io.Writer, rep *compare.Report) error {
	var b strings.Builder
	wrapList(&b, "", "  ", Conclusion(rep))
	b.WriteString("\n== " + layer1Heading + " ==\n")
	wrapList(&b, "", "  ", Headline(rep))
	b.WriteByte('\n')
	ts := Comparison(rep)
	n1 := layer1Count(rep)
	if err := table.Text(&b, ts[:n1]); err != nil {
		return err
	}
	wrapList(&b, "note: ", "      ", rep.Notes)
	wrapList(&b, "warning: ", "         ", rep.Warnings)
	if rep.GPU != nil {
		b.WriteString("\n== " + layer2Heading + " ==\n")
		if err := table.Text(&b, ts[n1:]); err != nil {
			return err
		}
		b.WriteString("\nprofiling limitations:\n")
		wrapList(&b, "  - ", "    ", rep.GPU.Limitations)
		wrapList(&b, "", "", []string{rep.GPU.Note})
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// wrapList writes each item wrapped at table.WrapWidth, its first line
// after first, the others after rest.
func wrapList(b *strings.Builder, first, rest string, items []string) {
	for _, s := range items {
		for _, l := range table.Wrap(s, table.WrapWidth, first, rest) {
			b.WriteString(l + "\n")
		}
	}
}

// comparisonMarkdown is the Markdown reading of a comparison: the
// conclusion first (its answer in bold), then the two layers.
func comparisonMarkdown(w io.Writer, rep *compare.Report) error {
	var b strings.Builder
	c := Conclusion(rep)
	b.WriteString("**" + c[0] + "**\n\n")
	writeList(&b, "- ", c[1:])
	b.WriteString("\n## " + layer1Heading + "\n\n")
	writeList(&b, "- ", Headline(rep))
	ts := Comparison(rep)
	n1 := layer1Count(rep)
	b.WriteByte('\n')
	if err := table.Markdown(&b, ts[:n1]); err != nil {
		return err
	}
	if len(rep.Notes)+len(rep.Warnings) > 0 {
		b.WriteByte('\n')
		writeList(&b, "- note: ", rep.Notes)
		writeList(&b, "- **warning**: ", rep.Warnings)
	}
	if len(ts) > n1 {
		b.WriteString("\n## " + layer2Heading + "\n\n")
		if err := table.Markdown(&b, ts[n1:]); err != nil {
			return err
		}
	}
	if rep.GPU != nil {
		b.WriteString("\n**Profiling limitations**\n\n")
		writeList(&b, "- ", rep.GPU.Limitations)
		b.WriteString("\n> " + rep.GPU.Note + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeList(b *strings.Builder, prefix string, items []string) {
	for _, s := range items {
		b.WriteString(prefix + s + "\n")
	}
}
