package compare

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/check/checkreport"
	"github.com/servecmp/servecmp/internal/stats"
)

// New builds the comparison report. It returns an error only for unusable input
// (a side without runs); every limitation of the data becomes a note.
func New(in Input) (*Report, error) { return NewContext(context.Background(), in) }

// NewContext is New that stops its resampling loops and returns ctx's
// error once ctx is cancelled.
func NewContext(ctx context.Context, in Input) (*Report, error) {
	if len(in.A) == 0 || len(in.B) == 0 {
		return nil, errors.New("compare: need at least one result for A and one for B")
	}
	if in.Alpha <= 0 || in.Alpha >= 1 {
		in.Alpha = 0.05
	}
	if in.Resamples <= 0 {
		in.Resamples = 2000
	}
	if in.Resamples > MaxResamples {
		return nil, fmt.Errorf("compare: %d resamples, more than %d", in.Resamples, MaxResamples)
	}
	if in.Seed == 0 {
		in.Seed = 1
	}
	r := &Report{Schema: Schema, Alpha: in.Alpha, Comparable: true, NotComparable: []string{}, Notes: []string{}, Warnings: []string{}}
	runsA, sweepsA := splitRuns(in.A)
	runsB, sweepsB := splitRuns(in.B)
	for _, s := range sweepsA {
		r.Sweeps = append(r.Sweeps, curve("a", s))
	}
	for _, s := range sweepsB {
		r.Sweeps = append(r.Sweeps, curve("b", s))
	}
	if len(runsA) == 0 || len(runsB) == 0 {
		// Only sweeps on a side: their last step stands in for a run.
		if len(runsA) == 0 {
			runsA = sweepsA
		}
		if len(runsB) == 0 {
			runsB = sweepsB
		}
		r.Notes = append(r.Notes, "a side has only sweep results: its metrics are the last sweep step's")
	}
	if err := requireSummaries(append(slices.Clone(runsA), runsB...)); err != nil {
		return nil, err
	}
	for _, run := range runsA {
		r.RunsA = append(r.RunsA, run.Path)
	}
	for _, run := range runsB {
		r.RunsB = append(r.RunsB, run.Path)
	}
	for _, run := range append(slices.Clone(runsA), runsB...) {
		if run.Result.Incomplete {
			r.Warnings = append(r.Warnings, run.Path+": the run is marked incomplete; its figures cover what completed")
		}
	}
	r.RunTimes = runTimes(runsA, runsB)
	r.contract(runsA, runsB, in.Intentional)
	r.inputs(runsA, runsB, in)
	r.correctness(in)
	r.phase(runsA, runsB)
	if err := r.verdicts(ctx, runsA, runsB, in, r.gateSuccesses(runsA, runsB)); err != nil {
		return nil, err
	}
	r.sloCapacity(sweepsA, sweepsB)
	r.counts(runsA, runsB)
	r.serverMetrics(runsA, runsB)
	r.energy(runsA, runsB)
	r.resultNotes(in.A, in.B)
	r.RequestsA, r.RequestsB = in.RecordsA, in.RecordsB
	if len(in.ProfilesA) > 0 || len(in.ProfilesB) > 0 {
		r.GPU = gpuTime(in.ProfilesA, in.ProfilesB)
	}
	r.Conclusion = Conclude(r)
	return r, nil
}

func splitRuns(runs []Run) (plain, sweeps []Run) {
	for _, r := range runs {
		if r.Result.Sweep != nil && len(r.Result.Sweep.Steps) > 0 {
			sweeps = append(sweeps, r)
		} else {
			plain = append(plain, r)
		}
	}
	return plain, sweeps
}

func curve(side string, run Run) SweepCurve {
	sw := run.Result.Sweep
	c := SweepCurve{Side: side, Path: run.Path, Kind: string(sw.Kind), SaturationAt: sw.SaturationAt}
	for _, st := range sw.Steps {
		s := st.Summary
		c.Points = append(c.Points, SweepPoint{
			Offered: st.Value, RequestThroughput: s.RequestThroughput, OutputThroughput: s.OutputThroughput,
			TTFTP50: s.TTFT.P50, TTFTP99: s.TTFT.P99, TPOTP50: s.TPOT.P50, E2EP50: s.E2E.P50, E2EP99: s.E2E.P99,
		})
	}
	return c
}

// criticalGroup returns the comparability group of a flattened field, or "".
func criticalGroup(field string) string {
	switch field {
	case "manifest.model":
		return "model"
	case "workload.sha256", "workload.count":
		return "workload"
	case "workload.tokenizer_hash":
		return "tokenizer"
	case InputsField:
		return "inputs"
	case "manifest.gpu_type", "manifest.gpu_count", "manifest.topology", "manifest.memory_limit":
		return "resources"
	case "load.mode", "load.concurrency", "load.rate", "load.arrival", "load.burstiness", "load.max_concurrency",
		"load.warmup", "load.duration_s", "load.drain", "load.requests", "manifest.load_policy":
		return "load"
	}
	return ""
}

// volatile fields differ between any two runs and say nothing about the
// systems; they are left out of the differences.
var volatile = map[string]bool{"manifest.client_host": true, "workload.path": true, "manifest.url": true}

func intentional(field string, decl []string) bool {
	for _, d := range decl {
		if d == field || strings.HasSuffix(field, "."+d) || d == criticalGroup(field) || strings.HasPrefix(field, d+".") {
			return true
		}
	}
	return false
}

// flatten turns the comparable part of a result into field → value.
func flatten(res *result.Result) map[string]string {
	out := map[string]string{}
	add := func(prefix string, v any) {
		b, _ := json.Marshal(v)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		flattenInto(out, prefix, m)
	}
	add("manifest", res.Manifest)
	add("workload", res.Workload)
	add("load", res.Load)
	return out
}

func flattenInto(out map[string]string, prefix string, m map[string]any) {
	for k, v := range m {
		key := prefix + "." + k
		switch x := v.(type) {
		case map[string]any:
			flattenInto(out, key, x)
		case nil:
			out[key] = ""
		case string:
			out[key] = x
		case float64:
			out[key] = strconv.FormatFloat(x, 'g', -1, 64)
		default:
			b, _ := json.Marshal(x)
			out[key] = string(b)
		}
	}
}

func values(runs []Run, field string, flat []map[string]string) string {
	var vs []string
	for _, f := range flat {
		v := f[field]
		if !slices.Contains(vs, v) {
			vs = append(vs, v)
		}
	}
	return strings.Join(vs, " | ")
}

// notGiven is "" for a GPU count of 0, which means not given.
func notGiven(v string) string {
	if v == "0" {
		return ""
	}
	return v
}

// unrecordedResources is the note for resource fields given on neither
// side (r.Contract), or "": the GPU type, and the GPU count unless both
// sides ran on CPUs (gpu_type cpu).
func (r *Report) unrecordedResources() string {
	var unknown []string
	cpu := true
	for _, f := range r.Contract {
		switch f.Name {
		case "gpu_type":
			cpu = strings.EqualFold(f.A, "cpu") && strings.EqualFold(f.B, "cpu")
			if f.A == "" && f.B == "" {
				unknown = append(unknown, f.Name)
			}
		case "gpu_count":
			if f.A == "" && f.B == "" && !cpu {
				unknown = append(unknown, f.Name)
			}
		}
	}
	if len(unknown) == 0 {
		return ""
	}
	return "resource contract not recorded: " + strings.Join(unknown, " and ") + " given on neither side (benchmark --manifest " +
		unknown[0] + "=..., or " + unknown[0] + " in the experiment file): equal resources are not verified"
}

func (r *Report) contract(runsA, runsB []Run, decl []string) {
	var fa, fb []map[string]string
	keys := map[string]bool{}
	for _, run := range runsA {
		f := flatten(run.Result)
		fa = append(fa, f)
		for k := range f {
			keys[k] = true
		}
	}
	for _, run := range runsB {
		f := flatten(run.Result)
		fb = append(fb, f)
		for k := range f {
			keys[k] = true
		}
	}
	sorted := slices.Sorted(func(yield func(string) bool) {
		for k := range keys {
			if !yield(k) {
				return
			}
		}
	})
	r.Differences = []Difference{}
	for _, k := range sorted {
		if volatile[k] {
			continue
		}
		va, vb := values(runsA, k, fa), values(runsB, k, fb)
		if va == vb {
			continue
		}
		d := Difference{Field: k, A: va, B: vb, Intentional: intentional(k, decl), Critical: criticalGroup(k) != ""}
		r.Differences = append(r.Differences, d)
		if d.Critical && !d.Intentional {
			r.Comparable = false
			r.NotComparable = append(r.NotComparable, k)
		}
	}
	for _, d := range decl {
		found := inputsFieldKnown(d)
		for _, k := range sorted {
			if intentional(k, []string{d}) {
				found = true
				break
			}
		}
		if !found {
			r.Warnings = append(r.Warnings, fmt.Sprintf("--intentional %s matches no manifest, workload or load field", d))
		}
	}
	for _, k := range []string{"manifest.model", "manifest.engine", "manifest.engine_version", "manifest.gpu_type", "manifest.gpu_count",
		"manifest.topology", "manifest.memory_limit", "manifest.compute_precision", "manifest.weight_precision",
		"manifest.kv_precision", "manifest.quantization", "manifest.attention_backend", "manifest.graph_mode", "manifest.cache_policy"} {
		a, b := values(runsA, k, fa), values(runsB, k, fb)
		if k == "manifest.gpu_count" { // 0 is "not given" (result.Manifest)
			a, b = notGiven(a), notGiven(b)
		}
		r.Contract = append(r.Contract, Field{Name: strings.TrimPrefix(k, "manifest."), A: a, B: b})
	}
	if n := r.unrecordedResources(); n != "" {
		r.Notes = append(r.Notes, n)
	}
	w := &r.Workload
	w.SHA256A, w.SHA256B = values(runsA, "workload.sha256", fa), values(runsB, "workload.sha256", fb)
	w.CountA, w.CountB = runsA[0].Result.Workload.Count, runsB[0].Result.Workload.Count
	w.LoadA, w.LoadB = runsA[0].Result.Load.String(), runsB[0].Result.Load.String()
}

func (r *Report) correctness(in Input) {
	c := &r.Correctness
	c.Quality = "not-run"
	if in.Check == nil {
		r.Notes = append(r.Notes, "correctness not checked: run servecmp check before trusting a speed-up")
		return
	}
	s := in.Check.Summary
	c.Checked, c.Path = true, in.CheckPath
	c.Requests, c.ExactMatch, c.Failed, c.Passed = s.Requests, s.ExactMatch, s.Failed, s.Passed
	c.Evidence = string(s.Evidence)
	if n := s.EvidenceCounts[checkreport.Text]; n > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("the correctness check compared %d request(s) by text, weaker evidence than token ids: equal text does not prove equal tokens", n))
	}
	if in.Check.Quality.Status != "" {
		c.Quality = in.Check.Quality.Status
	}
	c.QualityNote = in.Check.Quality.Note
	if !c.Passed {
		r.Warnings = append(r.Warnings, fmt.Sprintf("correctness check failed: %d of %d requests matched exactly", s.ExactMatch, s.Requests))
	}
	if c.Quality == "fail" {
		r.Warnings = append(r.Warnings, "downstream quality check failed")
	}
}

func (r *Report) phase(runsA, runsB []Run) {
	var kinds []string
	for _, run := range append(slices.Clone(runsA), runsB...) {
		res := run.Result
		k := "steady state"
		if res.Summary.CompletionTimeS != nil && res.Load.DurationS == 0 {
			k = "fixed finite workload"
		}
		if !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	l := runsA[0].Result.Load
	p := runsA[0].Result.Phases
	startup := fmt.Sprintf("startup excluded (%d warmup requests)", l.Warmup)
	if l.Warmup == 0 {
		startup = "startup included (no warmup requests)"
	}
	detail := fmt.Sprintf("%s, steady window %.1f s, drain %.1f s included in the duration",
		startup, p.Steady.DurationS, p.Drain.DurationS)
	r.Phase = strings.Join(kinds, " and ") + "; " + detail
	if len(kinds) > 1 {
		r.Warnings = append(r.Warnings, "runs mix fixed-workload and duration-bounded phases")
	}
}

// latencyKinds are the latency distributions of result.Summary.
var latencyKinds = []struct {
	name string
	dist func(*result.Summary) *result.Dist
}{
	{"ttft_ms", func(s *result.Summary) *result.Dist { return &s.TTFT }},
	{"tpot_ms", func(s *result.Summary) *result.Dist { return &s.TPOT }},
	{"itl_ms", func(s *result.Summary) *result.Dist { return &s.ITL }},
	{"itl_per_token_ms", func(s *result.Summary) *result.Dist { return &s.ITLPerToken }},
	{"e2e_ms", func(s *result.Summary) *result.Dist { return &s.E2E }},
}

var latencyStats = []struct {
	name string
	stat stats.Stat
	get  func(*result.Dist) float64
}{
	{"mean", stats.Mean, func(d *result.Dist) float64 { return d.Mean }},
	{"p50", 0.50, func(d *result.Dist) float64 { return d.P50 }},
	{"p90", 0.90, func(d *result.Dist) float64 { return d.P90 }},
	{"p95", 0.95, func(d *result.Dist) float64 { return d.P95 }},
	{"p99", 0.99, func(d *result.Dist) float64 { return d.P99 }},
}

func deltaPct(a, b float64) *float64 {
	if a == 0 {
		return nil
	}
	return finite((b - a) / a * 100)
}

// finite returns a pointer to f, or nil (no value) when f is NaN or ±Inf.
func finite(f float64) *float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return &f
}

// flat returns the pooled values of clusters, sorted.
func flat(cs [][]float64) []float64 {
	var out []float64
	for _, c := range cs {
		out = append(out, c...)
	}
	slices.Sort(out)
	return out
}

// throughputMetrics are the per-run figures compared run by run (verdicts.go).
// The steady_* rows divide the work done inside the steady-state window
// (the offered load held) by that window, where the summary's figures
// divide successful work by the whole run, drain included: with --duration
// and a cancel drain they are the figures that describe the held load.
var throughputMetrics = []struct {
	name, unit  string
	lowerBetter bool
	get         func(*result.Result) float64
	ok          func(*result.Result) bool
}{
	{"output_throughput", "tok/s", false, func(r *result.Result) float64 { return r.Summary.OutputThroughput }, nil},
	{"input_throughput", "tok/s", false, func(r *result.Result) float64 { return r.Summary.InputThroughput }, nil},
	{"request_throughput", "req/s", false, func(r *result.Result) float64 { return r.Summary.RequestThroughput }, nil},
	{"steady_output_throughput", "tok/s", false, func(r *result.Result) float64 { return r.Phases.Steady.OutputThroughput },
		func(r *result.Result) bool { return r.Phases.Steady.DurationS > 0 }},
	{"steady_request_throughput", "req/s", false, func(r *result.Result) float64 { return r.Phases.Steady.RequestThroughput },
		func(r *result.Result) bool { return r.Phases.Steady.DurationS > 0 }},
	{"completion_time_s", "s", true, func(r *result.Result) float64 { return *r.Summary.CompletionTimeS },
		// A run with no successful request completed nothing.
		func(r *result.Result) bool { return r.Summary.CompletionTimeS != nil && r.Summary.RequestsOK > 0 }},
}

func (r *Report) counts(runsA, runsB []Run) {
	sum := func(runs []Run, get func(*result.Summary) float64) float64 {
		var t float64
		for _, run := range runs {
			t += get(&run.Result.Summary)
		}
		return t
	}
	for _, c := range []struct {
		name string
		get  func(*result.Summary) float64
	}{
		{"runs", func(*result.Summary) float64 { return 1 }},
		{"requests_ok", func(s *result.Summary) float64 { return float64(s.RequestsOK) }},
		{"requests_failed", func(s *result.Summary) float64 { return float64(s.RequestsFailed) }},
		{"requests_cancelled", func(s *result.Summary) float64 { return float64(s.RequestsCancelled) }},
		{"input_tokens", func(s *result.Summary) float64 { return float64(s.InputTokens) }},
		{"output_tokens", func(s *result.Summary) float64 { return float64(s.OutputTokens) }},
		{"duration_s", func(s *result.Summary) float64 { return s.DurationS }},
	} {
		r.Counts = append(r.Counts, Count{Name: c.name, A: sum(runsA, c.get), B: sum(runsB, c.get)})
	}
	fa, fb := sum(runsA, func(s *result.Summary) float64 { return float64(s.RequestsFailed) }),
		sum(runsB, func(s *result.Summary) float64 { return float64(s.RequestsFailed) })
	if fa > 0 || fb > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("failed requests: A %g, B %g; latency figures use successful requests only", fa, fb))
	}
}

// pooled gathers the per-request latency samples of every records file,
// one cluster per request: successful requests of each file's last step (a
// sweep's records hold every step; the result's summary is the last one's).
func pooled(files []Records) (map[string][][]float64, []string) {
	out := map[string][][]float64{}
	var notes []string
	for _, f := range files {
		last := 0
		for i := range f.Records {
			last = max(last, f.Records[i].Step)
		}
		if last > 0 {
			notes = append(notes, fmt.Sprintf("%s: sweep records; only step %d (the last) is pooled", f.Path, last))
		}
		for i := range f.Records {
			rec := &f.Records[i]
			if !rec.OK || rec.Step != last {
				continue
			}
			addRecord(out, rec)
		}
	}
	return out, notes
}

// addRecord derives the latency samples of one successful request exactly
// as result.NewSummary does: TTFT when a content chunk arrived; E2E as
// recorded; TPOT as (E2E−TTFT)/(completion_tokens−1) when more than one
// token arrived; ITL as the gaps between consecutive content chunks; ITL
// per token as each gap plus k−1 zeros for every k-token chunk.
func addRecord(out map[string][][]float64, rec *result.Record) {
	out["e2e_ms"] = append(out["e2e_ms"], []float64{rec.E2EMs})
	if len(rec.ChunkTimesMs) == 0 {
		return
	}
	out["ttft_ms"] = append(out["ttft_ms"], []float64{rec.TTFTMs})
	if n := rec.CompletionTokens; n > 1 {
		out["tpot_ms"] = append(out["tpot_ms"], []float64{(rec.E2EMs - rec.TTFTMs) / float64(n-1)})
	}
	var itl, perTok []float64
	for j, t := range rec.ChunkTimesMs {
		if j > 0 {
			g := t - rec.ChunkTimesMs[j-1]
			itl = append(itl, g)
			perTok = append(perTok, g)
		}
		if j < len(rec.ChunkTokens) {
			for range rec.ChunkTokens[j] - 1 {
				perTok = append(perTok, 0)
			}
		}
	}
	if len(itl) > 0 {
		out["itl_ms"] = append(out["itl_ms"], itl)
	}
	if len(perTok) > 0 {
		out["itl_per_token_ms"] = append(out["itl_per_token_ms"], perTok)
	}
}

// resultNotes carries the results' notes (what a run left out by design,
// such as the metrics of an engine without an endpoint) into the report,
// each once per side.
func (r *Report) resultNotes(runsA, runsB []Run) {
	for _, sd := range []struct {
		name string
		runs []Run
	}{{"A", runsA}, {"B", runsB}} {
		var seen []string
		for _, run := range sd.runs {
			for _, n := range run.Result.Notes {
				if !slices.Contains(seen, n) {
					seen = append(seen, n)
					r.Notes = append(r.Notes, sd.name+": "+n)
				}
			}
		}
	}
}

// serverMetrics summarises the scraped server-side series of each side.
func (r *Report) serverMetrics(runsA, runsB []Run) {
	type acc struct {
		unit, kind string
		peak       *float64
		sum        float64
		n          int
	}
	collect := func(runs []Run) (map[string]*acc, []string) {
		out := map[string]*acc{}
		var order []string
		for _, run := range runs {
			sm := run.Result.ServerMetrics
			if sm == nil {
				continue
			}
			for _, m := range sm.Metrics {
				a := out[m.Name]
				if a == nil {
					a = &acc{unit: m.Unit, kind: string(m.Kind)}
					out[m.Name] = a
					order = append(order, m.Name)
				}
				// A counter's in-window peak is its running total since
				// the server started, which depends on what the server did
				// before this run; its per-run figure is the increase, and
				// its peak the largest increase of one run.
				peak, level := m.Peak, m.Mean
				if m.Kind == result.Counter {
					peak, level = m.Increase, m.Increase
				}
				if peak != nil && (a.peak == nil || *peak > *a.peak) {
					v := *peak
					a.peak = &v
				}
				if level != nil {
					a.sum += *level
					a.n++
				}
			}
		}
		return out, order
	}
	ma, oa := collect(runsA)
	mb, ob := collect(runsB)
	names := oa
	for _, n := range ob {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	mean := func(a *acc) *float64 {
		if a == nil || a.n == 0 {
			return nil
		}
		return finite(a.sum / float64(a.n))
	}
	for _, n := range names {
		a, b := ma[n], mb[n]
		m := ServerMetric{Name: n, MeanA: mean(a), MeanB: mean(b)}
		for _, x := range []*acc{a, b} {
			if x != nil {
				m.Unit, m.Kind = x.unit, x.kind
			}
		}
		if a != nil {
			m.PeakA = a.peak
		}
		if b != nil {
			m.PeakB = b.peak
		}
		r.Server = append(r.Server, m)
	}
}
