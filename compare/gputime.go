package compare

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/servecmp/servecmp/classify"
)

// Profile is one analysis (analyze --format json, or a saved summary).
type Profile struct {
	Path   string
	Report *classify.Report
}

// GPUTime is layer 2: where each engine spent its GPU time.
type GPUTime struct {
	A *SideGPU `json:"a"`
	B *SideGPU `json:"b"`
	// Deltas compare the two bottleneck ranks region by region.
	Deltas []RegionDelta `json:"region_deltas"`
	// Basis says what the deltas are normalised by: "output_token",
	// "request" or "none" (raw busy time; the captures may cover different
	// amounts of work).
	Basis string `json:"basis"`
	// WorkFrom is set when both sides' work came from the profile windows
	// recorded by servecmp profile (analyze --work-from): it names the
	// result files, e.g. "A: a.json, B: b.json".
	WorkFrom    string   `json:"work_from,omitempty"`
	Limitations []string `json:"limitations"`
	Note        string   `json:"note"`
}

// SideGPU is one engine's profiles, merged across files.
type SideGPU struct {
	Paths          []string                `json:"paths"`
	BottleneckRank string                  `json:"bottleneck_rank"`
	Ranks          []*classify.RankSummary `json:"ranks"`
	Warnings       []string                `json:"warnings"`
}

// RegionDelta is one region of the two bottleneck ranks.
type RegionDelta struct {
	Region     string   `json:"region"`
	BusyNsA    int64    `json:"busy_ns_a"`
	BusyNsB    int64    `json:"busy_ns_b"`
	BusyShareA float64  `json:"busy_share_a"`
	BusyShareB float64  `json:"busy_share_b"`
	PerWorkA   *float64 `json:"busy_per_work_ns_a"` // per Basis unit
	PerWorkB   *float64 `json:"busy_per_work_ns_b"`
	DeltaPct   *float64 `json:"delta_pct"` // of PerWork (or busy with Basis none), (B−A)/A
}

// Bottleneck returns the side's bottleneck rank, or nil.
func (s *SideGPU) Bottleneck() *classify.RankSummary {
	if s == nil {
		return nil
	}
	for _, r := range s.Ranks {
		if r.Rank == s.BottleneckRank {
			return r
		}
	}
	if len(s.Ranks) > 0 {
		return s.Ranks[0]
	}
	return nil
}

func side(profiles []Profile) *SideGPU {
	if len(profiles) == 0 {
		return nil
	}
	s := &SideGPU{}
	var reps []*classify.Report
	for _, p := range profiles {
		s.Paths = append(s.Paths, p.Path)
		reps = append(reps, p.Report)
	}
	merged, err := classify.Merge(reps...)
	if err != nil {
		// Repeated captures of the same ranks, or different rule sets:
		// keep every rank, labelled by its file.
		var ranks []*classify.RankSummary
		for _, p := range profiles {
			for _, r := range p.Report.Ranks {
				c := *r
				c.Rank = filepath.Base(p.Path) + ":" + r.Rank
				ranks = append(ranks, &c)
			}
		}
		s.Warnings = append(s.Warnings, "profiles not merged ("+err.Error()+"); ranks are labelled by file")
		merged, err = classify.NewReport(reps[0].RulesDigest, ranks)
		if err != nil {
			s.Warnings = append(s.Warnings, err.Error())
			return s
		}
	}
	s.Ranks = merged.Ranks
	s.BottleneckRank = merged.BottleneckRank
	s.Warnings = append(s.Warnings, merged.Warnings...)
	s.Warnings = append(s.Warnings, merged.Notes...)
	return s
}

func gpuTime(pa, pb []Profile) *GPUTime {
	g := &GPUTime{A: side(pa), B: side(pb), Note: CausalNote, Limitations: []string{}, Basis: "none"}
	if g.A == nil || g.B == nil {
		g.Limitations = append(g.Limitations, "profiles were given for one side only: no region deltas")
	}
	for _, sd := range []struct {
		name string
		s    *SideGPU
	}{{"A", g.A}, {"B", g.B}} {
		if sd.s == nil {
			continue
		}
		for _, w := range sd.s.Warnings {
			g.Limitations = append(g.Limitations, sd.name+": "+w)
		}
		for _, r := range sd.s.Ranks {
			g.Limitations = append(g.Limitations, rankLimitations(sd.name, r)...)
		}
	}
	ba, bb := g.A.Bottleneck(), g.B.Bottleneck()
	if ba == nil || bb == nil {
		return g
	}
	switch {
	case ba.Work != nil && bb.Work != nil && ba.Work.OutputTokens > 0 && bb.Work.OutputTokens > 0:
		g.Basis = "output_token"
	case ba.Work != nil && bb.Work != nil && ba.Work.Requests > 0 && bb.Work.Requests > 0:
		g.Basis = "request"
	default:
		g.Limitations = append(g.Limitations, "completed work is unknown on at least one side: deltas compare raw busy time of windows that may hold different amounts of work (give analyze --work)")
	}
	if g.Basis != "none" && fromWindow(ba.Work) && fromWindow(bb.Work) {
		g.WorkFrom = fmt.Sprintf("A: %s, B: %s", ba.Work.From, bb.Work.From)
	}
	if g.Basis != "none" && (ba.Work.Requests != bb.Work.Requests || ba.Work.OutputTokens != bb.Work.OutputTokens) {
		g.Limitations = append(g.Limitations, fmt.Sprintf("the captures completed different work (A %d requests / %d output tokens, B %d / %d): deltas are per %s",
			ba.Work.Requests, ba.Work.OutputTokens, bb.Work.Requests, bb.Work.OutputTokens, g.Basis))
	}
	for i := range ba.Regions {
		ra := ba.Regions[i]
		j := slices.IndexFunc(bb.Regions, func(x classify.RegionSummary) bool { return x.Region == ra.Region })
		if j < 0 {
			continue
		}
		rb := bb.Regions[j]
		d := RegionDelta{Region: ra.Region, BusyNsA: ra.BusyNs, BusyNsB: rb.BusyNs, BusyShareA: ra.BusyShare, BusyShareB: rb.BusyShare}
		switch g.Basis {
		case "output_token":
			d.PerWorkA, d.PerWorkB = ra.BusyPerOutputTokenNs, rb.BusyPerOutputTokenNs
		case "request":
			d.PerWorkA, d.PerWorkB = ra.BusyPerRequestNs, rb.BusyPerRequestNs
		default:
			a, b := float64(ra.BusyNs), float64(rb.BusyNs)
			d.PerWorkA, d.PerWorkB = &a, &b
		}
		if d.PerWorkA != nil && d.PerWorkB != nil && *d.PerWorkA != 0 {
			d.DeltaPct = finite((*d.PerWorkB - *d.PerWorkA) / *d.PerWorkA * 100)
		}
		g.Deltas = append(g.Deltas, d)
	}
	return g
}

// rankLimitations lists what limits the reading of one rank's profile.
func rankLimitations(side string, r *classify.RankSummary) []string {
	var out []string
	p := fmt.Sprintf("%s rank %s", side, r.Rank)
	if r.Coverage.TimeShare < 0.9 {
		out = append(out, fmt.Sprintf("%s: classification covers %.1f%% of device time (< 90%%); the unmapped share is large", p, r.Coverage.TimeShare*100))
	}
	if r.GraphTraceMode == "graph" {
		out = append(out, p+": CUDA graphs were captured whole (graph mode), so kernels inside graphs are not seen")
	}
	out = append(out, fmt.Sprintf("%s: window %.3f s (from %s)", p, float64(r.WindowNs)/1e9, r.WindowFrom))
	if r.DeviceWorkSumNs > 0 {
		if ov := float64(r.SumMinusBusyNs) / float64(r.DeviceWorkSumNs); ov > 0.05 {
			out = append(out, fmt.Sprintf("%s: summed kernel time exceeds GPU-busy time by %.1f%% (overlap): read busy, not summed", p, ov*100))
		}
	}
	return out
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

// fromWindow reports whether w came from a profile window (analyze
// --work-from names the result file), not from --work or iterations.
func fromWindow(w *classify.Work) bool {
	return w.From != "" && w.From != "flag" && w.From != "iterations"
}
