package workload

import (
	"slices"
	"testing"
)

// TestDescribeTrace: workload info of a trace replay reports the header's
// implied share (brute-forced in TestTraceMooncakeExact), the arrivals per
// minute of trace time counted here from the trace itself, and the length
// distributions.
func TestDescribeTrace(t *testing.T) {
	gs := smallTrace(500, 13)
	gs.DurationS = 300
	path, src := genTrace(t, gs, TraceMooncake)
	w, _, st := replay(t, path, TraceSpec{Format: TraceMooncake, BlockSize: 16, TimeScale: 0.25})
	in := Describe(w)
	if in.Trace == nil || in.Trace.ImpliedPrefixReuseShare != st.ImpliedShare || in.Requests != 500 || in.WithArrival != 500 {
		t.Fatalf("info %+v", in)
	}
	var counts []int
	for _, q := range src {
		m := int((q.TimestampMs - src[0].TimestampMs) / 60000)
		for len(counts) <= m {
			counts = append(counts, 0)
		}
		counts[m]++
	}
	if in.Trace.Minutes != len(counts) || len(in.Trace.RatePerMinute) != len(counts) {
		t.Fatalf("%d minutes, want %d", in.Trace.Minutes, len(counts))
	}
	for m, r := range in.Trace.RatePerMinute {
		if r.Minute != m || r.Requests != counts[m] || r.TraceRPS != float64(counts[m])/60 || r.ReplayRPS != float64(counts[m])/60/0.25 {
			t.Errorf("minute %d: %+v, want %d requests", m, r, counts[m])
		}
	}
	ins := make([]int, len(src))
	for i, q := range src {
		ins[i] = q.Input
	}
	slices.Sort(ins)
	d := in.InputLen
	if d == nil || d.Count != 500 || d.Min != ins[0] || d.Max != ins[499] || d.P50 != float64(ins[249]) {
		t.Errorf("input_len %+v, sorted ends %d %d, 250th %d", d, ins[0], ins[499], ins[249])
	}
}

// TestTraceHeaderBounds: a workload whose header's trace record is out of
// bounds is refused when loaded.
func TestTraceHeaderBounds(t *testing.T) {
	line := `{"id":"a","prompt":"x","max_tokens":1}`
	for _, h := range []string{
		`{"schema":"servecmp.workload/1","requests":1,"trace":{"file":"t","sha256":"","format":"mooncake","block_size":512,"time_scale":0,"implied_prefix_reuse_share":0}}`,
		`{"schema":"servecmp.workload/1","requests":1,"trace":{"file":"t","sha256":"","format":"mooncake","block_size":512,"time_scale":1,"implied_prefix_reuse_share":1.5}}`,
		`{"schema":"servecmp.workload/1","requests":1,"trace":{"file":"t","sha256":"","format":"x","block_size":512,"time_scale":1,"implied_prefix_reuse_share":0}}`,
		`{"schema":"servecmp.workload/1","requests":1,"trace":{"file":"t","sha256":"","format":"azure","block_size":0,"time_scale":1,"implied_prefix_reuse_share":0}}`,
		`{"schema":"servecmp.workload/1","requests":1,"trace":{"file":"t","format":"azure","block_size":1,"time_scale":1,"implied_prefix_reuse_share":0,"extra":1}}`,
	} {
		if _, err := Parse("w.jsonl", []byte(h+"\n"+line)); err == nil {
			t.Errorf("accepted %s", h)
		}
	}
}
