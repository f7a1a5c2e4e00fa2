//go:build race

package workload

// raceEnabled: the race detector slows tokenizing tenfold, so the
// heaviest tests run fewer cases under it.
const raceEnabled = true
