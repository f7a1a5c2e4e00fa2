package profile

import (
	"testing"

	"github.com/servecmp/servecmp/benchmark/result"
)

// TestWindowWork checks the rule on records straddling the edges
// of the window (1, 2]: a request counts when it ended inside and
// succeeded; output tokens by arrival; input tokens when the first token
// arrived inside.
func TestWindowWork(t *testing.T) {
	rec := func(ok bool, class string, sent float64, prompt int, chunksMs []float64, toks []int) result.Record {
		r := result.Record{ID: "x", OK: ok, ErrorClass: class, SentS: sent, PromptTokens: prompt, ChunkTimesMs: chunksMs, ChunkTokens: toks}
		if len(chunksMs) > 0 {
			r.TTFTMs, r.DoneMs = chunksMs[0], chunksMs[len(chunksMs)-1]
		}
		return r
	}
	tests := []struct {
		name string
		r    result.Record
		want Work
	}{
		{"inside", rec(true, "", 1.1, 10, []float64{100, 200, 300}, []int{1, 1, 2}), Work{1, 10, 4}},
		{"straddles start", rec(true, "", 0.8, 10, []float64{100, 300, 400}, []int{1, 1, 1}), Work{1, 0, 2}},
		{"straddles end", rec(true, "", 1.8, 10, []float64{100, 300}, []int{1, 1}), Work{0, 10, 1}},
		{"spans the window", rec(true, "", 0.5, 10, []float64{100, 1000, 2000}, []int{1, 3, 1}), Work{0, 0, 3}},
		{"before", rec(true, "", 0.1, 10, []float64{100, 200}, []int{1, 1}), Work{}},
		{"at the start edge", rec(true, "", 0.9, 10, []float64{100, 200}, []int{1, 1}), Work{1, 0, 1}},
		{"at the end edge", rec(true, "", 1.9, 10, []float64{100, 200}, []int{1, 1}), Work{0, 10, 1}},
		{"cancelled", rec(false, result.ClassCancelled, 1.1, 10, []float64{100, 200}, []int{1, 1}), Work{0, 10, 2}},
		{"failed", rec(false, result.ClassServerError, 1.1, 10, []float64{100, 200}, []int{1, 1}), Work{}},
	}
	var all []result.Record
	var sum Work
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := WindowWork([]result.Record{tt.r}, 1, 2); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
		all = append(all, tt.r)
		sum.Requests += tt.want.Requests
		sum.InputTokens += tt.want.InputTokens
		sum.OutputTokens += tt.want.OutputTokens
	}
	if got := WindowWork(all, 1, 2); got != sum {
		t.Errorf("all records: %+v, want the sum %+v", got, sum)
	}
}
