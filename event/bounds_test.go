package event

import (
	"math"
	"testing"
)

func TestTimesOK(t *testing.T) {
	tests := []struct {
		start, end int64
		work, host bool
	}{
		{0, 0, true, true},
		{10, 20, true, true},
		{-1, 5, false, true},
		{20, 10, false, false},
		{0, MaxDur, true, true},
		{0, MaxDur + 1, false, true},
		{MaxTime - 1, MaxTime, true, true},
		{MaxTime, MaxTime + 1, false, false},
		{-MaxTime, -MaxTime, false, true},
		{math.MinInt64, 0, false, false},
		{0, math.MaxInt64, false, false},
	}
	for _, tc := range tests {
		if got := TimesOK(tc.start, tc.end); got != tc.work {
			t.Errorf("TimesOK(%d, %d) = %v", tc.start, tc.end, got)
		}
		if got := HostTimesOK(tc.start, tc.end); got != tc.host {
			t.Errorf("HostTimesOK(%d, %d) = %v", tc.start, tc.end, got)
		}
	}
}
