package compare

import (
	"math"
	"testing"
)

func TestPValueFloor(t *testing.T) {
	tests := []struct {
		in   float64
		want *float64
	}{
		{0, ptr(PFloor)},
		{1e-320, ptr(PFloor)},
		{0.03, ptr(0.03)},
		{1, ptr(1.0)},
		{math.NaN(), nil},
		{math.Inf(1), nil},
	}
	for _, tc := range tests {
		got := pValue(tc.in)
		if (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want {
			t.Errorf("pValue(%g) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func ptr(f float64) *float64 { return &f }
