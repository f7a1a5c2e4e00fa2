//go:build !unix

package tokenizer

import "time"

// processCPU is unknown here; benchmarks then report wall-time figures only.
func processCPU() time.Duration { return 0 }
