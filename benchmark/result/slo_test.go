package result

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// okRec builds a successful request of n one-token chunks, evenly spaced
// from ttft to e2e (milliseconds).
func okRec(ttft, e2e float64, n int) Record {
	r := Record{ID: "r", OK: true, TTFTMs: ttft, E2EMs: e2e, DoneMs: e2e, CompletionTokens: n, UsageReported: true}
	for i := range n {
		t := ttft
		if n > 1 {
			t += (e2e - ttft) * float64(i) / float64(n-1)
		}
		r.ChunkTimesMs = append(r.ChunkTimesMs, t)
		r.ChunkTokens = append(r.ChunkTokens, 1)
	}
	return r
}

func failedRec() Record {
	return Record{ID: "f", ErrorClass: "http_500", E2EMs: 3}
}

func cancelledRec() Record {
	return Record{ID: "c", ErrorClass: ClassCancelled, E2EMs: 1e6}
}

func mustSLO(t *testing.T, s string) SLO {
	t.Helper()
	slo, err := ParseSLO(s)
	if err != nil {
		t.Fatal(err)
	}
	return slo
}

func TestParseThreshold(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Threshold
	}{
		{"ttft_ms:p99<=500", Threshold{"ttft_ms", "p99", 99, "<=", 500}},
		{" tpot_ms : p99.9 < 50 ", Threshold{"tpot_ms", "p99.9", 99.9, "<", 50}},
		{"itl_ms:mean<=20.5", Threshold{"itl_ms", "mean", 0, "<=", 20.5}},
		{"e2e_ms<=2000", Threshold{"e2e_ms", "", 0, "<=", 2000}},
		{"ttft_ms<0", Threshold{"ttft_ms", "", 0, "<", 0}},
	} {
		got, err := ParseThreshold(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseThreshold(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ in, msg string }{
		{"", "empty term"},
		{"ttft_ms>=5", "want METRIC<=LIMIT"},
		{"latency_ms<=5", `unknown metric "latency_ms"`},
		{"ttft_ms:p100<=5", `unknown statistic "p100"`},
		{"ttft_ms:p0<=5", `unknown statistic "p0"`},
		{"ttft_ms:max<=5", `unknown statistic "max"`},
		{"ttft_ms:<=5", `unknown statistic ""`},
		{"ttft_ms<=abc", `limit "abc"`},
		{"ttft_ms<=-1", `limit "-1"`},
		{"ttft_ms<=NaN", `limit "NaN"`},
		{"ttft_ms<==5", `limit "=5"`},
	} {
		_, err := ParseThreshold(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.msg) || !strings.Contains(err.Error(), "slo term") {
			t.Errorf("ParseThreshold(%q) error = %v; want it to name the term and say %q", tc.in, err, tc.msg)
		}
	}
}

func TestParseSLO(t *testing.T) {
	const in = "ttft_ms:p99<=500,tpot_ms:p99<=50,e2e_ms<=2000,ttft_ms:p50<200"
	slo := mustSLO(t, in)
	if len(slo) != 4 || slo.String() != in {
		t.Errorf("round trip: %q", slo.String())
	}
	if !slo.HasDistribution() || mustSLO(t, "e2e_ms<=1").HasDistribution() {
		t.Error("HasDistribution")
	}
	for _, bad := range []string{"ttft_ms:p99<=500,ttft_ms:p99<600", "ttft_ms<=1,,e2e_ms<=2", "e2e_ms<=1,e2e_ms<2"} {
		if _, err := ParseSLO(bad); err == nil {
			t.Errorf("ParseSLO(%q) accepted", bad)
		}
	}
}

func TestEvaluateSLO(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name       string
		slo        string
		recs       []Record
		dur        float64
		requests   int
		met        int
		goodput    float64
		attainment float64
		values     []float64 // distribution thresholds' values, in order (NaN: null)
		pass       bool
	}{
		{"per-request <= at the limit passes", "e2e_ms<=2000",
			[]Record{okRec(10, 2000, 4), okRec(10, 1999, 4)}, 2, 2, 2, 1, 1, nil, false},
		{"per-request < at the limit fails", "e2e_ms<2000",
			[]Record{okRec(10, 2000, 4), okRec(10, 1999, 4)}, 2, 2, 1, 0.5, 0.5, nil, false},
		{"distribution <= at the limit passes", "ttft_ms:p50<=20",
			[]Record{okRec(10, 100, 2), okRec(20, 100, 2), okRec(30, 100, 2), okRec(40, 100, 2)}, 1, 4, 2, 2, 0.5, []float64{20}, true},
		{"distribution < at the limit fails", "ttft_ms:p50<20",
			[]Record{okRec(10, 100, 2), okRec(20, 100, 2), okRec(30, 100, 2), okRec(40, 100, 2)}, 1, 4, 1, 1, 0.25, []float64{20}, false},
		{"failed requests are misses", "ttft_ms:p50<=1000,e2e_ms<=5000",
			[]Record{okRec(10, 100, 2), okRec(10, 100, 2), okRec(10, 100, 2), failedRec()}, 2, 4, 3, 1.5, 0.75, []float64{10}, true},
		{"failed requests push a high percentile to +Inf", "ttft_ms:p90<=1000",
			[]Record{okRec(10, 100, 2), failedRec(), failedRec()}, 1, 3, 1, 1, 1.0 / 3, []float64{nan}, false},
		{"cancelled requests are left out", "e2e_ms<=5000,e2e_ms:p99<=5000",
			[]Record{okRec(10, 100, 2), cancelledRec()}, 1, 1, 1, 1, 1, []float64{100}, true},
		{"zero requests", "ttft_ms:p99<=500", nil, 0, 0, 0, 0, nan, []float64{nan}, false},
		{"zero duration gives zero goodput", "e2e_ms<=5000", []Record{okRec(1, 2, 2)}, 0, 1, 1, 0, 1, nil, false},
		{"tpot does not apply to one token", "tpot_ms<=1",
			[]Record{okRec(10, 10, 1), okRec(10, 110, 11)}, 1, 2, 1, 1, 0.5, nil, false},
		{"tpot mean", "tpot_ms:mean<=15",
			[]Record{okRec(10, 110, 11), okRec(10, 210, 11)}, 1, 2, 1, 1, 0.5, []float64{15}, true},
		{"itl per request is the largest gap", "itl_ms<=10",
			[]Record{okRec(0, 30, 4), func() Record { r := okRec(0, 30, 4); r.ChunkTimesMs[3] = 31; return r }()},
			1, 2, 1, 1, 0.5, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := EvaluateSLO(tc.recs, tc.dur, mustSLO(t, tc.slo))
			if r.Requests != tc.requests || r.Met != tc.met || math.Abs(r.GoodputRPS-tc.goodput) > 1e-12 {
				t.Errorf("requests %d met %d goodput %g; want %d %d %g", r.Requests, r.Met, r.GoodputRPS, tc.requests, tc.met, tc.goodput)
			}
			if !same(val(r.Attainment), tc.attainment) {
				t.Errorf("attainment %g; want %g", val(r.Attainment), tc.attainment)
			}
			if len(r.Thresholds) != len(tc.values) {
				t.Fatalf("%d threshold results; want %d", len(r.Thresholds), len(tc.values))
			}
			for i, v := range tc.values {
				if !same(val(r.Thresholds[i].Value), v) {
					t.Errorf("threshold %s: value %g; want %g", r.Thresholds[i].Threshold, val(r.Thresholds[i].Value), v)
				}
			}
			if r.Pass != tc.pass {
				t.Errorf("pass = %v; want %v", r.Pass, tc.pass)
			}
		})
	}
}

// val is *p, or NaN for nil.
func val(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// same compares floats, NaN equal to NaN.
func same(a, b float64) bool {
	return a == b || (math.IsNaN(a) && math.IsNaN(b)) || math.Abs(a-b) < 1e-9
}

// TestSLOPercentileMatchesSummary checks that a distribution threshold
// sees the very percentile the summary reports.
func TestSLOPercentileMatchesSummary(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var recs []Record
	for range 137 {
		ttft := 5 + 100*rng.Float64()
		recs = append(recs, okRec(ttft, ttft+50+200*rng.Float64(), 2+rng.IntN(30)))
	}
	sum := NewSummary(recs, 0, true)
	slo := mustSLO(t, "ttft_ms:p50<=1e9,ttft_ms:p90<=1e9,ttft_ms:p99<=1e9,e2e_ms:p95<=1e9,tpot_ms:mean<=1e9,itl_ms:p99<=1e9")
	r := EvaluateSLO(recs, sum.DurationS, slo)
	want := []float64{sum.TTFT.P50, sum.TTFT.P90, sum.TTFT.P99, sum.E2E.P95, sum.TPOT.Mean, sum.ITL.P99}
	for i, w := range want {
		if math.Abs(val(r.Thresholds[i].Value)-w) > 1e-9*w {
			t.Errorf("%s = %g; summary says %g", r.Thresholds[i].Threshold, val(r.Thresholds[i].Value), w)
		}
	}
}

func TestFailedInDistribution(t *testing.T) {
	r := EvaluateSLO([]Record{okRec(10, 100, 2), failedRec(), cancelledRec(), failedRec()}, 1, mustSLO(t, "ttft_ms:p50<=1000,ttft_ms:p90<=1000"))
	for i, want := range []struct {
		samples, failed int
		pass            bool
	}{{3, 2, false}, {3, 2, false}} {
		got := r.Thresholds[i]
		if got.Value != nil || got.Samples != want.samples || got.Failed != want.failed || got.Pass != want.pass {
			t.Errorf("%s: %+v", got.Threshold, got)
		}
	}
	one := EvaluateSLO([]Record{okRec(10, 100, 2), okRec(20, 100, 2), okRec(30, 100, 2), failedRec()}, 1, mustSLO(t, "ttft_ms:p50<=1000"))
	if got := one.Thresholds[0]; val(got.Value) != 20 || got.Failed != 1 || !got.Pass {
		t.Errorf("one failure in four, p50: %+v (value %g)", got, val(got.Value))
	}
}

// TestSLOResultInline shows the intended use: a summary embeds a
// *SLOResult, whose fields then sit beside the summary's own.
func TestSLOResultInline(t *testing.T) {
	type summary struct {
		RequestsOK int `json:"requests_ok"`
		*SLOResult
	}
	r := EvaluateSLO([]Record{okRec(10, 100, 3)}, 2, mustSLO(t, "e2e_ms<=200"))
	b, err := marshal(summary{1, &r})
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"requests_ok":1,"slo":["e2e_ms<=200"],"slo_requests":1,"slo_met":1,"goodput_rps":0.5,"slo_attainment":1,"slo_thresholds":[],"slo_pass":false}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	if b, _ := marshal(summary{RequestsOK: 1}); string(b) != `{"requests_ok":1}` {
		t.Errorf("without an SLO: %s", b)
	}
}

func TestSLOResultJSON(t *testing.T) {
	slo := mustSLO(t, "ttft_ms:p99<=500,e2e_ms<=2000")
	empty := EvaluateSLO(nil, 0, slo)
	b, err := marshal(empty)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"slo":["ttft_ms:p99<=500","e2e_ms<=2000"],"slo_requests":0,"slo_met":0,"goodput_rps":0,"slo_attainment":null,` +
		`"slo_thresholds":[{"threshold":"ttft_ms:p99<=500","value":null,"samples":0,"failed":0,"pass":false}],"slo_pass":false}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	var back SLOResult
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Attainment != nil || back.Thresholds[0].Value != nil || back.SLO.String() != slo.String() {
		t.Errorf("round trip: %+v", back)
	}
	full := EvaluateSLO([]Record{okRec(10, 100, 3)}, 1, slo)
	b, _ = marshal(full)
	if !strings.Contains(string(b), `"slo_attainment":1`) || !strings.Contains(string(b), `"value":10`) {
		t.Errorf("got %s", b)
	}
}

// marshal encodes v as JSON without HTML escaping (so "<" stays "<"),
// with no trailing newline.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return bytes.TrimSpace(buf.Bytes()), err
}

// sweep builds one LoadStep per load with TTFT rising with the load:
// every request of a step has TTFT = ttft(load).
func sweep(t *testing.T, slo string, loads []float64, ttft func(float64) float64) []LoadStep {
	var out []LoadStep
	for _, l := range loads {
		var recs []Record
		for range 20 {
			recs = append(recs, okRec(ttft(l), ttft(l)+100, 10))
		}
		out = append(out, LoadStep{Load: l, RequestThroughput: l / 2, OutputThroughput: 5 * l,
			SLO: EvaluateSLO(recs, 10, mustSLO(t, slo))})
	}
	return out
}

func TestCapacity(t *testing.T) {
	loads := []float64{1, 4, 16, 32}
	linear := func(l float64) float64 { return 20 * l } // 20, 80, 320, 640 ms
	f := func(v float64) *float64 { return &v }
	miss := func(slo string, v float64) []ThresholdResult {
		return []ThresholdResult{{Threshold: mustSLO(t, slo)[0], Value: f(v), Samples: 20}}
	}
	for _, tc := range []struct {
		name  string
		steps []LoadStep
		want  CapacityResult
	}{
		{"crosses between 16 and 32", sweep(t, "ttft_ms:p99<=500", loads, linear),
			CapacityResult{Status: CapacityReached, Load: f(16), RequestThroughput: f(8), OutputThroughput: f(80), GoodputRPS: f(2), FailedAt: f(32), Missed: miss("ttft_ms:p99<=500", 640)}},
		{"exactly at the limit meets it", sweep(t, "ttft_ms:p99<=320", loads, linear),
			CapacityResult{Status: CapacityReached, Load: f(16), RequestThroughput: f(8), OutputThroughput: f(80), GoodputRPS: f(2), FailedAt: f(32), Missed: miss("ttft_ms:p99<=320", 640)}},
		{"strictly below the limit", sweep(t, "ttft_ms:p99<320", loads, linear),
			CapacityResult{Status: CapacityReached, Load: f(4), RequestThroughput: f(2), OutputThroughput: f(20), GoodputRPS: f(2), FailedAt: f(16), Missed: miss("ttft_ms:p99<320", 320)}},
		{"not reached", sweep(t, "ttft_ms:p99<=1000", loads, linear),
			CapacityResult{Status: CapacityNotReached, Load: f(32), RequestThroughput: f(16), OutputThroughput: f(160), GoodputRPS: f(2)}},
		{"below the first step", sweep(t, "ttft_ms:p99<=10", loads, linear),
			CapacityResult{Status: CapacityBelowFirst, FailedAt: f(1), Missed: miss("ttft_ms:p99<=10", 20)}},
		{"a later recovery is ignored", sweep(t, "ttft_ms:p99<=100", loads, func(l float64) float64 {
			return map[float64]float64{1: 20, 4: 150, 16: 90, 32: 400}[l]
		}), CapacityResult{Status: CapacityReached, Load: f(1), RequestThroughput: f(0.5), OutputThroughput: f(5), GoodputRPS: f(2), FailedAt: f(4), RecoveredAbove: true, Missed: miss("ttft_ms:p99<=100", 150)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Capacity(tc.steps)
			if err != nil {
				t.Fatal(err)
			}
			gb, _ := json.Marshal(got)
			wb, _ := json.Marshal(tc.want)
			if string(gb) != string(wb) {
				t.Errorf("got  %s\nwant %s", gb, wb)
			}
		})
	}
}

func TestCapacityErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		steps []LoadStep
		msg   string
	}{
		{"no steps", nil, "no sweep steps"},
		{"per-request only", sweep(t, "e2e_ms<=5", []float64{1, 2}, func(float64) float64 { return 1 }), "no distribution threshold"},
		{"loads not increasing", sweep(t, "ttft_ms:p99<=5", []float64{2, 2}, func(float64) float64 { return 1 }), "must increase"},
	} {
		if _, err := Capacity(tc.steps); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: error %v; want %q", tc.name, err, tc.msg)
		}
	}
}

func TestRecordsByStep(t *testing.T) {
	recs := []Record{{ID: "a", Step: 0}, {ID: "b", Step: 1}, {ID: "c", Step: 0}}
	g := RecordsByStep(recs)
	if len(g) != 2 || len(g[0]) != 2 || g[0][1].ID != "c" || g[1][0].ID != "b" {
		t.Errorf("got %+v", g)
	}
}

func TestStepSLOOnlyWithAnSLO(t *testing.T) {
	if StepSLO(nil, 1, nil) != nil {
		t.Fatal("an SLO outcome without an SLO")
	}
	slo, _ := ParseSLO("e2e_ms<=10")
	r := StepSLO([]Record{{OK: true, E2EMs: 10, ChunkTimesMs: []float64{1}}, {OK: true, E2EMs: 11, ChunkTimesMs: []float64{1}}}, 2, slo)
	if r == nil || r.Met != 1 || r.GoodputRPS != 0.5 {
		t.Fatalf("%+v", r)
	}
}

// TestCapacityFailures: a step whose successful requests meet the p99
// but one of whose 16 requests failed misses it (the failure counts as
// +Inf, past the p99's rank): the capacity says how many failed, and the
// threshold's value over the successful requests shows the failures
// decided it.
func TestCapacityFailures(t *testing.T) {
	slo := mustSLO(t, "ttft_ms:p99<=3000,e2e_ms:p50<=5000")
	var recs []Record
	for range 15 {
		recs = append(recs, okRec(250, 400, 10))
	}
	recs = append(recs, failedRec(), cancelledRec())
	steps := []LoadStep{{Load: 1, SLO: EvaluateSLO(recs, 10, slo)}, {Load: 2, SLO: EvaluateSLO(recs, 10, slo)}}
	c, err := Capacity(steps)
	if err != nil {
		t.Fatal(err)
	}
	if c.Status != CapacityBelowFirst || c.FailedRequests != 1 || len(c.Missed) != 1 {
		t.Fatalf("%+v", c)
	}
	m := c.Missed[0]
	if m.Threshold.String() != "ttft_ms:p99<=3000" || m.Value != nil || m.Failed != 1 || m.Samples != 16 || m.ValueOK == nil || *m.ValueOK != 250 || !m.MissedByFailures() {
		t.Errorf("missed %+v", m)
	}
	if p50 := steps[0].SLO.Thresholds[1]; !p50.Pass || p50.MissedByFailures() || p50.ValueOK == nil {
		t.Errorf("p50 %+v", p50)
	}
}
