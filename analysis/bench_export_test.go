package analysis

import (
	"context"
	"os"
	"runtime"
	"testing"

	"github.com/servecmp/servecmp/classify"
	"github.com/servecmp/servecmp/event"
	"github.com/servecmp/servecmp/input"
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

// BenchmarkExportClassify reads the export named by SERVECMP_BENCH_EXPORT
// once, then times the classification and summary of its ranks alone
// (for profiling); it skips without one.
func BenchmarkExportClassify(b *testing.B) {
	path := os.Getenv("SERVECMP_BENCH_EXPORT")
	if path == "" {
		b.Skip("SERVECMP_BENCH_EXPORT not set")
	}
	set := rules.Default()
	c, err := input.Open(context.Background(), path, event.Context)
	if err != nil {
		b.Fatal(err)
	}
	byName := classify.NameLabels(set, c.Names)
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for b.Loop() {
		for _, rk := range c.Ranks {
			sem <- struct{}{}
			if _, err := summarize(c, rk, set, byName, Options{}, sem); err != nil {
				b.Fatal(err)
			}
			<-sem
		}
	}
}
