package analysis

import (
	"context"
	"os"
	"testing"

	"github.com/servecmp/servecmp/rules"
)

// BenchmarkExport runs the analysis of the export named by
// SERVECMP_BENCH_EXPORT (for profiling: make bench keeps its exports with
// SERVECMP_BENCH_KEEP=DIR); it skips without one.
func BenchmarkExport(b *testing.B) {
	path := os.Getenv("SERVECMP_BENCH_EXPORT")
	if path == "" {
		b.Skip("SERVECMP_BENCH_EXPORT not set")
	}
	set := rules.Default()
	for b.Loop() {
		if _, err := Run(context.Background(), []Input{{Path: path}}, set, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
