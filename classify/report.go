package classify

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// SummarySchema identifies a saved summary file (analyze --save).
const SummarySchema = "servecmp.summary/1"

// AnalysisSchema identifies the analyze --format json document: the
// report with lists cut to the top N. ReadReport also reads documents
// written before it was named (no schema).
const AnalysisSchema = "servecmp.analysis/1"

// RankSummary is everything servecmp reports about one rank: one (process,
// device) group within its window. All times are ns; shares are fractions
// 0..1. In a saved summary the lists (UnmappedTop, Shapes) are complete;
// Report.Trim keeps the top N for display.
type RankSummary struct {
	Rank           string `json:"rank"`
	LabelFrom      string `json:"label_from,omitempty"`
	Source         string `json:"source"`
	Format         string `json:"format,omitempty"`
	Device         int32  `json:"device"`
	PID            int64  `json:"pid"`
	GPU            string `json:"gpu"`
	Host           string `json:"host"`
	ToolVersion    string `json:"tool_version"`
	Process        string `json:"process,omitempty"`
	GraphTraceMode string `json:"graph_trace_mode,omitempty"`

	WindowStartNs int64  `json:"window_start_ns"` // capture clock
	WindowEndNs   int64  `json:"window_end_ns"`   // capture clock
	WindowNs      int64  `json:"window_ns"`
	WindowFrom    string `json:"window_from"` // "capture", "range" (--window) or "nvtx"
	// SessionStartNs is the capture-clock time --window counts from: 0 for
	// nsys, a kineto trace's first event. Tables show the window from it.
	SessionStartNs int64 `json:"session_start_ns,omitempty"`

	// Device work is kernels, memcpys and memsets.
	DeviceWork       int64   `json:"device_work"`
	DeviceWorkSumNs  int64   `json:"device_work_sum_ns"`  // summed durations
	DeviceWorkBusyNs int64   `json:"device_work_busy_ns"` // length of the union, all streams
	BusyShare        float64 `json:"busy_share"`          // busy / window
	SumMinusBusyNs   int64   `json:"sum_minus_busy_ns"`
	Kernels          int64   `json:"kernels"`
	KernelSumNs      int64   `json:"kernel_sum_ns"`
	KernelBusyNs     int64   `json:"kernel_busy_ns"`
	// MultiRegionOverlapNs is the time covered by two or more regions at
	// once. Σ region busy = device busy + the overlap when at most two
	// regions meet; with three or more at once Σ region busy exceeds busy
	// by more.
	MultiRegionOverlapNs int64 `json:"multi_region_overlap_ns"`
	CommBusyNs           int64 `json:"comm_busy_ns"`     // busy of the communication region
	NonCommBusyNs        int64 `json:"non_comm_busy_ns"` // busy of the union of all other work

	Regions     []RegionSummary `json:"regions"` // every region, in report order
	Coverage    Coverage        `json:"coverage"`
	UnmappedTop []NameStat      `json:"unmapped_top"` // by time, descending
	Shapes      []ShapeStat     `json:"shapes"`       // by region order, then time descending
	Iterations  *Iterations     `json:"iterations"`   // nil: no iteration ranges in the window
	Work        *Work           `json:"work"`         // nil: unknown
	Warnings    []string        `json:"warnings,omitempty"`
	// Explain is filled by analyze --explain: every distinct (name, region,
	// method, rule) group inside the window, by summed time.
	Explain []ExplainEntry `json:"explain,omitempty"`
}

// RegionSummary is one region of one rank.
type RegionSummary struct {
	Region      string  `json:"region"`
	Count       int64   `json:"count"`
	SumNs       int64   `json:"sum_ns"`
	BusyNs      int64   `json:"busy_ns"`      // union within the region
	SumShare    float64 `json:"sum_share"`    // of the rank's device_work_sum_ns
	BusyShare   float64 `json:"busy_share"`   // of the rank's device_work_busy_ns; shares may add to > 1
	WindowShare float64 `json:"window_share"` // busy / window

	SumPerRequestNs      *float64 `json:"sum_per_request_ns"`
	BusyPerRequestNs     *float64 `json:"busy_per_request_ns"`
	SumPerOutputTokenNs  *float64 `json:"sum_per_output_token_ns"`
	BusyPerOutputTokenNs *float64 `json:"busy_per_output_token_ns"`
}

// Coverage is how much device work a rule placed (Method != Unmapped).
type Coverage struct {
	TimeShare  float64      `json:"time_share"`
	CountShare float64      `json:"count_share"`
	ByMethod   []MethodStat `json:"by_method"` // every method, in Method order
}

// MethodStat counts the device work attributed by one method.
type MethodStat struct {
	Method     string  `json:"method"`
	Count      int64   `json:"count"`
	SumNs      int64   `json:"sum_ns"`
	CountShare float64 `json:"count_share"`
	TimeShare  float64 `json:"time_share"`
}

// NameStat is the device work of one name.
type NameStat struct {
	Name      string  `json:"name"`
	Count     int64   `json:"count"`
	SumNs     int64   `json:"sum_ns"`
	TimeShare float64 `json:"time_share"` // of the rank's device_work_sum_ns
}

// ShapeStat is the device work of one launch shape within one region.
type ShapeStat struct {
	Region    string   `json:"region"`
	Grid      [3]int32 `json:"grid"`
	Block     [3]int32 `json:"block"`
	Count     int64    `json:"count"`
	SumNs     int64    `json:"sum_ns"`
	TimeShare float64  `json:"time_share"` // of the region's sum_ns
}

// Iterations counts the engine iterations (host ranges matching the
// iteration pattern) that start inside the window.
type Iterations struct {
	Pattern     string `json:"pattern"`
	Count       int64  `json:"count"`
	CtxRequests int64  `json:"ctx_requests"`
	CtxTokens   int64  `json:"ctx_tokens"`
	GenRequests int64  `json:"gen_requests"`
	GenTokens   int64  `json:"gen_tokens"`
	// Prefill holds iterations carrying prefill tokens (ctx_tokens > 0),
	// Decode the decode-only ones.
	Prefill IterMix `json:"prefill"`
	Decode  IterMix `json:"decode"`
	// TokensHistogram counts iterations by ctx_tokens+gen_tokens in
	// power-of-two buckets [Lo, Hi); the first bucket is [0, 1). Only
	// non-empty buckets are listed.
	TokensHistogram []Bucket `json:"tokens_histogram"`
}

// IterMix is one side of the prefill/decode mix.
type IterMix struct {
	Iterations  int64 `json:"iterations"`
	CtxRequests int64 `json:"ctx_requests"`
	CtxTokens   int64 `json:"ctx_tokens"`
	GenRequests int64 `json:"gen_requests"`
	GenTokens   int64 `json:"gen_tokens"`
}

// Bucket is one histogram bucket [Lo, Hi).
type Bucket struct {
	Lo    int64 `json:"lo"`
	Hi    int64 `json:"hi"`
	Count int64 `json:"count"`
}

// Spread is the minimum, mean and maximum of one figure across ranks.
type Spread struct {
	Min     int64   `json:"min"`
	Mean    float64 `json:"mean"`
	Max     int64   `json:"max"`
	MinRank string  `json:"min_rank"`
	MaxRank string  `json:"max_rank"`
}

// AcrossRanks compares ranks side by side; it never adds ranks into one
// serial total.
type AcrossRanks struct {
	Ranks         int    `json:"ranks"`
	BusyNs        Spread `json:"device_work_busy_ns"`
	CommBusyNs    Spread `json:"comm_busy_ns"`
	NonCommBusyNs Spread `json:"non_comm_busy_ns"`
}

// Report is the result of analyze and merge, and the content of a saved
// summary (Schema set). Ranks are sorted by label in natural order.
type Report struct {
	Schema      string         `json:"schema,omitempty"`
	RulesDigest string         `json:"rules_digest"`
	Ranks       []*RankSummary `json:"ranks"`
	// BottleneckRank is the rank with the largest busy time outside
	// communication: the others' waiting for it shows as communication.
	BottleneckRank string       `json:"bottleneck_rank"`
	AcrossRanks    *AcrossRanks `json:"across_ranks"`
	Warnings       []string     `json:"warnings"`
	Notes          []string     `json:"notes"`
}

// derive fills the shares and sorts the lists from the counters.
func (s *RankSummary) derive() {
	for i := range s.Regions {
		r := &s.Regions[i]
		r.SumShare = share(r.SumNs, s.DeviceWorkSumNs)
		r.BusyShare = share(r.BusyNs, s.DeviceWorkBusyNs)
		r.WindowShare = share(r.BusyNs, s.WindowNs)
	}
	var mappedN, mappedT int64
	for i := range s.Coverage.ByMethod {
		m := &s.Coverage.ByMethod[i]
		m.CountShare = share(m.Count, s.DeviceWork)
		m.TimeShare = share(m.SumNs, s.DeviceWorkSumNs)
		if m.Method != Unmapped.String() {
			mappedN += m.Count
			mappedT += m.SumNs
		}
	}
	s.Coverage.CountShare = share(mappedN, s.DeviceWork)
	s.Coverage.TimeShare = share(mappedT, s.DeviceWorkSumNs)
	for i := range s.UnmappedTop {
		s.UnmappedTop[i].TimeShare = share(s.UnmappedTop[i].SumNs, s.DeviceWorkSumNs)
	}
	slices.SortStableFunc(s.UnmappedTop, func(a, b NameStat) int {
		return cmp.Or(cmp.Compare(b.SumNs, a.SumNs), cmp.Compare(b.Count, a.Count), strings.Compare(a.Name, b.Name))
	})
	regionSum := map[string]int64{}
	regionIdx := map[string]int{}
	for i, r := range s.Regions {
		regionSum[r.Region] = r.SumNs
		regionIdx[r.Region] = i
	}
	for i := range s.Shapes {
		s.Shapes[i].TimeShare = share(s.Shapes[i].SumNs, regionSum[s.Shapes[i].Region])
	}
	slices.SortStableFunc(s.Shapes, func(a, b ShapeStat) int {
		return cmp.Or(cmp.Compare(regionIdx[a.Region], regionIdx[b.Region]), cmp.Compare(b.SumNs, a.SumNs),
			cmp.Compare(b.Count, a.Count), slices.Compare(a.Grid[:], b.Grid[:]), slices.Compare(a.Block[:], b.Block[:]))
	})
}

// applyWork fills the per-work figures of every region from s.Work.
func (s *RankSummary) applyWork() {
	per := func(v, n int64) *float64 {
		if n <= 0 {
			return nil
		}
		f := float64(v) / float64(n)
		return &f
	}
	for i := range s.Regions {
		r := &s.Regions[i]
		r.SumPerRequestNs, r.BusyPerRequestNs, r.SumPerOutputTokenNs, r.BusyPerOutputTokenNs = nil, nil, nil, nil
		if s.Work == nil {
			continue
		}
		r.SumPerRequestNs = per(r.SumNs, s.Work.Requests)
		r.BusyPerRequestNs = per(r.BusyNs, s.Work.Requests)
		r.SumPerOutputTokenNs = per(r.SumNs, s.Work.OutputTokens)
		r.BusyPerOutputTokenNs = per(r.BusyNs, s.Work.OutputTokens)
	}
}

// NewReport builds a report from rank summaries made with the rule set of
// the given digest. Rank labels must be unique.
func NewReport(rulesDigest string, ranks []*RankSummary) (*Report, error) {
	r := &Report{RulesDigest: rulesDigest, Ranks: slices.Clone(ranks)}
	if err := r.finish(); err != nil {
		return nil, err
	}
	return r, nil
}

// Merge reduces reports (typically saved summaries of different nodes of
// one job) into one. Its contract:
//
//   - it refuses reports made with different rule sets (RulesDigest);
//   - it concatenates ranks: a rank is never summed with another into one
//     serial total, and the cross-rank figures (bottleneck, spreads) are
//     recomputed over all ranks;
//   - rank labels must stay unique; a duplicate is an error naming it;
//   - warnings are the deduplicated union, notes are recomputed;
//   - it is associative and commutative: the result depends only on the
//     set of ranks, which are ordered by label (natural order);
//   - its inputs are not modified; the result shares their rank summaries.
//
// The result carries Schema when the inputs do.
func Merge(rs ...*Report) (*Report, error) {
	if len(rs) == 0 {
		return nil, errors.New("merge: no summaries")
	}
	out := &Report{Schema: rs[0].Schema, RulesDigest: rs[0].RulesDigest}
	var warns []string
	for _, r := range rs {
		if r.RulesDigest != out.RulesDigest {
			return nil, fmt.Errorf("merge: summaries were made with different rules (digest %s vs %s)", short(out.RulesDigest), short(r.RulesDigest))
		}
		if r.Schema == "" {
			out.Schema = ""
		}
		out.Ranks = append(out.Ranks, r.Ranks...)
		warns = append(warns, r.Warnings...)
	}
	if err := out.finish(); err != nil {
		return nil, err
	}
	out.Warnings = dedupe(append(out.Warnings, warns...))
	return out, nil
}

// AddWarnings adds report-level warnings, such as a capture's own (one
// per input file, not per rank); the list stays sorted and deduplicated.
func (r *Report) AddWarnings(ws ...string) {
	r.Warnings = dedupe(append(r.Warnings, ws...))
}

func short(d string) string {
	if d == "" {
		return `""`
	}
	if len(d) > 12 {
		return d[:12]
	}
	return d
}

func dedupe(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	s = slices.Compact(s)
	if s == nil {
		s = []string{}
	}
	return s
}

// finish sorts the ranks, checks their labels, and recomputes the
// cross-rank figures, warnings and notes.
func (r *Report) finish() error {
	slices.SortFunc(r.Ranks, func(a, b *RankSummary) int {
		return cmp.Or(naturalCompare(a.Rank, b.Rank), strings.Compare(a.Source, b.Source),
			cmp.Compare(a.PID, b.PID), cmp.Compare(a.Device, b.Device))
	})
	for i := 1; i < len(r.Ranks); i++ {
		if r.Ranks[i].Rank == r.Ranks[i-1].Rank {
			return fmt.Errorf("duplicate rank label %q (%s and %s); give each input a distinct LABEL=", r.Ranks[i].Rank, r.Ranks[i-1].Source, r.Ranks[i].Source)
		}
	}
	var warns []string
	for _, s := range r.Ranks {
		warns = append(warns, s.Warnings...)
	}
	r.Warnings = dedupe(warns)
	r.Notes = []string{}
	r.BottleneckRank, r.AcrossRanks = "", nil
	if len(r.Ranks) == 0 {
		return nil
	}
	b := r.Ranks[0]
	for _, s := range r.Ranks[1:] {
		if s.NonCommBusyNs > b.NonCommBusyNs {
			b = s
		}
	}
	r.BottleneckRank = b.Rank
	r.AcrossRanks = &AcrossRanks{
		Ranks:         len(r.Ranks),
		BusyNs:        spread(r.Ranks, func(s *RankSummary) int64 { return s.DeviceWorkBusyNs }),
		CommBusyNs:    spread(r.Ranks, func(s *RankSummary) int64 { return s.CommBusyNs }),
		NonCommBusyNs: spread(r.Ranks, func(s *RankSummary) int64 { return s.NonCommBusyNs }),
	}
	var withWork []*RankSummary
	for _, s := range r.Ranks {
		if s.Work != nil {
			withWork = append(withWork, s)
		}
	}
	for _, s := range withWork[min(1, len(withWork)):] {
		w0 := withWork[0].Work
		if s.Work.Requests != w0.Requests || s.Work.OutputTokens != w0.OutputTokens || s.Work.InputTokens != w0.InputTokens {
			rq := spread(withWork, func(s *RankSummary) int64 { return s.Work.Requests })
			ot := spread(withWork, func(s *RankSummary) int64 { return s.Work.OutputTokens })
			r.Notes = append(r.Notes, fmt.Sprintf("the ranks completed different amounts of work (requests %d..%d, output tokens %d..%d): compare only the per-request and per-token figures", rq.Min, rq.Max, ot.Min, ot.Max))
			break
		}
	}
	return nil
}

func spread(ranks []*RankSummary, f func(*RankSummary) int64) Spread {
	var sp Spread
	var sum float64
	for i, s := range ranks {
		v := f(s)
		sum += float64(v)
		if i == 0 || v < sp.Min {
			sp.Min, sp.MinRank = v, s.Rank
		}
		if i == 0 || v > sp.Max {
			sp.Max, sp.MaxRank = v, s.Rank
		}
	}
	if len(ranks) > 0 {
		sp.Mean = sum / float64(len(ranks))
	}
	return sp
}

// Trim returns a copy of r whose per-rank lists keep only the top n
// unmapped names and the top n shapes of each region (n <= 0 keeps all).
func (r *Report) Trim(n int) *Report {
	out := *r
	out.Schema = ""
	out.Ranks = make([]*RankSummary, len(r.Ranks))
	for i, s := range r.Ranks {
		out.Ranks[i] = trimmed(s, n, false)
	}
	return &out
}

// trimmed returns a copy of s whose lists keep only the top n unmapped
// names and the top n shapes of each region (n <= 0 keeps all). With
// own, the kept lists are copies, so that s's complete lists can be
// collected; otherwise they may share s's arrays.
func trimmed(s *RankSummary, n int, own bool) *RankSummary {
	c := *s
	if n <= 0 {
		return &c
	}
	c.UnmappedTop = c.UnmappedTop[:min(n, len(c.UnmappedTop))]
	if own {
		c.UnmappedTop = slices.Clip(slices.Clone(c.UnmappedTop))
	}
	c.Shapes = []ShapeStat{}
	per := map[string]int{}
	for _, sh := range s.Shapes {
		if per[sh.Region] < n {
			per[sh.Region]++
			c.Shapes = append(c.Shapes, sh)
		}
	}
	if own {
		c.Shapes = slices.Clip(c.Shapes)
	}
	return &c
}
