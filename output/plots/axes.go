package plots

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
)

// decades is the span (largest over smallest positive value) from which an
// axis turns logarithmic.
const decades = 100

// positiveRange returns the smallest positive and the largest value of vs;
// lo is 0 when no value is positive.
func positiveRange(vs []float64) (lo, hi float64) {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		if v > 0 && (lo == 0 || v < lo) {
			lo = v
		}
		hi = max(hi, v)
	}
	return lo, hi
}

// logNote ends the label of a logarithmic axis, so that a reader never
// takes it for a linear one.
const logNote = ", log scale"

// setLog makes ax logarithmic from the decade at or below lo to a little
// above hi, lo > 0, and says so in its label.
func setLog(ax *plot.Axis, lo, hi float64) {
	if ax.Label.Text != "" && !strings.HasSuffix(ax.Label.Text, logNote) {
		ax.Label.Text += logNote
	}
	ax.Scale = plot.LogScale{}
	ax.Tick.Marker = logTicks{}
	ax.Min = math.Pow(10, math.Floor(math.Log10(lo)+1e-9))
	ax.Max = hi * 1.15
	if ax.Max <= ax.Min {
		ax.Max = ax.Min * 10
	}
}

// logTicks marks a log axis at every power of ten (labelled) and at 2..9
// times it, within the axis range.
type logTicks struct{}

// Ticks implements plot.Ticker.
func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for e := math.Floor(math.Log10(lo) + 1e-9); e <= math.Ceil(math.Log10(hi)); e++ {
		d := math.Pow(10, e)
		for m := 1.0; m <= 9; m++ {
			v := m * d
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 {
				t.Label = strconv.FormatFloat(v, 'g', -1, 64)
			}
			ts = append(ts, t)
		}
	}
	return ts
}

// fromZero makes ax linear from 0 to a little above hi.
func fromZero(ax *plot.Axis, hi float64) {
	ax.Scale = plot.LinearScale{}
	ax.Tick.Marker = niceTicks{}
	ax.Min = 0
	if hi <= 0 || math.IsNaN(hi) || math.IsInf(hi, 0) {
		hi = 1
	}
	ax.Max = hi * 1.05
}

// quantityAxis sets ax for quantities vs: logarithmic when they span two
// decades, else linear from 0. It returns whether it chose log.
func quantityAxis(ax *plot.Axis, vs []float64) bool {
	lo, hi := positiveRange(vs)
	if lo > 0 && hi/lo >= decades {
		setLog(ax, lo, hi)
		return true
	}
	fromZero(ax, hi)
	return false
}

// clampLog moves values at or below floor up to floor, so that a log axis
// can draw them at its left edge.
func clampLog(vs []float64, floor float64) []float64 {
	out := slices.Clone(vs)
	for i, v := range out {
		if v < floor {
			out[i] = floor
		}
	}
	return out
}

// niceTicks marks a linear axis at about five round values (the step of 1,
// 2 or 5 times a power of ten nearest a fifth of the range), labelled without trailing zeros, with an
// unlabelled minor tick between two majors.
type niceTicks struct{}

// Ticks implements plot.Ticker.
func (niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'g', 4, 64)}}
	}
	raw := (hi - lo) / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{2, 5, 10} {
		if math.Abs(math.Log(m*mag/raw)) < math.Abs(math.Log(step/raw)) {
			step = m * mag
		}
	}
	prec := max(0, -int(math.Floor(math.Log10(step))))
	var ts []plot.Tick
	for k := math.Ceil(lo / step); k*step <= hi+step*1e-9; k++ {
		v := k * step
		ts = append(ts, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', prec, 64)})
		if m := v + step/2; m <= hi {
			ts = append(ts, plot.Tick{Value: m})
		}
	}
	return ts
}
