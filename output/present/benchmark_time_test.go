package present

import (
	"strings"
	"testing"
	"time"

	"github.com/servecmp/servecmp/benchmark/result"
)

// TestBenchmarkTextSaysWhen: the summary says when the run happened (UTC),
// and says nothing for results without wall-clock times.
func TestBenchmarkTextSaysWhen(t *testing.T) {
	start := time.Date(2026, 12, 1, 10, 0, 0, 0, time.FixedZone("CET", 3600))
	for _, tc := range []struct {
		r    result.Result
		want string
	}{
		{result.Result{StartedAt: start, EndedAt: start.Add(5 * time.Second)}, "ran       2026-12-01T09:00:00Z .. 2026-12-01T09:00:05Z\n"},
		{result.Result{}, ""},
	} {
		var b strings.Builder
		if err := WriteBenchmarkText(&b, &tc.r); err != nil {
			t.Fatal(err)
		}
		if got := b.String(); tc.want != "" && !strings.Contains(got, tc.want) || tc.want == "" && strings.Contains(got, "ran ") {
			t.Errorf("summary:\n%s\nwant the line %q", got, tc.want)
		}
	}
}
