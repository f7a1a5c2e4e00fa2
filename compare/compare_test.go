package compare

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/check/checkreport"
	"github.com/servecmp/servecmp/classify"
	"github.com/servecmp/servecmp/internal/stats"
)

// synthRun builds one run of n requests whose latencies are drawn around
// the given means (seeded), with records and a summary computed from them.
func synthRun(name string, seed uint64, n int, ttft, tpot, tput float64) (Run, Records) {
	rng := rand.New(rand.NewPCG(seed, 99))
	var recs []result.Record
	var tt, tp, e2, gaps []float64
	for i := range n {
		t := ttft * (0.8 + 0.4*rng.Float64())
		p := tpot * (0.9 + 0.2*rng.Float64())
		out := 16
		chunks := make([]float64, out)
		tok := make([]int, out)
		for k := range out {
			chunks[k] = t + float64(k)*p
			tok[k] = 1
		}
		e := chunks[out-1]
		recs = append(recs, result.Record{ID: name + "-" + string(rune('a'+i%26)), OK: true, TTFTMs: t, E2EMs: e,
			ChunkTimesMs: chunks, ChunkTokens: tok, PromptTokens: 32, CompletionTokens: out, UsageReported: true, FinishReason: "length"})
		tt, tp, e2 = append(tt, t), append(tp, (e-t)/float64(out-1)), append(e2, e)
		for k := 1; k < out; k++ {
			gaps = append(gaps, chunks[k]-chunks[k-1])
		}
	}
	dist := func(v []float64) result.Dist {
		s := slices.Sorted(slices.Values(v))
		var sum float64
		for _, x := range s {
			sum += x
		}
		return result.Dist{Mean: sum / float64(len(s)), P50: stats.Quantile(s, 0.5), P90: stats.Quantile(s, 0.9),
			P95: stats.Quantile(s, 0.95), P99: stats.Quantile(s, 0.99), Max: s[len(s)-1], Count: len(s)}
	}
	ct := float64(n) / (tput / 16)
	res := &result.Result{
		Schema:   result.Schema,
		Manifest: result.Manifest{Engine: "sim", Model: "demo-model", GPUType: "H100", GPUCount: 1, LoadPolicy: "concurrency"},
		Workload: result.WorkloadInfo{Path: "w.jsonl", SHA256: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", Count: n},
		Load:     result.LoadPolicy{Mode: "concurrency", Concurrency: 4, Warmup: 2, Drain: "wait", Requests: n},
		Phases: result.Phases{Steady: result.Phase{DurationS: ct * 0.9, OutputThroughput: tput * 1.05, RequestThroughput: float64(n) / ct * 1.05},
			Drain: result.Phase{DurationS: ct * 0.1}},
		Summary: result.Summary{RequestsOK: n, InputTokens: int64(32 * n), OutputTokens: int64(16 * n), DurationS: ct,
			RequestThroughput: float64(n) / ct, InputThroughput: float64(32*n) / ct, OutputThroughput: tput, CompletionTimeS: &ct,
			TTFT: dist(tt), TPOT: dist(tp), E2E: dist(e2), ITL: dist(gaps), ITLPerToken: dist(gaps)},
	}
	return Run{Path: name + ".json", Result: res}, Records{Path: name + ".records.jsonl", Records: recs}
}

func mkSide(prefix string, seed uint64, runs int, ttft, tpot float64, tputs []float64) ([]Run, []Records) {
	var rs []Run
	var rec []Records
	for i := range runs {
		r, x := synthRun(fmt.Sprintf("%s%d", prefix, i+1), seed+uint64(i), 200, ttft, tpot, tputs[i])
		rs, rec = append(rs, r), append(rec, x)
	}
	return rs, rec
}

func metric(t *testing.T, r *Report, name string) Metric {
	t.Helper()
	for _, m := range r.Metrics {
		if m.Name == name {
			return m
		}
	}
	t.Fatalf("no metric %s", name)
	return Metric{}
}

func TestVerdictKnownDifference(t *testing.T) {
	a, ra := mkSide("a", 1, 3, 100, 20, []float64{1000, 1010, 990})
	b, rb := mkSide("b", 11, 3, 70, 20, []float64{1300, 1290, 1310})
	rep, err := New(Input{A: a, B: b, RecordsA: ra, RecordsB: rb})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Comparable {
		t.Fatalf("should be comparable: %v", rep.NotComparable)
	}
	for _, name := range []string{"ttft_ms_p50", "ttft_ms_mean", "ttft_ms_p90", "e2e_ms_p50"} {
		if m := metric(t, rep, name); m.Verdict != "b" || m.Method != "welch-t" || *m.CIHigh >= 0 || m.RunsNeeded != 0 {
			t.Errorf("%s: verdict %q method %s ci [%v, %v], want b (B lower latency)", name, m.Verdict, m.Method, *m.CILow, *m.CIHigh)
		}
	}
	if m := metric(t, rep, "output_throughput"); m.Verdict != "b" || m.Method != "welch-t" || *m.PValue >= 0.05 {
		t.Errorf("output_throughput: %+v, want b by welch-t", m)
	}
	// The steady-state window's throughput is its own row, same direction.
	if m := metric(t, rep, "steady_output_throughput"); m.Verdict != "b" || !near(m.A, 1050) || m.Method != "welch-t" {
		t.Errorf("steady_output_throughput: %+v, want b, A 1050", m)
	}
	if m := metric(t, rep, "completion_time_s"); m.Verdict != "b" {
		t.Errorf("completion_time_s: verdict %q, want b (shorter)", m.Verdict)
	}
	// The run is the unit: three per side, and consistent runs make a 30%
	// difference easy to detect.
	if m := metric(t, rep, "ttft_ms_p50"); m.NA != 3 || m.NB != 3 || m.MDDPct == nil || *m.MDDPct > 10 {
		t.Errorf("ttft_ms_p50: %d/%d runs, mdd %v%%; want 3/3 runs and mdd under 10%%", m.NA, m.NB, deref(m.MDDPct))
	}
}

func TestVerdictNoDifference(t *testing.T) {
	a, ra := mkSide("a", 1, 3, 100, 20, []float64{1000, 1010, 990})
	b, rb := mkSide("b", 21, 3, 100, 20, []float64{1005, 995, 1000})
	rep, err := New(Input{A: a, B: b, RecordsA: ra, RecordsB: rb})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range rep.Metrics {
		if m.Verdict != "~" {
			t.Errorf("%s: verdict %q (p=%v), want ~ for identical distributions", m.Name, m.Verdict, deref(m.PValue))
		}
	}
}

func deref(p *float64) float64 {
	if p == nil {
		return -1
	}
	return *p
}

func TestPhaseStartup(t *testing.T) {
	// Without warmup requests the startup is part of the measurement: the
	// report must not claim it was excluded.
	a, _ := mkSide("a", 1, 1, 100, 20, []float64{1000})
	b, _ := mkSide("b", 2, 1, 100, 20, []float64{1000})
	for _, r := range append(a, b...) {
		r.Result.Load.Warmup = 0
	}
	rep, err := New(Input{A: a, B: b})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rep.Phase, "startup included (no warmup requests)") || strings.Contains(rep.Phase, "excluded") {
		t.Errorf("phase %q", rep.Phase)
	}
}

func TestSingleRunThroughputNeedsRepeats(t *testing.T) {
	a, _ := mkSide("a", 1, 1, 100, 20, []float64{1000})
	b, _ := mkSide("b", 2, 1, 50, 20, []float64{2000})
	rep, err := New(Input{A: a, B: b})
	if err != nil {
		t.Fatal(err)
	}
	// A 2x difference of one run each is no evidence: no spread to judge
	// it by, so the verdict asks for runs, and cannot say how many.
	m := metric(t, rep, "output_throughput")
	if m.Verdict != NeedsMoreRuns || m.RunsNeeded != 0 || !strings.Contains(m.Reason, "no run-to-run spread") || m.Method != "none" || m.PValue != nil || m.CILow != nil || !strings.Contains(m.Note, "no test and no interval") {
		t.Errorf("single-run throughput: %+v", m)
	}
	if l := metric(t, rep, "ttft_ms_p50"); l.Verdict != NeedsMoreRuns || l.Method != "none" || l.MDDPct != nil {
		t.Errorf("single-run latency without records: %+v", l)
	}
}

func TestContractMismatch(t *testing.T) {
	tests := []struct {
		name        string
		mutate      func(*result.Result)
		intentional []string
		comparable  bool
		field       string
	}{
		{"model", func(r *result.Result) { r.Manifest.Model = "other-model" }, nil, false, "manifest.model"},
		{"workload", func(r *result.Result) { r.Workload.SHA256 = strings.Repeat("b", 64) }, nil, false, "workload.sha256"},
		{"tokenizer", func(r *result.Result) { r.Workload.TokenizerHash = "aa" }, nil, false, "workload.tokenizer_hash"},
		{"tokenizer declared", func(r *result.Result) { r.Workload.TokenizerHash = "aa" }, []string{"tokenizer"}, true, "workload.tokenizer_hash"},
		{"gpu", func(r *result.Result) { r.Manifest.GPUType = "A100" }, nil, false, "manifest.gpu_type"},
		{"gpu declared", func(r *result.Result) { r.Manifest.GPUType = "A100" }, []string{"resources"}, true, "manifest.gpu_type"},
		{"load", func(r *result.Result) { r.Load.Concurrency = 8 }, nil, false, "load.concurrency"},
		{"quantization is not critical", func(r *result.Result) { r.Manifest.Quantization = "fp8" }, nil, true, "manifest.quantization"},
		{"quantization declared", func(r *result.Result) { r.Manifest.Quantization = "fp8" }, []string{"quantization"}, true, "manifest.quantization"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, _ := mkSide("a", 1, 1, 100, 20, []float64{1000})
			b, _ := mkSide("b", 2, 1, 100, 20, []float64{1000})
			tc.mutate(b[0].Result)
			rep, err := New(Input{A: a, B: b, Intentional: tc.intentional})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Comparable != tc.comparable {
				t.Errorf("comparable = %v, want %v (%v)", rep.Comparable, tc.comparable, rep.NotComparable)
			}
			i := slices.IndexFunc(rep.Differences, func(d Difference) bool { return d.Field == tc.field })
			if i < 0 {
				t.Fatalf("difference %s not listed: %+v", tc.field, rep.Differences)
			}
			if rep.Differences[i].Intentional != (tc.intentional != nil) {
				t.Errorf("intentional = %v", rep.Differences[i].Intentional)
			}
			if slices.Contains(rep.NotComparable, tc.field) == tc.comparable {
				t.Errorf("NotComparable %q lists %s: %v, want %v", rep.NotComparable, tc.field, tc.comparable, !tc.comparable)
			}
		})
	}
}

func profile(label string, attn, ffn, comm int64, work int64) Profile {
	rs := &classify.RankSummary{Rank: label, Source: label + ".sqlite", GPU: "H100", WindowNs: 1e9, WindowFrom: "capture",
		DeviceWork: 100, DeviceWorkSumNs: attn + ffn + comm, DeviceWorkBusyNs: attn + ffn + comm, NonCommBusyNs: attn + ffn, CommBusyNs: comm,
		Coverage: classify.Coverage{TimeShare: 0.95},
		Shapes:   []classify.ShapeStat{{Region: "attention", Grid: [3]int32{128, 1, 1}, Block: [3]int32{256, 1, 1}, Count: 10, SumNs: attn, TimeShare: 1}},
		Work:     &classify.Work{Requests: work, OutputTokens: work * 16, From: "flag"},
	}
	for _, r := range []struct {
		name string
		ns   int64
	}{{"attention", attn}, {"ffn", ffn}, {"communication", comm}, {"io", 0}, {"other", 0}} {
		perTok := float64(r.ns) / float64(work*16)
		perReq := float64(r.ns) / float64(work)
		rs.Regions = append(rs.Regions, classify.RegionSummary{Region: r.name, Count: 10, SumNs: r.ns, BusyNs: r.ns,
			BusyShare: float64(r.ns) / float64(attn+ffn+comm), BusyPerOutputTokenNs: &perTok, BusyPerRequestNs: &perReq})
	}
	rep, err := classify.NewReport("digest", []*classify.RankSummary{rs})
	if err != nil {
		panic(err)
	}
	return Profile{Path: label + ".json", Report: rep}
}

func goldenReport(t *testing.T) *Report {
	t.Helper()
	a, ra := mkSide("a", 1, 3, 100, 20, []float64{1000, 1010, 990})
	b, rb := mkSide("b", 11, 3, 70, 20, []float64{1300, 1290, 1310})
	b[0].Result.Manifest.Quantization = "fp8"
	for i, run := range append(slices.Clone(a), b...) {
		peak := 0.5 + 0.1*float64(i)
		run.Result.ServerMetrics = new(result.ServerMetrics)
		if err := json.Unmarshal(fmt.Appendf(nil, `{"metrics":[{"name":"kv_cache_usage","kind":"gauge","unit":"fraction","peak":%g,"mean":%g},`+
			`{"name":"preemptions","kind":"counter","unit":"preemptions","peak":9,"increase":%d}]}`, peak, peak/2, i), run.Result.ServerMetrics); err != nil {
			t.Fatal(err)
		}
	}
	b[1].Result.Manifest.Quantization = "fp8"
	b[2].Result.Manifest.Quantization = "fp8"
	startAt(a, 0, 10, 20) // all A, then all B: the report notes the blocked design
	startAt(b, 30, 40, 50)
	sat := 4.0
	sw := &result.Sweep{Kind: "concurrency", Values: []float64{1, 4}, SaturationAt: &sat}
	for _, v := range []float64{1, 4} {
		sw.Steps = append(sw.Steps, result.SweepStep{Value: v, Summary: result.Summary{OutputThroughput: 300 * v, RequestThroughput: 20 * v,
			TTFT: result.Dist{P50: 50 * v, P99: 80 * v}, E2E: result.Dist{P50: 300, P99: 400}}})
	}
	swA := Run{Path: "sweep-a.json", Result: &result.Result{Schema: result.Schema, Manifest: a[0].Result.Manifest,
		Workload: a[0].Result.Workload, Load: a[0].Result.Load, Sweep: sw}}
	chk := &checkreport.Report{Schema: checkreport.Schema, Summary: checkreport.Summary{Requests: 8, ExactMatch: 8, OKBoth: 8, Evidence: checkreport.TokenIDs, Passed: true},
		Quality: checkreport.Quality{Status: "not-run"}}
	rep, err := New(Input{A: append(a, swA), B: b, RecordsA: ra, RecordsB: rb, Intentional: []string{"quantization"},
		Check: chk, CheckPath: "check.json",
		ProfilesA: []Profile{profile("0", 600e6, 300e6, 100e6, 100)},
		ProfilesB: []Profile{profile("0", 400e6, 350e6, 50e6, 120)}})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestServerMetrics(t *testing.T) {
	rep := goldenReport(t)
	if len(rep.Server) != 2 {
		t.Fatalf("server metrics %+v", rep.Server)
	}
	kv := rep.Server[0]
	// A runs 0..2 peak 0.5..0.7, B runs 3..5 peak 0.8..1.0; means are half.
	if kv.Name != "kv_cache_usage" || !near(*kv.PeakA, 0.7) || !near(*kv.PeakB, 1.0) || !near(*kv.MeanA, 0.3) || !near(*kv.MeanB, 0.45) {
		t.Errorf("kv %+v", kv)
	}
	pre := rep.Server[1]
	// A counter's peak is its largest per-run increase (A 0..2, B 3..5),
	// not its running total since the server started (9 in every run).
	if pre.Kind != "counter" || !near(*pre.MeanA, 1) || !near(*pre.MeanB, 4) || !near(*pre.PeakA, 2) || !near(*pre.PeakB, 5) {
		t.Errorf("preemptions increase per run: %+v", pre)
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func TestGPUDeltas(t *testing.T) {
	rep := goldenReport(t)
	g := rep.GPU
	if g.Basis != "output_token" {
		t.Fatalf("basis %s", g.Basis)
	}
	// attention: A 600e6/1600 tok = 375000 ns/tok, B 400e6/1920 = 208333.3
	d := g.Deltas[0]
	if d.Region != "attention" || *d.PerWorkA != 375000 || int(*d.PerWorkB) != 208333 {
		t.Errorf("attention delta %+v", d)
	}
	if !slices.ContainsFunc(g.Limitations, func(s string) bool { return strings.Contains(s, "different work") }) {
		t.Errorf("limitations should mention different work: %v", g.Limitations)
	}
}

func TestCompareNeedsBothSides(t *testing.T) {
	a, _ := mkSide("a", 1, 1, 100, 20, []float64{1000})
	if _, err := New(Input{A: a}); err == nil {
		t.Error("want error without B")
	}
}

// Pooled records of a single run must reproduce benchmark's own summary.
func TestPooledMatchesBenchmarkSummary(t *testing.T) {
	_, rec := synthRun("x", 5, 300, 80, 15, 1000)
	rec.Records[3].ChunkTokens[2] = 3 // a multi-token chunk for ITL per token
	rec.Records[3].CompletionTokens = 18
	sum := result.NewSummary(rec.Records, 0, true)
	cs, _ := pooled([]Records{rec})
	for _, k := range latencyKinds {
		d := k.dist(&sum)
		x := flat(cs[k.name])
		if len(x) != d.Count {
			t.Fatalf("%s: %d values, benchmark has %d", k.name, len(x), d.Count)
		}
		for _, ls := range latencyStats {
			got, want := ls.stat.Of(x), ls.get(d)
			if diff := got - want; diff > 1e-9 || diff < -1e-9 {
				t.Errorf("%s.%s = %v, benchmark %v", k.name, ls.name, got, want)
			}
		}
	}
}

func TestTextEvidenceIsCalledWeaker(t *testing.T) {
	a, _ := mkSide("a", 1, 1, 100, 20, []float64{1000})
	b, _ := mkSide("b", 2, 1, 100, 20, []float64{1000})
	chk := &checkreport.Report{Schema: checkreport.Schema, Summary: checkreport.Summary{Requests: 4, ExactMatch: 4, OKBoth: 4, Evidence: checkreport.Text, Passed: true,
		EvidenceCounts: map[checkreport.Evidence]int{checkreport.TokenIDs: 1, checkreport.Text: 3}}}
	rep, err := New(Input{A: a, B: b, Check: chk})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(rep.Notes, func(n string) bool { return strings.Contains(n, "3 request(s) by text, weaker evidence") }) {
		t.Errorf("no weaker-evidence note: %q", rep.Notes)
	}
}
