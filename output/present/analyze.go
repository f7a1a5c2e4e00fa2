package present

import (
	"fmt"
	"slices"

	"github.com/servecmp/servecmp/classify"
	"github.com/servecmp/servecmp/output/table"
)

// Analysis renders an analysis report (analyze, merge) as tables of raw
// values with units: ranks, time, regions, per-work figures, coverage, top
// unmapped names, shapes, iterations, explain rows and the cross-rank
// spread. top caps the unmapped-name and per-region shape lists (<= 0:
// all). Ranks are shown side by side, never summed. JSON output does not
// come from here but from the saved type (classify.Report.WriteJSON).
func Analysis(r *classify.Report, top int) []*table.Table {
	r = r.Trim(top)
	var ts []*table.Table
	for _, f := range []func(*classify.Report) []*table.Table{
		ranksTable, timeTable, regionsTable, perWorkTable, coverageTable, unmappedTable, shapesTable, iterationTables, explainTable, acrossRanksTable,
	} {
		ts = append(ts, f(r)...)
	}
	return ts
}

func col(name, unit string) table.Column { return table.Column{Name: name, Unit: unit} }

// ranksTable returns the ranks and their windows.
func ranksTable(r *classify.Report) []*table.Table {
	var ts []*table.Table
	ranks := &table.Table{Name: "ranks", Title: "Ranks", Columns: []table.Column{
		col("rank", ""), {Name: "source", Footnote: true}, {Name: "pid", Unit: table.Count, Drop: 4}, {Name: "device", Unit: table.Count, Drop: 5}, {Name: "gpu", Max: 32}, {Name: "host", Drop: 2},
		{Name: "tool_version", Drop: 3}, col("window_start", table.NS), col("window_end", table.NS), col("window", table.NS), {Name: "window_from", Drop: 1},
	}}
	for _, s := range r.Ranks {
		ranks.Add(s.Rank, s.Source, s.PID, int64(s.Device), s.GPU, s.Host, s.ToolVersion,
			s.WindowStartNs-s.SessionStartNs, s.WindowEndNs-s.SessionStartNs, s.WindowNs, s.WindowFrom)
	}
	if anyRank(r, func(s *classify.RankSummary) bool { return s.SessionStartNs != 0 }) {
		ranks.Notes = []string{"window_start and window_end count from the session start, as --window does (for a PyTorch trace, its first event)"}
	}
	ts = append(ts, ranks)
	return ts
}

// timeTable returns device time per rank.
func timeTable(r *classify.Report) []*table.Table {
	var ts []*table.Table
	tm := &table.Table{Name: "time", Title: "Device time (kernels + memcpy + memset) inside the window", Columns: []table.Column{
		col("rank", ""), col("device_work", table.Count), col("device_work_sum", table.NS), col("device_work_busy", table.NS), col("busy", table.Share),
		{Name: "sum_minus_busy", Unit: table.NS, Drop: 4}, {Name: "kernels", Unit: table.Count, Drop: 6}, {Name: "kernel_sum", Unit: table.NS, Drop: 5}, col("kernel_busy", table.NS),
		{Name: "multi_region_overlap", Unit: table.NS, Drop: 3}, {Name: "comm_busy", Unit: table.NS, Drop: 2}, {Name: "non_comm_busy", Unit: table.NS, Drop: 1},
	}, Notes: []string{"device_work_busy is the union of [start, end) over all streams; busy % is of the window"}}
	for _, s := range r.Ranks {
		tm.Add(s.Rank, s.DeviceWork, s.DeviceWorkSumNs, s.DeviceWorkBusyNs, s.BusyShare, s.SumMinusBusyNs, s.Kernels,
			s.KernelSumNs, s.KernelBusyNs, s.MultiRegionOverlapNs, s.CommBusyNs, s.NonCommBusyNs)
	}
	ts = append(ts, tm)
	return ts
}

// regionsTable returns regions per rank.
func regionsTable(r *classify.Report) []*table.Table {
	var ts []*table.Table
	reg := &table.Table{Name: "regions", Title: "Regions", Columns: []table.Column{
		col("rank", ""), col("region", ""), col("count", table.Count), col("sum", table.NS), col("sum", table.Share),
		col("busy", table.NS), col("busy", table.Share), col("window", table.Share),
	}, Notes: []string{"sum % is of the rank's summed device time, busy % of its busy time, window % of the window;",
		"region busy times can add up to more than the rank's busy time, by the time regions overlap (multi_region_overlap)"}}
	for _, s := range r.Ranks {
		for _, g := range s.Regions {
			reg.Add(s.Rank, g.Region, g.Count, g.SumNs, g.SumShare, g.BusyNs, g.BusyShare, g.WindowShare)
		}
	}
	ts = append(ts, reg)
	return ts
}

// perWorkTable returns per-work figures (only when some rank knows its work).
func perWorkTable(r *classify.Report) []*table.Table {
	var ts []*table.Table
	if anyRank(r, func(s *classify.RankSummary) bool { return s.Work != nil }) {
		pw := &table.Table{Name: "per_work", Title: "Per completed work", Columns: []table.Column{
			col("rank", ""), {Name: "work_from", Drop: 5}, {Name: "requests", Unit: table.Count, Drop: 4}, {Name: "output_tokens", Unit: table.Count, Drop: 4},
			col("region", ""), {Name: "sum_per_request", Unit: table.NSPerReq, Sig3: true, Drop: 2}, {Name: "busy_per_request", Unit: table.NSPerReq, Sig3: true},
			{Name: "sum_per_output_token", Unit: table.NSPerTok, Sig3: true, Drop: 1}, {Name: "busy_per_output_token", Unit: table.NSPerTok, Sig3: true},
		}, Notes: slices.Clone(r.Notes)}
		if anyRank(r, func(s *classify.RankSummary) bool { return s.Work != nil && s.Work.From == "iterations" }) {
			pw.Notes = append([]string{"iteration counts: requests = Σ ctx_reqs, output tokens = Σ gen_tokens + Σ ctx_reqs (each prefill emits a first token)"}, pw.Notes...)
		}
		for _, s := range r.Ranks {
			if s.Work == nil {
				continue
			}
			for _, g := range s.Regions {
				pw.Add(s.Rank, s.Work.From, s.Work.Requests, s.Work.OutputTokens, g.Region,
					orNil(g.SumPerRequestNs), orNil(g.BusyPerRequestNs), orNil(g.SumPerOutputTokenNs), orNil(g.BusyPerOutputTokenNs))
			}
		}
		ts = append(ts, pw)
	}
	return ts
}

// coverageTable returns classification coverage by method.
func coverageTable(r *classify.Report) []*table.Table {
	var ts []*table.Table
	cov := &table.Table{Name: "coverage", Title: "Classification coverage (time share by method)", Columns: []table.Column{
		col("rank", ""), col("time", table.Share), col("count", table.Share),
	}}
	for m := classify.Method(0); m < classify.NumMethods; m++ {
		cov.Columns = append(cov.Columns, col(m.String()+"_time", table.Share)) // by_method[].time_share of the method
	}
	for _, s := range r.Ranks {
		row := []any{s.Rank, s.Coverage.TimeShare, s.Coverage.CountShare}
		for _, m := range s.Coverage.ByMethod {
			row = append(row, m.TimeShare)
		}
		cov.Add(row...)
	}
	ts = append(ts, cov)
	return ts
}

// unmappedTable returns the top unmapped names.
func unmappedTable(r *classify.Report) []*table.Table {
	var ts []*table.Table
	un := &table.Table{Name: "unmapped_top", Title: "Top unmapped names by time", Columns: []table.Column{
		col("rank", ""), {Name: "name", Max: 90}, col("count", table.Count), col("sum", table.NS), col("time", table.Share),
	}}
	for _, s := range r.Ranks {
		for _, n := range s.UnmappedTop {
			un.Add(s.Rank, n.Name, n.Count, n.SumNs, n.TimeShare)
		}
	}
	if len(un.Rows) > 0 {
		ts = append(ts, un)
	}
	return ts
}

// shapesTable returns the launch shapes per region.
func shapesTable(r *classify.Report) []*table.Table {
	var ts []*table.Table
	sh := &table.Table{Name: "shapes", Title: "Launch shapes by region (share of the region's summed time)", Columns: []table.Column{
		col("rank", ""), col("region", ""), col("grid", ""), col("block", ""), col("count", table.Count), col("sum", table.NS), col("time", table.Share),
	}}
	for _, s := range r.Ranks {
		for _, x := range s.Shapes {
			sh.Add(s.Rank, x.Region, LaunchDims(x.Grid), LaunchDims(x.Block), x.Count, x.SumNs, x.TimeShare)
		}
	}
	if len(sh.Rows) > 0 {
		ts = append(ts, sh)
	}
	return ts
}

// iterationTables returns iteration counts and the tokens-per-iteration histogram.
func iterationTables(r *classify.Report) []*table.Table {
	var ts []*table.Table
	if anyRank(r, func(s *classify.RankSummary) bool { return s.Iterations != nil }) {
		it := &table.Table{Name: "iterations", Title: "Iterations (prefill = carries context tokens; decode = decode only)", Columns: []table.Column{
			col("rank", ""), col("count", table.Count), col("prefill_iterations", table.Count), col("prefill_ctx_tokens", table.Count),
			{Name: "prefill_gen_tokens", Unit: table.Count, Drop: 1}, col("decode_iterations", table.Count), col("decode_gen_tokens", table.Count),
		}}
		hist := &table.Table{Name: "iteration_tokens", Title: "Tokens per iteration (ctx + gen)", Columns: []table.Column{
			col("rank", ""), col("lo", table.Count), col("hi", table.Count), col("count", table.Count),
		}, Notes: []string{"buckets are [lo, hi) tokens; count is the iterations in each"}}
		for _, s := range r.Ranks {
			x := s.Iterations
			if x == nil {
				continue
			}
			it.Add(s.Rank, x.Count, x.Prefill.Iterations, x.Prefill.CtxTokens, x.Prefill.GenTokens, x.Decode.Iterations, x.Decode.GenTokens)
			for _, b := range x.TokensHistogram {
				hist.Add(s.Rank, b.Lo, b.Hi, b.Count)
			}
		}
		ts = append(ts, it, hist)
	}
	return ts
}

// explainTable returns the explain rows (analyze --explain).
func explainTable(r *classify.Report) []*table.Table {
	var ts []*table.Table
	if anyRank(r, func(s *classify.RankSummary) bool { return len(s.Explain) > 0 }) {
		ex := &table.Table{Name: "explain", Title: "Explain: every name with its region, method and rule", Columns: []table.Column{
			col("rank", ""), col("region", ""), col("method", ""), col("rule", ""), col("count", table.Count), col("sum", table.NS), {Name: "name", Max: 100},
		}, Notes: []string{"method: name = a name rule; nvtx = host range open at launch; graph = range open at graph capture; position = place on the stream; unmapped = nothing placed it"}}
		for _, s := range r.Ranks {
			for _, e := range s.Explain {
				rule := e.Rule
				if rule == "" {
					rule = "-"
				}
				ex.Add(s.Rank, e.Region, e.Method, rule, int64(e.Count), e.SumNs, e.Name)
			}
		}
		ts = append(ts, ex)
	}
	return ts
}

// acrossRanksTable returns the cross-rank spread.
func acrossRanksTable(r *classify.Report) []*table.Table {
	var ts []*table.Table
	if a := r.AcrossRanks; a != nil {
		ar := &table.Table{Name: "across_ranks", Title: fmt.Sprintf("Across %d ranks (bottleneck rank: %s)", a.Ranks, r.BottleneckRank), Columns: []table.Column{
			col("figure", ""), col("min", table.NS), col("mean", table.NS), col("max", table.NS), col("min_rank", ""), col("max_rank", ""),
		}, Notes: []string{"the bottleneck rank has the most busy time outside communication; the others' waiting for it shows as communication"}}
		for _, f := range []struct {
			name string
			sp   classify.Spread
		}{{"device_work_busy_ns", a.BusyNs}, {"comm_busy_ns", a.CommBusyNs}, {"non_comm_busy_ns", a.NonCommBusyNs}} { // the JSON's names
			ar.Add(f.name, f.sp.Min, f.sp.Mean, f.sp.Max, f.sp.MinRank, f.sp.MaxRank)
		}
		ts = append(ts, ar)
	}

	return ts
}

func anyRank(r *classify.Report, f func(*classify.RankSummary) bool) bool {
	for _, s := range r.Ranks {
		if f(s) {
			return true
		}
	}
	return false
}

// orNil turns an optional figure into a table cell (nil: empty).
func orNil(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
