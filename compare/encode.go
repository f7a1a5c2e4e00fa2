package compare

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/servecmp/servecmp/classify"
	"github.com/servecmp/servecmp/internal/table"
)

// Formats lists the report encoders.
var Formats = []string{"text", "markdown", "json", "csv"}

// Write encodes the report in one of Formats.
func (r *Report) Write(w io.Writer, format string) error {
	switch format {
	case "text", "":
		return r.writeText(w)
	case "markdown", "md":
		return r.writeMarkdown(w)
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	case "csv":
		return table.CSV(w, r.Tables(true))
	}
	return fmt.Errorf("unknown format %q (want one of %s)", format, strings.Join(Formats, ", "))
}

// round keeps 4 significant decimals for display.
func round(f float64, raw bool) any {
	if raw || math.IsNaN(f) || math.IsInf(f, 0) {
		return f
	}
	if f == 0 {
		return 0.0
	}
	mag := math.Floor(math.Log10(math.Abs(f)))
	scale := math.Pow(10, 3-mag)
	if mag >= 3 {
		return math.Round(f*10) / 10
	}
	return math.Round(f*scale) / scale
}

func optF(p *float64, raw bool) any {
	if p == nil {
		return nil
	}
	return round(*p, raw)
}

// Tables returns the report as tables: layer 1 first, then layer 2. With
// raw false, floats are rounded for display.
func (r *Report) Tables(raw bool) []*table.Table {
	var ts []*table.Table
	c := &table.Table{Name: "contract", Title: "Resource contract and configuration", Columns: []table.Column{{Name: "field"}, {Name: "a"}, {Name: "b"}}}
	for _, f := range r.Contract {
		c.Add(f.Name, orDash(f.A), orDash(f.B))
	}
	ts = append(ts, c)
	d := &table.Table{Name: "differences", Title: "Differences between A and B", Columns: []table.Column{{Name: "field"}, {Name: "a"}, {Name: "b"}, {Name: "status"}}}
	for _, x := range r.Differences {
		st := "differs"
		switch {
		case x.Intentional:
			st = "intentional"
		case x.Critical:
			st = "NOT COMPARABLE"
		}
		d.Add(x.Field, orDash(x.A), orDash(x.B), st)
	}
	if len(r.Differences) == 0 {
		d.Notes = append(d.Notes, "no manifest, workload or load field differs")
	}
	ts = append(ts, d)
	m := &table.Table{Name: "metrics", Title: "Serving metrics (delta = (B-A)/A; verdict a/b = that side is better, ~ = not distinguishable)",
		Columns: []table.Column{{Name: "metric"}, {Name: "unit"}, {Name: "a", Unit: table.Count}, {Name: "b", Unit: table.Count}, {Name: "delta", Unit: "%"},
			{Name: "verdict"}, {Name: "p", Unit: table.Count}, {Name: "ci_low", Unit: table.Count}, {Name: "ci_high", Unit: table.Count},
			{Name: "method"}, {Name: "n_a", Unit: table.Count}, {Name: "n_b", Unit: table.Count}}}
	for _, x := range r.Metrics {
		m.Add(x.Name, x.Unit, round(x.A, raw), round(x.B, raw), optF(x.DeltaPct, raw), x.Verdict, pval(x.PValue, raw),
			optF(x.CILow, raw), optF(x.CIHigh, raw), x.Method, int64(x.NA), int64(x.NB))
		if x.Note != "" {
			m.Notes = appendOnce(m.Notes, x.Note)
		}
	}
	ts = append(ts, m)
	cn := &table.Table{Name: "counts", Title: "Totals over all runs", Columns: []table.Column{{Name: "figure"}, {Name: "a", Unit: table.Count}, {Name: "b", Unit: table.Count}}}
	for _, x := range r.Counts {
		cn.Add(x.Name, round(x.A, raw), round(x.B, raw))
	}
	ts = append(ts, cn)
	if len(r.Server) > 0 {
		sv := &table.Table{Name: "server_metrics", Title: "Server-side metrics (scraped; gauges: in-window peak over runs and mean level; counters: largest and mean increase per run)",
			Columns: []table.Column{{Name: "metric"}, {Name: "unit"}, {Name: "kind"}, {Name: "peak_a", Unit: table.Count}, {Name: "peak_b", Unit: table.Count},
				{Name: "mean_a", Unit: table.Count}, {Name: "mean_b", Unit: table.Count}}}
		for _, m := range r.Server {
			sv.Add(m.Name, m.Unit, m.Kind, optF(m.PeakA, raw), optF(m.PeakB, raw), optF(m.MeanA, raw), optF(m.MeanB, raw))
		}
		ts = append(ts, sv)
	}
	for _, sc := range r.Sweeps {
		t := &table.Table{Name: "sweep_" + sc.Side, Title: fmt.Sprintf("Sweep %s (%s, %s)", strings.ToUpper(sc.Side), sc.Kind, sc.Path),
			Columns: []table.Column{{Name: "offered", Unit: table.Count}, {Name: "request_throughput", Unit: "req/s"}, {Name: "output_throughput", Unit: "tok/s"},
				{Name: "ttft_p50", Unit: "ms"}, {Name: "ttft_p99", Unit: "ms"}, {Name: "tpot_p50", Unit: "ms"}, {Name: "e2e_p50", Unit: "ms"}, {Name: "e2e_p99", Unit: "ms"}}}
		for _, p := range sc.Points {
			t.Add(round(p.Offered, raw), round(p.RequestThroughput, raw), round(p.OutputThroughput, raw), round(p.TTFTP50, raw),
				round(p.TTFTP99, raw), round(p.TPOTP50, raw), round(p.E2EP50, raw), round(p.E2EP99, raw))
		}
		if sc.SaturationAt != nil {
			t.Notes = append(t.Notes, fmt.Sprintf("saturation observed at %g", *sc.SaturationAt))
		} else {
			t.Notes = append(t.Notes, "no saturation observed: throughput still improved at the last step")
		}
		ts = append(ts, t)
	}
	if r.GPU != nil {
		ts = append(ts, r.GPU.tables(raw)...)
	}
	return ts
}

// layer1Tables is how many of Tables' tables belong to layer 1.
func (r *Report) layer1Tables() int {
	n := 4 + len(r.Sweeps)
	if len(r.Server) > 0 {
		n++
	}
	return n
}

// pval shows tiny p-values as "<0.0001" for display.
func pval(p *float64, raw bool) any {
	if p != nil && !raw && *p < 1e-4 {
		return "<0.0001"
	}
	return optF(p, raw)
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

func (g *GPUTime) tables(raw bool) []*table.Table {
	var ts []*table.Table
	for _, sd := range []struct {
		name string
		s    *SideGPU
	}{{"a", g.A}, {"b", g.B}} {
		if sd.s == nil {
			continue
		}
		t := &table.Table{Name: "regions_" + sd.name, Title: fmt.Sprintf("GPU time by region, %s (bottleneck rank %s)", strings.ToUpper(sd.name), sd.s.BottleneckRank),
			Columns: []table.Column{{Name: "rank"}, {Name: "gpu"}, {Name: "region"}, {Name: "count", Unit: table.Count}, {Name: "busy", Unit: table.NS},
				{Name: "summed", Unit: table.NS}, {Name: "busy_share", Unit: table.Share}, {Name: "busy_per_req", Unit: table.NSPerReq},
				{Name: "busy_per_tok", Unit: table.NSPerTok}}}
		for _, rk := range sd.s.Ranks {
			for _, rg := range rk.Regions {
				t.Add(rk.Rank, rk.GPU, rg.Region, rg.Count, rg.BusyNs, rg.SumNs, round(rg.BusyShare, raw), optF(rg.BusyPerRequestNs, true), optF(rg.BusyPerOutputTokenNs, true))
			}
			t.Add(rk.Rank, rk.GPU, "all device work", rk.DeviceWork, rk.DeviceWorkBusyNs, rk.DeviceWorkSumNs, round(rk.BusyShare, raw), nil, nil)
		}
		t.Notes = append(t.Notes, "busy = union of the region's intervals on the rank; busy shares are of the rank's device-busy time and may add to more than 100% where regions overlap; the last row's share is busy/window")
		ts = append(ts, t)
	}
	if len(g.Deltas) > 0 {
		unit := map[string]string{"output_token": table.NSPerTok, "request": table.NSPerReq, "none": table.NS}[g.Basis]
		t := &table.Table{Name: "region_deltas", Title: "Region deltas, bottleneck rank A vs bottleneck rank B (busy per " + g.Basis + ")",
			Columns: []table.Column{{Name: "region"}, {Name: "a", Unit: unit}, {Name: "b", Unit: unit}, {Name: "delta", Unit: "%"},
				{Name: "share_a", Unit: table.Share}, {Name: "share_b", Unit: table.Share}}}
		for _, d := range g.Deltas {
			t.Add(d.Region, optF(d.PerWorkA, true), optF(d.PerWorkB, true), optF(d.DeltaPct, raw), round(d.BusyShareA, raw), round(d.BusyShareB, raw))
		}
		ts = append(ts, t)
	}
	sh := &table.Table{Name: "shapes", Title: "Top launch shapes per region (bottleneck ranks)",
		Columns: []table.Column{{Name: "side"}, {Name: "rank"}, {Name: "region"}, {Name: "grid"}, {Name: "block"}, {Name: "count", Unit: table.Count},
			{Name: "summed", Unit: table.NS}, {Name: "region_share", Unit: table.Share}}}
	it := &table.Table{Name: "iterations", Title: "Iteration mix and tokens per iteration (bottleneck ranks)",
		Columns: []table.Column{{Name: "side"}, {Name: "rank"}, {Name: "bucket"}, {Name: "iterations", Unit: table.Count}}}
	un := &table.Table{Name: "unmapped", Title: "Unmapped device work (top names, bottleneck ranks)",
		Columns: []table.Column{{Name: "side"}, {Name: "rank"}, {Name: "name"}, {Name: "count", Unit: table.Count}, {Name: "summed", Unit: table.NS}, {Name: "share", Unit: table.Share}}}
	for _, sd := range []struct {
		name string
		s    *SideGPU
	}{{"A", g.A}, {"B", g.B}} {
		b := sd.s.Bottleneck()
		if b == nil {
			continue
		}
		for _, s := range TopShapes(b, 3) {
			sh.Add(sd.name, b.Rank, s.Region, dims(s.Grid), dims(s.Block), s.Count, s.SumNs, round(s.TimeShare, raw))
		}
		if b.Iterations != nil {
			i := b.Iterations
			it.Add(sd.name, b.Rank, "prefill iterations", i.Prefill.Iterations)
			it.Add(sd.name, b.Rank, "decode-only iterations", i.Decode.Iterations)
			for _, k := range i.TokensHistogram {
				it.Add(sd.name, b.Rank, fmt.Sprintf("tokens [%d, %d)", k.Lo, k.Hi), k.Count)
			}
		} else {
			it.Add(sd.name, b.Rank, "no iteration ranges in the window", nil)
		}
		un.Add(sd.name, b.Rank, "(unmapped total)", nil, nil, round(1-b.Coverage.TimeShare, raw))
		for k, n := range b.UnmappedTop {
			if k == 5 {
				break
			}
			un.Add(sd.name, b.Rank, n.Name, n.Count, n.SumNs, round(n.TimeShare, raw))
		}
	}
	ts = append(ts, sh, it, un)
	return ts
}

// TopShapes returns the n costliest launch shapes of each region of a rank.
func TopShapes(r *classify.RankSummary, n int) []classify.ShapeStat {
	per := map[string]int{}
	var out []classify.ShapeStat
	for _, s := range r.Shapes { // sorted by region, then time
		if per[s.Region] < n {
			per[s.Region]++
			out = append(out, s)
		}
	}
	return out
}

func dims(d [3]int32) string {
	return fmt.Sprintf("%dx%dx%d", d[0], d[1], d[2])
}

// Headline returns the report's opening lines: the verdict, workload,
// phase and correctness status.
func (r *Report) Headline() []string {
	var out []string
	if r.Comparable {
		out = append(out, "COMPARABLE: model, workload, load and resource contract agree (or differ as declared)")
	} else {
		for _, f := range r.NotComparable {
			out = append(out, "NOT COMPARABLE: "+f+" differs")
		}
		out = append(out, "metrics are shown but no claim that one system is faster holds across these differences")
	}
	w := r.Workload
	sha := short(w.SHA256A)
	if w.SHA256B != w.SHA256A {
		sha += " (A) vs " + short(w.SHA256B) + " (B)"
	}
	out = append(out, fmt.Sprintf("workload: sha256 %s, %d requests", sha, w.CountA))
	if w.LoadA == w.LoadB {
		out = append(out, "load: "+w.LoadA)
	} else {
		out = append(out, "load: A "+w.LoadA+"; B "+w.LoadB)
	}
	out = append(out, "phase: "+r.Phase)
	out = append(out, fmt.Sprintf("runs: A %d, B %d", len(r.RunsA), len(r.RunsB)))
	var intent []string
	for _, d := range r.Differences {
		if d.Intentional {
			intent = append(intent, d.Field)
		}
	}
	if len(intent) > 0 {
		out = append(out, "intentional differences: "+strings.Join(intent, ", "))
	} else {
		out = append(out, "intentional differences: none declared")
	}
	c := r.Correctness
	if c.Checked {
		st := "PASSED"
		if !c.Passed {
			st = "FAILED"
		}
		out = append(out, fmt.Sprintf("correctness: %s, %d/%d requests match exactly (evidence: %s; %d failed)", st, c.ExactMatch, c.Requests, c.Evidence, c.Failed))
	} else {
		out = append(out, "correctness: not checked")
	}
	q := "quality: " + c.Quality
	if c.QualityNote != "" {
		q += " (" + c.QualityNote + ")"
	}
	out = append(out, q)
	return out
}

func short(sha string) string {
	if len(sha) > 16 {
		return sha[:16] + "…"
	}
	if sha == "" {
		return "-"
	}
	return sha
}

func (r *Report) writeText(w io.Writer) error {
	var b strings.Builder
	b.WriteString("== Layer 1: overall serving performance ==\n")
	for _, l := range r.Headline() {
		b.WriteString(l + "\n")
	}
	b.WriteByte('\n')
	ts := r.Tables(false)
	n1 := r.layer1Tables()
	if err := table.Text(&b, ts[:n1]); err != nil {
		return err
	}
	writeList(&b, "note", r.Notes)
	writeList(&b, "warning", r.Warnings)
	if r.GPU != nil {
		b.WriteString("\n== Layer 2: where the GPU time went (diagnostic only) ==\n")
		if err := table.Text(&b, ts[n1:]); err != nil {
			return err
		}
		b.WriteString("\nprofiling limitations:\n")
		for _, l := range r.GPU.Limitations {
			b.WriteString("  - " + l + "\n")
		}
		b.WriteString(r.GPU.Note + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeList(b *strings.Builder, label string, items []string) {
	for _, s := range items {
		b.WriteString(label + ": " + s + "\n")
	}
}

func (r *Report) writeMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("## Layer 1: overall serving performance\n\n")
	for _, l := range r.Headline() {
		b.WriteString("- " + l + "\n")
	}
	ts := r.Tables(false)
	n1 := r.layer1Tables()
	for i, t := range ts {
		if i == n1 {
			writeMDList(&b, r.Notes, r.Warnings)
			b.WriteString("\n## Layer 2: where the GPU time went (diagnostic only)\n")
		}
		b.WriteString("\n### " + t.Title + "\n\n")
		head := make([]string, len(t.Columns))
		align := make([]string, len(t.Columns))
		for j, c := range t.Columns {
			head[j] = mdHeader(c)
			align[j] = "---"
			if c.Unit != "" {
				align[j] = "---:"
			}
		}
		b.WriteString("| " + strings.Join(head, " | ") + " |\n| " + strings.Join(align, " | ") + " |\n")
		for _, row := range t.Rows {
			cells := make([]string, len(t.Columns))
			for j, c := range t.Columns {
				var v any
				if j < len(row) {
					v = row[j]
				}
				cells[j] = strings.ReplaceAll(mdCell(c.Unit, v), "|", "\\|")
			}
			b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
		}
		for _, n := range t.Notes {
			b.WriteString("\n_" + n + "_\n")
		}
	}
	if len(ts) == n1 {
		writeMDList(&b, r.Notes, r.Warnings)
	}
	if r.GPU != nil {
		b.WriteString("\n**Profiling limitations**\n\n")
		for _, l := range r.GPU.Limitations {
			b.WriteString("- " + l + "\n")
		}
		b.WriteString("\n> " + r.GPU.Note + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeMDList(b *strings.Builder, notes, warnings []string) {
	if len(notes)+len(warnings) == 0 {
		return
	}
	b.WriteByte('\n')
	for _, n := range notes {
		b.WriteString("- note: " + n + "\n")
	}
	for _, n := range warnings {
		b.WriteString("- **warning**: " + n + "\n")
	}
}

func mdHeader(c table.Column) string {
	switch c.Unit {
	case table.NS:
		return c.Name + " (ms)"
	case table.Share, "%":
		return c.Name + " (%)"
	case table.NSPerReq:
		return c.Name + " (ms/req)"
	case table.NSPerTok:
		return c.Name + " (ms/tok)"
	case "", table.Count:
		return c.Name
	}
	return c.Name + " (" + c.Unit + ")"
}

func mdCell(unit string, v any) string {
	if v == nil {
		return "-"
	}
	f, isNum := num(v)
	if isNum && math.IsNaN(f) {
		return "-"
	}
	switch unit {
	case table.NS, table.NSPerReq, table.NSPerTok:
		if isNum {
			return strconv.FormatFloat(f/1e6, 'f', 3, 64)
		}
	case table.Share:
		if isNum {
			return strconv.FormatFloat(f*100, 'f', 1, 64)
		}
	}
	if s, ok := v.(string); ok {
		return s
	}
	if isNum {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

func num(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	}
	return 0, false
}
