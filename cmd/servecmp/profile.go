package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/servecmp/servecmp/output/emit"
	"github.com/servecmp/servecmp/profile"
)

func newProfileCmd(e *env) *cobra.Command {
	f, o := &benchFlags{}, &profile.Options{}
	cmd := &cobra.Command{
		Use:   "profile --url URL --workload FILE (--concurrency C | --rate R) [--profile-after D --profile-for D] [--trace-dir DIR]",
		Short: "Run a benchmark with the engine's profiler on for a bounded window; record the work done inside it",
		Args:  cobra.NoArgs,
		RunE:  func(c *cobra.Command, _ []string) error { return runProfile(e, c, f, o) },
	}
	fs := cmd.Flags()
	f.register(fs)
	fs.DurationVar(&o.After, "profile-after", profile.DefaultSettle, "start the profiler this long after the measured phase's start")
	fs.DurationVar(&o.For, "profile-for", profile.DefaultFor, "stop the profiler this long after its start was answered")
	fs.IntVar(&o.Steps, "profile-steps", 0, "SGLang: profile this many scheduler steps (num_steps)")
	fs.DurationVar(&o.StopTimeout, "profile-stop-timeout", profile.DefaultStopTimeout, "wait this long for the stop call's answer (vLLM flushes traces first)")
	fs.StringVar(&o.TraceDir, "trace-dir", "", "directory the traces appear in (sent as SGLang's output_dir)")
	fs.StringSliceVar(&o.Activities, "activities", nil, "SGLang activities (default CPU,GPU; CUDA_PROFILER under nsys)")
	return cmd
}

func runProfile(e *env, c *cobra.Command, f *benchFlags, o *profile.Options) error {
	cfg, err := f.config(c)
	if err != nil {
		return err
	}
	if err := profile.Validate(&cfg, o); err != nil {
		return usagef("%v", err)
	}
	res, runErr, recErr := profile.RunRecorded(c.Context(), cfg, *o, f.Records)
	if res == nil {
		return runErr
	}
	werr := emit.Profile(e.stdout, e.stderr, f.Out, res)
	if recErr != nil {
		werr = errors.Join(werr, errors.New("writing "+recErr.Error()))
	}
	return errors.Join(runErr, werr)
}
