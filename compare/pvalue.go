package compare

import "math"

// PFloor is the smallest p-value a report stores. A test's p-value can
// underflow to 0 in float64 (a t statistic of 40 on 4 degrees of
// freedom); 0 would read as certainty, so every stored p-value is at
// least PFloor, and readers see a number, never 0.
const PFloor = 1e-300

// pValue returns p raised to PFloor, or nil when p is not finite.
func pValue(p float64) *float64 {
	if math.IsNaN(p) || math.IsInf(p, 0) {
		return nil
	}
	p = max(p, PFloor)
	return &p
}
