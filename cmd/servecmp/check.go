package main

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/servecmp/servecmp/benchmark"
	"github.com/servecmp/servecmp/check"
	"github.com/servecmp/servecmp/internal/atomicfile"
	"github.com/servecmp/servecmp/internal/present"
	"github.com/servecmp/servecmp/internal/table"
)

// checkFlags are the check command's options.
type checkFlags struct {
	a, b               check.Target // Model: --model-a, --model-b
	model, wlPath, out string
	format             string
	limit              int
	quality            check.Quality
	opt                check.Options
	apiKeyFile         string
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
	f.StringVar(&o.a.URL, "a", "", "base URL of engine A (http://host:port)")
	f.StringVar(&o.b.URL, "b", "", "base URL of engine B")
	f.StringVar(&o.model, "model", "", "model name sent to both engines")
	f.StringVar(&o.a.Model, "model-a", "", "model name for A (overrides --model)")
	f.StringVar(&o.b.Model, "model-b", "", "model name for B (overrides --model)")
	f.StringVar(&o.a.Engine, "engine-a", "auto", "request style for A: "+strings.Join(check.Engines(), "|"))
	f.StringVar(&o.b.Engine, "engine-b", "auto", "request style for B: "+strings.Join(check.Engines(), "|"))
	f.StringVar(&o.wlPath, "workload", "", "workload file (servecmp workload)")
	f.IntVar(&o.limit, "limit", 0, "check only the first N requests (0 = all)")
	f.Int64Var(&o.opt.Seed, "seed", 1234, "sampling seed sent with every request")
	f.DurationVar(&o.opt.Timeout, "timeout", 120*time.Second, "per-request timeout")
	f.StringVar(&o.apiKeyFile, "api-key-file", "", "file holding the API key sent to both engines (default: $OPENAI_API_KEY)")
	f.StringVar(&o.out, "out", "", "write the JSON report here")
	f.StringVar(&o.format, "format", "text", "stdout format: text or json")
	f.StringVar(&o.quality.Status, "quality", "not-run", "downstream quality status to record: "+strings.Join(check.QualityStatuses, ", "))
	f.StringVar(&o.quality.Note, "quality-note", "", "free-text note on the quality evaluation (e.g. the eval and scores)")
	return cmd
}

// validate checks every flag and the output path before any request.
func (o *checkFlags) validate() error {
	if o.a.URL == "" || o.b.URL == "" || o.wlPath == "" {
		return usagef("check: need --a URL, --b URL and --workload FILE")
	}
	for _, u := range []string{o.a.URL, o.b.URL} {
		if err := benchmark.ValidateBaseURL(u); err != nil {
			return usagef("check: %v", err)
		}
	}
	flags := []string{"--engine-a", "--engine-b", "--quality"}
	for i, err := range []error{o.a.Validate(), o.b.Validate(), o.quality.Validate()} {
		if err != nil {
			return usagef("check: %s: %v", flags[i], err)
		}
	}
	if name, _, err := table.Lookup(o.format); err != nil || (name != "text" && name != "json") {
		return usagef("check: --format %q: want text or json", o.format)
	}
	if err := atomicfile.Check("--out", o.out, o.wlPath); err != nil {
		return usagef("check: %v", err)
	}
	return nil
}

func runCheck(ctx context.Context, e *env, o *checkFlags) error {
	if err := o.validate(); err != nil {
		return err
	}
	o.a.Model, o.b.Model = cmp.Or(o.a.Model, o.model), cmp.Or(o.b.Model, o.model)
	key, err := benchmark.ReadAPIKey(o.apiKeyFile)
	if err != nil {
		return err
	}
	o.opt.APIKey = key
	o.opt.Progress = func(done, total int) {
		if done == total || done%10 == 0 {
			fmt.Fprintf(e.stderr, "check: %d/%d requests\n", done, total)
		}
	}
	rep, runErr := check.RunFile(ctx, o.a, o.b, o.wlPath, o.limit, o.quality, o.opt)
	if rep == nil {
		return runErr
	}
	if err := writeCheck(e, o, rep); err != nil {
		return err
	}
	return runErr
}

// writeCheck writes the report to --out and to stdout in --format.
func writeCheck(e *env, o *checkFlags, rep *check.Report) error {
	b, err := rep.JSON()
	if err != nil {
		return err
	}
	if o.out != "" {
		if err := atomicfile.Write(o.out, b); err != nil {
			return fmt.Errorf("writing %v", err) // the error names the file
		}
		fmt.Fprintln(e.stderr, "check: wrote", o.out)
	}
	if name, _, _ := table.Lookup(o.format); name == "json" {
		_, err = e.stdout.Write(b)
		return err
	}
	present.WriteCheckText(e.stdout, rep)
	return nil
}
