package benchmark

import (
	"fmt"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/benchmark/result"
)

func TestImplausibleCountsAreWarned(t *testing.T) {
	recs := []result.Record{{ID: "a", ErrorClass: result.ClassImplausible}, {ID: "b", OK: true, CompletionTokens: 1, ChunkTokens: []int{1}, ChunkTimesMs: []float64{1}}}
	sum := result.NewSummary(recs, 0, true)
	var w warnings
	stepWarnings(&w, &result.LoadPolicy{Mode: result.ModeConcurrency}, &sum, &stepOut{}, 0)
	if got := fmt.Sprint(w.all()); !strings.Contains(got, "1 requests were dropped") || !strings.Contains(got, result.ClassImplausible) {
		t.Fatalf("warnings %s", got)
	}
}
