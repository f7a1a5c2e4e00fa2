//go:build race

package calibrate

// raceEnabled is true under the race detector, which slows the
// comparisons some tenfold: the calibration test then draws fewer.
const raceEnabled = true
