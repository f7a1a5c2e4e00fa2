//go:build race

package tokenizer

// raceDetector: the tests run under the race detector, several times
// slower; see skipLargeUnderRace.
const raceDetector = true
