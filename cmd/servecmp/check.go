package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/servecmp/servecmp/benchmark"
	"github.com/servecmp/servecmp/benchmark/engine"
	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/check"
	"github.com/servecmp/servecmp/internal/atomicfile"
	"github.com/servecmp/servecmp/internal/present"
)

// checkEngines are the --engine-a and --engine-b values.
var checkEngines = append([]string{engine.Auto}, engine.Names...)

// checkFlags are the check command's options.
type checkFlags struct {
	urlA, urlB, model, modelA, modelB, engA, engB string
	wlPath, out, quality, qualityNote, format     string
	apiKeyFile                                    string
	seed                                          int64
	limit                                         int
	timeout                                       time.Duration
}

func newCheckCmd(e *env) *cobra.Command {
	o := &checkFlags{}
	cmd := &cobra.Command{
		Use:   "check --a URL --b URL --model M --workload FILE [--out check.json]",
		Short: "Pre-flight correctness check: same requests, same output tokens on both engines?",
		Long: `check sends every request of a small workload to both engines, one at a time,
at temperature 0 with a fixed seed, and compares per request: success, input
and output token counts, and the exact output token sequence. The evidence is
token ids where the engine returns them (vLLM return_token_ids, SGLang
/generate logprobs, trtllm-serve token_ids), else logprob tokens, else text
(weaker: equal text does not prove equal tokens). Each mismatch is reported
with the position of its first divergence and both continuations.

Exit status 0 only when every request succeeded on both engines and matched;
otherwise 1 (the report is still written). Ctrl-C stops after the request in
flight is abandoned and writes the report marked incomplete (exit 1).

The API key comes from OPENAI_API_KEY or --api-key-file, goes to both engines
and is never written; credentials in --a/--b URLs are redacted in the report. --quality records the separate
downstream-quality status so that compare can carry it.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runCheck(c.Context(), e, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.urlA, "a", "", "base URL of engine A (http://host:port)")
	f.StringVar(&o.urlB, "b", "", "base URL of engine B")
	f.StringVar(&o.model, "model", "", "model name sent to both engines")
	f.StringVar(&o.modelA, "model-a", "", "model name for A (overrides --model)")
	f.StringVar(&o.modelB, "model-b", "", "model name for B (overrides --model)")
	f.StringVar(&o.engA, "engine-a", "auto", "request style for A: "+strings.Join(checkEngines, "|"))
	f.StringVar(&o.engB, "engine-b", "auto", "request style for B: "+strings.Join(checkEngines, "|"))
	f.StringVar(&o.wlPath, "workload", "", "workload file (servecmp workload)")
	f.IntVar(&o.limit, "limit", 0, "check only the first N requests (0 = all)")
	f.Int64Var(&o.seed, "seed", 1234, "sampling seed sent with every request")
	f.DurationVar(&o.timeout, "timeout", 120*time.Second, "per-request timeout")
	f.StringVar(&o.apiKeyFile, "api-key-file", "", "file holding the API key sent to both engines (default: $OPENAI_API_KEY)")
	f.StringVar(&o.out, "out", "", "write the JSON report here")
	f.StringVar(&o.format, "format", "text", "stdout format: text or json")
	f.StringVar(&o.quality, "quality", "not-run", "downstream quality status to record: pass, fail or not-run")
	f.StringVar(&o.qualityNote, "quality-note", "", "free-text note on the quality evaluation (e.g. the eval and scores)")
	return cmd
}

// validate checks every flag and the output path before any request.
func (o *checkFlags) validate() error {
	if o.urlA == "" || o.urlB == "" || o.wlPath == "" {
		return usagef("check: need --a URL, --b URL and --workload FILE")
	}
	for _, u := range []string{o.urlA, o.urlB} {
		if err := benchmark.ValidateBaseURL(u); err != nil {
			return usagef("check: %v", err)
		}
	}
	for _, s := range []string{o.engA, o.engB} {
		if !engine.Valid(s) {
			return usagef("check: engine %q: want one of %s", s, strings.Join(checkEngines, ", "))
		}
	}
	if !slices.Contains([]string{"pass", "fail", "not-run"}, o.quality) {
		return usagef("check: --quality %q: want pass, fail or not-run", o.quality)
	}
	if o.format != "text" && o.format != "json" {
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
	wl, err := workload.Load(o.wlPath)
	if err != nil {
		return err
	}
	key, err := readAPIKey(o.apiKeyFile)
	if err != nil {
		return err
	}
	if o.limit > 0 && o.limit < len(wl.Requests) {
		wl.Requests = wl.Requests[:o.limit]
	}
	rep, runErr := check.Run(ctx, check.Target{URL: o.urlA, Model: cmp.Or(o.modelA, o.model), Engine: o.engA},
		check.Target{URL: o.urlB, Model: cmp.Or(o.modelB, o.model), Engine: o.engB}, wl, check.Options{
			Seed: o.seed, Timeout: o.timeout, APIKey: key,
			Progress: func(done, total int) {
				if done == total || done%10 == 0 {
					fmt.Fprintf(e.stderr, "check: %d/%d requests\n", done, total)
				}
			},
		})
	if rep == nil {
		return runErr
	}
	rep.Quality = check.Quality{Status: o.quality, Note: o.qualityNote}
	if err := writeCheck(e, o, rep); err != nil {
		return err
	}
	if rep.Incomplete {
		return errors.New("interrupted: the check report is marked incomplete")
	}
	if runErr != nil {
		return runErr
	}
	if !rep.Summary.Passed {
		return errors.New("check failed: not every request succeeded and matched on both engines")
	}
	return nil
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
	if o.format == "json" {
		_, err = e.stdout.Write(b)
		return err
	}
	present.WriteCheckText(e.stdout, rep)
	return nil
}
