package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/servecmp/servecmp/check"
	"github.com/servecmp/servecmp/internal/atomicfile"
	"github.com/servecmp/servecmp/internal/present"
	"github.com/servecmp/servecmp/internal/table"
)

// checkFlags are the check command's options.
type checkFlags struct {
	urlA, urlB, model, modelA, modelB, engA, engB string
	wlPath, out, quality, qualityNote, format     string
	seed                                          int64
	limit                                         int
	timeout                                       time.Duration
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
	f.StringVar(&o.urlA, "a", "", "base URL of engine A (http://host:port)")
	f.StringVar(&o.urlB, "b", "", "base URL of engine B")
	f.StringVar(&o.model, "model", "", "model name sent to both engines")
	f.StringVar(&o.modelA, "model-a", "", "model name for A (overrides --model)")
	f.StringVar(&o.modelB, "model-b", "", "model name for B (overrides --model)")
	f.StringVar(&o.engA, "engine-a", "auto", "request style for A: "+strings.Join(check.Engines(), "|"))
	f.StringVar(&o.engB, "engine-b", "auto", "request style for B: "+strings.Join(check.Engines(), "|"))
	f.StringVar(&o.wlPath, "workload", "", "workload file (servecmp workload)")
	f.IntVar(&o.limit, "limit", 0, "check only the first N requests (0 = all)")
	f.Int64Var(&o.seed, "seed", 1234, "sampling seed sent with every request")
	f.DurationVar(&o.timeout, "timeout", 120*time.Second, "per-request timeout")
	f.StringVar(&o.out, "out", "", "write the JSON report here")
	f.StringVar(&o.format, "format", "text", "stdout format: text or json")
	f.StringVar(&o.quality, "quality", "not-run", "downstream quality status to record: pass, fail or not-run")
	f.StringVar(&o.qualityNote, "quality-note", "", "free-text note on the quality evaluation (e.g. the eval and scores)")
	return cmd
}

// targets are the two engines the flags name.
func (o *checkFlags) targets() (a, b check.Target) {
	return check.Target{URL: o.urlA, Model: cmp.Or(o.modelA, o.model), Engine: o.engA},
		check.Target{URL: o.urlB, Model: cmp.Or(o.modelB, o.model), Engine: o.engB}
}

// validate checks every flag and the output path before any request.
func (o *checkFlags) validate() error {
	if o.urlA == "" || o.urlB == "" || o.wlPath == "" {
		return usagef("check: need --a URL, --b URL and --workload FILE")
	}
	a, b := o.targets()
	flags := []string{"--engine-a", "--engine-b", "--quality"}
	for i, err := range []error{a.Validate(), b.Validate(), check.Quality{Status: o.quality}.Validate()} {
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
	a, b := o.targets()
	rep, runErr := check.RunFile(ctx, a, b, o.wlPath, o.limit, check.Quality{Status: o.quality, Note: o.qualityNote},
		check.Options{Seed: o.seed, Timeout: o.timeout, Progress: func(done, total int) {
			if done == total || done%10 == 0 {
				fmt.Fprintf(e.stderr, "check: %d/%d requests\n", done, total)
			}
		}})
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
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
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
