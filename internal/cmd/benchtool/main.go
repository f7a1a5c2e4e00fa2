//go:build unix

// Command benchtool runs servecmp's end-to-end speed and memory benchmarks
// (make bench): analyze on generated 1,000,000-kernel exports (kernels
// alone, and a serving capture with CUDA API and NVTX tables) against the
// SQLite read floor on 1 and 2 cores, several exports in one call, merge
// of 1,024 saved rank summaries, and the streaming client against
// serve-sim.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
)

func main() {
	only := flag.String("only", "", "run one benchmark: analyze, merge or client")
	write := flag.String("write", "", "internal: write the analyze export FILE=PATH and exit")
	flag.Parse()
	if file, path, ok := strings.Cut(*write, "="); ok {
		if err := writeCase(file, path); err != nil {
			fmt.Fprintf(os.Stderr, "benchtool: %v\n", err)
			os.Exit(1)
		}
		return
	}
	failed := false
	for _, b := range []struct {
		name string
		fn   func() error
	}{{"analyze", benchAnalyze}, {"merge", benchMerge}, {"client", benchClient}} {
		if *only != "" && *only != b.name {
			continue
		}
		if err := b.fn(); err != nil {
			fmt.Fprintf(os.Stderr, "benchtool: %s: %v\n", b.name, err)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}
