//go:build !race

package tokenizer

// raceDetector: see race_on_test.go.
const raceDetector = false
