package main

import (
	"github.com/spf13/cobra"

	"github.com/servecmp/servecmp/benchmark/shards"
	"github.com/servecmp/servecmp/cmd/servecmp/internal/flagopts"
	"github.com/servecmp/servecmp/output/emit"
)

// runMergeOf merges the shards of a sharded benchmark when the first
// input is a benchmark file (by its schema), else analysis summaries.
func runMergeOf(e *env, c *cobra.Command, af *analyzeFlags, sf *flagopts.ShardMerge, args []string) error {
	bench := shards.IsBenchmarkFile(args[0])
	if err := sf.CheckKind(c.Flags().Changed, bench, args[0]); err != nil {
		return err
	}
	if !bench {
		return runMerge(e, af, args)
	}
	if err := sf.Validate(args...); err != nil {
		return err
	}
	res, err := shards.MergeFiles(args, shards.Options{MaxSkew: sf.MaxSkew, Records: sf.Records})
	if err != nil {
		return err
	}
	return emit.Benchmark(e.stdout, e.stderr, sf.Out, res, sf.MaxFailedShare)
}
