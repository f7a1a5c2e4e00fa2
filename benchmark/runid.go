package benchmark

import (
	"crypto/rand"
	"encoding/hex"
)

// RunIDLen is the length of a run id: hex digits of 64 random bits, so
// that two runs share one with a chance of about n²/2⁶⁵ among n runs.
const RunIDLen = 16

// newRunID returns a fresh random run id (RunIDLen lower-case hex
// digits) from the operating system's generator.
func newRunID() string {
	var b [RunIDLen / 2]byte
	rand.Read(b[:]) // never fails (crypto/rand, Go 1.24 on)
	return hex.EncodeToString(b[:])
}
