package main

import (
	"context"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/servecmp/servecmp/check"
	"github.com/servecmp/servecmp/check/checkreport"
	"github.com/servecmp/servecmp/cmd/servecmp/internal/flagopts"
	"github.com/servecmp/servecmp/internal/atomicfile"
	"github.com/servecmp/servecmp/output/emit"
	"github.com/servecmp/servecmp/output/table"
)

// checkFlags are the check command's options.
type checkFlags struct {
	flagopts.CheckJob // A.Model, B.Model: --model-a, --model-b
	out               string
	format            string
}

func newCheckCmd(e *env) *cobra.Command {
	o := &checkFlags{}
	cmd := &cobra.Command{
		Use:   "check --a URL --b URL --model M --workload FILE [--out check.json]",
		Short: "Pre-flight correctness check: same requests, same output tokens on both engines?",
		Args:  cobra.NoArgs,
		RunE:  func(c *cobra.Command, _ []string) error { return runCheck(c.Context(), e, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.A.URL, "a", "", "base URL of engine A (http://host:port)")
	f.StringVar(&o.B.URL, "b", "", "base URL of engine B")
	f.StringVar(&o.Model, "model", "", "model name sent to both engines")
	f.StringVar(&o.A.Model, "model-a", "", "model name for A (overrides --model)")
	f.StringVar(&o.B.Model, "model-b", "", "model name for B (overrides --model)")
	f.StringVar(&o.A.Engine, "engine-a", "auto", "request style for A: "+strings.Join(check.Engines(), "|"))
	f.StringVar(&o.B.Engine, "engine-b", "auto", "request style for B: "+strings.Join(check.Engines(), "|"))
	f.StringVar(&o.Workload, "workload", "", "workload file (servecmp workload)")
	f.IntVar(&o.Limit, "limit", 0, "check only the first N requests (0 = all)")
	f.Int64Var(&o.Options.Seed, "seed", 1234, "sampling seed sent with every request")
	f.DurationVar(&o.Options.Timeout, "timeout", 120*time.Second, "per-request timeout")
	f.StringVar(&o.APIKeyFile, "api-key-file", "", "file holding the API key sent to both engines (default: $OPENAI_API_KEY)")
	f.StringVar(&o.out, "out", "", "write the JSON report here")
	f.StringVar(&o.format, "format", "text", "stdout format: text or json")
	f.StringVar(&o.Quality.Status, "quality", "not-run", "downstream quality status to record: "+strings.Join(checkreport.QualityStatuses, ", "))
	f.StringVar(&o.Quality.Note, "quality-note", "", "free-text note on the quality evaluation (e.g. the eval and scores)")
	return cmd
}

// runCheck checks every flag and the output path before any request,
// runs the check and writes its report.
func runCheck(ctx context.Context, e *env, o *checkFlags) error {
	if err := o.Validate(); err != nil {
		return usagef("check: %v", err)
	}
	name, _, err := table.Lookup(o.format)
	if err != nil || (name != "text" && name != "json") {
		return usagef("check: --format %q: want text or json", o.format)
	}
	if err := atomicfile.CheckWritable("--out", o.out, o.Workload, o.APIKeyFile); err != nil {
		return usagef("check: %v", err)
	}
	rep, runErr := o.Run(ctx, e.stderr)
	if rep == nil {
		return runErr
	}
	if err := emit.CheckReport(e.stdout, e.stderr, o.out, name == "json", rep); err != nil {
		return err
	}
	return runErr
}
