package benchmark

import "testing"

func TestSaturation(t *testing.T) {
	for _, tc := range []struct {
		tp   []float64
		want int
	}{
		{[]float64{100, 200, 205, 206}, 1},
		{[]float64{100, 200, 205, 300}, -1}, // 200 is not saturation: 300 came later
		{[]float64{100, 200, 205, 300, 305}, 3},
		{[]float64{100, 200, 400, 800}, -1}, // still improving
		{[]float64{100}, -1},
		{nil, -1},
		{[]float64{100, 104}, 0},
		{[]float64{100, 90, 80}, 0},
	} {
		if got := Saturation(tc.tp, 0.05); got != tc.want {
			t.Errorf("Saturation(%v) = %d, want %d", tc.tp, got, tc.want)
		}
	}
}
