//go:build race

package stats

// raceEnabled is true under the race detector, which slows the
// simulations some tenfold: they then draw fewer experiments.
const raceEnabled = true
