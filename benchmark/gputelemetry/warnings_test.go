package gputelemetry

import (
	"strings"
	"testing"
)

// TestCrossCheck: a counter that disagrees with the power integral is
// warned of when the window holds enough samples for the integral to
// judge it, and not when the gauge was sampled too sparsely to see the
// load.
func TestCrossCheck(t *testing.T) {
	for _, tc := range []struct {
		n    int
		warn bool
	}{{20, true}, {4, false}} {
		s := newFed(t)
		// The counter says 400 W; the gauge says 200 W.
		series(t, s, tc.n+2, func(x float64) map[string]float64 { return map[string]float64{power: 200, energy: 1e9 + 400*x*1000} })
		res := s.Result(0.5, float64(tc.n)+0.5)
		if got := strings.Contains(strings.Join(res.Warnings, "\n"), "disagree"); got != tc.warn {
			t.Errorf("%d samples: disagreement warned %v, want %v (%q)", tc.n, got, tc.warn, res.Warnings)
		}
	}
}
