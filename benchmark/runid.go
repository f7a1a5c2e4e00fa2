package benchmark

import (
	"crypto/rand"
	"encoding/hex"

	"github.com/servecmp/servecmp/benchmark/result"
)

// newRunID returns a fresh random run id (RunIDLen lower-case hex
// digits) from the operating system's generator.
func newRunID() string {
	var b [result.RunIDLen / 2]byte
	rand.Read(b[:]) // never fails (crypto/rand, Go 1.24 on)
	return hex.EncodeToString(b[:])
}
