package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// TrendTest is the test of a drift over time within the runs of each side.
type TrendTest struct {
	// Slope is the common change of the per-run value per unit of time
	// (per second when the times are seconds).
	Slope float64
	// P is the two-sided p-value of Slope = 0 (t-test on DF degrees of
	// freedom); 0 when the fit leaves no residual and the slope is not 0.
	P  float64
	DF int
}

// Trend tests whether the per-run values drift with time: it fits
// y = α_A (runs of A) or α_B (runs of B) + β·t by least squares, so that
// the difference between the sides is absorbed by their intercepts and
// only the change within each side measures β, and tests β = 0. In a
// blocked design (every run of A before every run of B) a drift is
// confounded with the difference between the systems; this is what can
// be seen of it. ok is false when there are fewer than four runs in all
// or no side's runs spread over time.
func Trend(tA, yA, tB, yB []float64) (TrendTest, bool) {
	df := len(yA) + len(yB) - 3
	if df < 1 || len(tA) != len(yA) || len(tB) != len(yB) {
		return TrendTest{}, false
	}
	var sxy, sxx float64
	centred := func(t, y []float64) ([]float64, []float64) {
		mt, _ := MeanSD(t)
		my, _ := MeanSD(y)
		ct, cy := make([]float64, len(t)), make([]float64, len(y))
		for i := range t {
			ct[i], cy[i] = t[i]-mt, y[i]-my
			sxy += ct[i] * cy[i]
			sxx += ct[i] * ct[i]
		}
		return ct, cy
	}
	ctA, cyA := centred(tA, yA)
	ctB, cyB := centred(tB, yB)
	if !(sxx > 0) {
		return TrendTest{}, false
	}
	beta := sxy / sxx
	var rss float64
	for _, s := range [][2][]float64{{ctA, cyA}, {ctB, cyB}} {
		for i := range s[0] {
			r := s[1][i] - beta*s[0][i]
			rss += r * r
		}
	}
	se := math.Sqrt(rss / float64(df) / sxx)
	res := TrendTest{Slope: beta, DF: df, P: 1}
	switch {
	case se > 0:
		t := beta / se
		res.P = math.Min(1, 2*distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Survival(math.Abs(t)))
	case beta != 0:
		res.P = 0
	}
	return res, true
}
