package result

import (
	"math"
	"slices"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestNewDist(t *testing.T) {
	if d := NewDist(nil); d != (Dist{}) {
		t.Fatalf("empty: %+v", d)
	}
	if d := NewDist([]float64{3}); d != (Dist{Mean: 3, P50: 3, P90: 3, P95: 3, P99: 3, Max: 3, Count: 1}) {
		t.Fatalf("one: %+v", d)
	}
	// Two values: h = p·n; p50 → h=1 → x1; p90 → h=1.8 → x1 + 0.8(x2−x1).
	d := NewDist([]float64{20, 10})
	if d.P50 != 10 || !near(d.P90, 18) || !near(d.P95, 19) || !near(d.P99, 19.8) || d.Max != 20 || d.Count != 2 ||
		d.Mean != 15 || !near(d.Std, math.Sqrt(50)) {
		t.Fatalf("two: %+v", d)
	}
	x := make([]float64, 100)
	for i := range x {
		x[i] = float64(100 - i)
	}
	d = NewDist(x)
	if d.P50 != 50 || d.P90 != 90 || d.P95 != 95 || d.P99 != 99 || d.Max != 100 || d.Mean != 50.5 {
		t.Fatalf("1..100: %+v", d)
	}
}

func TestSummarize(t *testing.T) {
	recs := []Record{
		// 4 tokens in 3 chunks (1, 2, 1): chunk gaps 10, 20; per-token 10, 0, 20.
		{ID: "a", OK: true, SentS: 0, TTFTMs: 100, E2EMs: 130, DoneMs: 140, ChunkTimesMs: []float64{100, 110, 130},
			ChunkTokens: []int{1, 2, 1}, PromptTokens: 10, CompletionTokens: 4, UsageReported: true},
		// One token: no TPOT, no ITL.
		{ID: "b", OK: true, SentS: 0.5, ScheduledS: 0.4, TTFTMs: 50, E2EMs: 50, DoneMs: 60, ChunkTimesMs: []float64{50},
			ChunkTokens: []int{1}, PromptTokens: 10, CompletionTokens: 1, FixedLength: true, RequestedTokens: 2, LengthMismatch: true},
		{ID: "c", OK: false, ErrorClass: "http_500", SentS: 0.2, DoneMs: 5},
		{ID: "d", OK: false, ErrorClass: ClassCancelled, SentS: 0.3, DoneMs: 700},
	}
	s := NewSummary(recs, 1, true)
	if s.RequestsOK != 2 || s.RequestsFailed != 1 || s.RequestsCancelled != 1 || s.FailedByClass["http_500"] != 1 || s.RequestsNotSent != 1 {
		t.Fatalf("counts %+v", s)
	}
	if s.InputTokens != 20 || s.OutputTokens != 5 || s.UsageMissing != 1 || s.LengthMismatches != 1 {
		t.Fatalf("tokens %+v", s)
	}
	if s.TPOT.Count != 1 || !near(s.TPOT.Mean, 10) {
		t.Fatalf("tpot %+v", s.TPOT)
	}
	if s.ITL.Count != 2 || !near(s.ITL.Mean, 15) {
		t.Fatalf("itl %+v", s.ITL)
	}
	// Per-token ITL: gaps 10 (then one zero for the 2-token chunk), 20 → n−1 = 3 entries, mean = TPOT.
	if s.ITLPerToken.Count != 3 || !near(s.ITLPerToken.Mean, 10) || s.ITLPerToken.Max != 20 {
		t.Fatalf("itl per token %+v", s.ITLPerToken)
	}
	if s.TTFT.Count != 2 || s.E2E.Count != 2 || s.SendLag.Count != 4 || !near(s.SendLag.Max, 300) {
		t.Fatalf("ttft/e2e/lag %+v %+v %+v", s.TTFT, s.E2E, s.SendLag)
	}
	if !slices.Equal(s.TokensPerChunk, []ChunkBin{{1, 3}, {2, 1}}) {
		t.Fatalf("histogram %+v", s.TokensPerChunk)
	}
	if !near(s.DurationS, 1.0) || s.CompletionTimeS != nil {
		t.Fatalf("duration %v completion %v (not-sent and cancelled requests: no completion time)", s.DurationS, s.CompletionTimeS)
	}
	if !near(s.OutputThroughput, 5) || !near(s.RequestThroughput, 2) {
		t.Fatalf("throughput %+v", s)
	}
	if s := NewSummary(recs[:3], 0, true); s.CompletionTimeS == nil || !near(*s.CompletionTimeS, 0.56) {
		t.Fatalf("completion time %v", s.CompletionTimeS)
	}
	if s := NewSummary(nil, 0, true); s.RequestsOK != 0 || s.CompletionTimeS != nil || s.DurationS != 0 {
		t.Fatalf("empty %+v", s)
	}
}

func TestConcurrency(t *testing.T) {
	// [0,1] and [0.5,1.5], then back-to-back [1.5,2]: mean over [0,2] = (1+1+0.5)/2.
	recs := []Record{{SentS: 0, DoneMs: 1000}, {SentS: 0.5, DoneMs: 1000}, {SentS: 1.5, DoneMs: 500}}
	c := concurrency(recs, 0, 2)
	if c.Max != 2 || !near(c.Mean, 1.25) {
		t.Fatalf("%+v", c)
	}
	// Window [0.75, 1.25]: two in flight until 1, one after.
	if c := concurrency(recs, 0.75, 1.25); c.Max != 2 || !near(c.Mean, 1.5) {
		t.Fatalf("window %+v", c)
	}
}

func TestPhases(t *testing.T) {
	recs := []Record{
		{OK: true, SentS: 0, DoneMs: 3000, ChunkTimesMs: []float64{500, 1500, 2500}, ChunkTokens: []int{1, 1, 1}},
		{OK: true, SentS: 1, DoneMs: 500, ChunkTimesMs: []float64{200}, ChunkTokens: []int{2}},
	}
	steady, drain := SplitPhases(recs, 0)
	if steady.StartS != 0 || steady.EndS != 1 || steady.RequestsSent != 2 || steady.OutputTokens != 1 || steady.RequestsCompleted != 0 {
		t.Fatalf("steady %+v", steady)
	}
	if drain.StartS != 1 || drain.EndS != 3 || drain.RequestsSent != 0 || drain.OutputTokens != 4 || drain.RequestsCompleted != 2 {
		t.Fatalf("drain %+v", drain)
	}
}

func TestPhasesStopAfterLastSend(t *testing.T) {
	// A closed loop cut by --duration at 2 s: every slot's last send was
	// at 0 or 1 s, but the load was held until the deadline.
	recs := []Record{
		{OK: true, SentS: 0, DoneMs: 3000, ChunkTimesMs: []float64{500, 1500, 2500}, ChunkTokens: []int{1, 1, 1}},
		{OK: true, SentS: 1, DoneMs: 500, ChunkTimesMs: []float64{200}, ChunkTokens: []int{2}},
	}
	steady, drain := SplitPhases(recs, 2)
	if steady.EndS != 2 || steady.OutputTokens != 4 || steady.RequestsCompleted != 1 || drain.StartS != 2 || drain.OutputTokens != 1 {
		t.Fatalf("steady %+v drain %+v", steady, drain)
	}
}

func TestPhaseCountsCancelledWork(t *testing.T) {
	// --duration 2 --drain cancel: a request cut at 2.5 s produced two
	// tokens inside the steady window, which count there; a failed
	// request's partial output never counts.
	recs := []Record{
		{OK: true, SentS: 0, DoneMs: 1000, ChunkTimesMs: []float64{500, 1000}, ChunkTokens: []int{1, 1}, CompletionTokens: 2, UsageReported: true},
		{ErrorClass: ClassCancelled, SentS: 1, DoneMs: 1500, ChunkTimesMs: []float64{200, 600, 1200}, ChunkTokens: []int{1, 1, 1}},
		{ErrorClass: ClassServerError, SentS: 1, DoneMs: 700, ChunkTimesMs: []float64{300, 600}, ChunkTokens: []int{1, 1}},
	}
	steady, drain := SplitPhases(recs, 2)
	if steady.OutputTokens != 4 || drain.OutputTokens != 1 || steady.RequestsCompleted != 2 || steady.RequestsOK != 1 {
		t.Fatalf("steady %+v drain %+v", steady, drain)
	}
	if s := NewSummary(recs, 0, false); s.OutputTokens != 2 || s.RequestsCancelled != 1 || s.RequestsFailed != 1 {
		t.Fatalf("summary counts only successful output: %+v", s)
	}
}
