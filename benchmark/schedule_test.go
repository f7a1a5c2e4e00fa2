package benchmark

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat"

	"github.com/servecmp/servecmp/benchmark/result"
)

func gaps(off []float64) []float64 {
	g := make([]float64, len(off)-1)
	for i := range g {
		g[i] = off[i+1] - off[i]
	}
	return g
}

func TestScheduleConstant(t *testing.T) {
	off, err := Schedule(5, 4, result.ArrivalConstant, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{0, 0.25, 0.5, 0.75, 1}; !slices.Equal(off, want) {
		t.Fatalf("%v", off)
	}
}

func TestScheduleStatistics(t *testing.T) {
	const n, rate = 40000, 20.0
	for _, tc := range []struct {
		arrival string
		shape   float64
		cv      float64
	}{
		{result.ArrivalPoisson, 0, 1},
		{result.ArrivalGamma, 1, 1},
		{result.ArrivalGamma, 0.25, 2},
		{result.ArrivalGamma, 4, 0.5},
	} {
		off, err := Schedule(n, rate, tc.arrival, tc.shape, 42)
		if err != nil {
			t.Fatal(err)
		}
		g := gaps(off)
		mean, std := stat.MeanStdDev(g, nil)
		if math.Abs(mean*rate-1) > 0.03 {
			t.Errorf("%s shape %g: mean gap %v, want %v", tc.arrival, tc.shape, mean, 1/rate)
		}
		if cv := std / mean; math.Abs(cv-tc.cv)/tc.cv > 0.05 {
			t.Errorf("%s shape %g: CV %v, want %v", tc.arrival, tc.shape, cv, tc.cv)
		}
		if !slices.IsSorted(off) || off[0] != 0 {
			t.Errorf("%s: schedule not increasing from 0", tc.arrival)
		}
	}
}

func TestScheduleSeed(t *testing.T) {
	a, _ := Schedule(100, 5, result.ArrivalPoisson, 0, 7)
	b, _ := Schedule(100, 5, result.ArrivalPoisson, 0, 7)
	c, _ := Schedule(100, 5, result.ArrivalPoisson, 0, 8)
	if !slices.Equal(a, b) || slices.Equal(a, c) {
		t.Fatal("seed does not fix the schedule")
	}
	for _, bad := range []struct {
		rate  float64
		arr   string
		shape float64
	}{{0, result.ArrivalPoisson, 0}, {math.Inf(-1), result.ArrivalPoisson, 0}, {math.NaN(), result.ArrivalPoisson, 0}, {1, "uniform", 0}, {1, result.ArrivalGamma, 0}} {
		if _, err := Schedule(3, bad.rate, bad.arr, bad.shape, 1); err == nil {
			t.Errorf("accepted %+v", bad)
		}
	}
}

// TestScheduleRateInf: rate inf sends every request at 0.
func TestScheduleRateInf(t *testing.T) {
	off, err := Schedule(4, math.Inf(1), result.ArrivalPoisson, 0, 1)
	if err != nil || !slices.Equal(off, []float64{0, 0, 0, 0}) {
		t.Errorf("Schedule(inf) = %v, %v", off, err)
	}
}
