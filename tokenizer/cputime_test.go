//go:build unix

package tokenizer

import (
	"syscall"
	"time"
)

// processCPU is the user and system CPU time the process has used, so
// that benchmarks can report throughput per CPU second: on a shared
// machine wall time also counts the time other processes hold the cores.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
