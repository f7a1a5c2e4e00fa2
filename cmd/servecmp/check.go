package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/servecmp/servecmp/benchmark/engine"
	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/check"
	"github.com/servecmp/servecmp/internal/atomicfile"
	"github.com/servecmp/servecmp/internal/present"
)

// checkEngines are the --engine-a and --engine-b values.
var checkEngines = append([]string{engine.Auto}, engine.Names...)

func newCheckCmd(e *env) *cobra.Command {
	var (
		urlA, urlB, model, modelA, modelB, engA, engB string
		wlPath, out, quality, qualityNote, format     string
		seed                                          int64
		limit                                         int
		timeout                                       time.Duration
	)
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
otherwise 1 (the report is still written). --quality records the separate
downstream-quality status so that compare can carry it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if urlA == "" || urlB == "" || wlPath == "" {
				return usagef("check: need --a URL, --b URL and --workload FILE")
			}
			if modelA == "" {
				modelA = model
			}
			if modelB == "" {
				modelB = model
			}
			for _, s := range []string{engA, engB} {
				if !engine.Valid(s) {
					return usagef("check: engine %q: want one of %s", s, strings.Join(checkEngines, ", "))
				}
			}
			if !slices.Contains([]string{"pass", "fail", "not-run"}, quality) {
				return usagef("check: --quality %q: want pass, fail or not-run", quality)
			}
			if format != "text" && format != "json" {
				return usagef("check: --format %q: want text or json", format)
			}
			if err := atomicfile.Check("--out", out, wlPath); err != nil {
				return usagef("check: %v", err)
			}
			wl, err := workload.Load(wlPath)
			if err != nil {
				return err
			}
			if limit > 0 && limit < len(wl.Requests) {
				wl.Requests = wl.Requests[:limit]
			}
			rep, runErr := check.Run(e.ctx, check.Target{URL: urlA, Model: modelA, Engine: engA},
				check.Target{URL: urlB, Model: modelB, Engine: engB}, wl, check.Options{
					Seed: seed, Timeout: timeout,
					Progress: func(done, total int) {
						if done == total || done%10 == 0 {
							fmt.Fprintf(e.stderr, "check: %d/%d requests\n", done, total)
						}
					},
				})
			if rep == nil {
				return runErr
			}
			rep.Quality = check.Quality{Status: quality, Note: qualityNote}
			if out != "" {
				if err := writeJSONFile(out, rep); err != nil {
					return err
				}
				fmt.Fprintln(e.stderr, "check: wrote", out)
			}
			if format == "json" {
				enc := json.NewEncoder(e.stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(rep); err != nil {
					return err
				}
			} else {
				present.WriteCheckText(e.stdout, rep)
			}
			if runErr != nil {
				return runErr
			}
			if !rep.Summary.Passed {
				return errors.New("check failed: not every request succeeded and matched on both engines")
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&urlA, "a", "", "base URL of engine A (http://host:port)")
	f.StringVar(&urlB, "b", "", "base URL of engine B")
	f.StringVar(&model, "model", "", "model name sent to both engines")
	f.StringVar(&modelA, "model-a", "", "model name for A (overrides --model)")
	f.StringVar(&modelB, "model-b", "", "model name for B (overrides --model)")
	f.StringVar(&engA, "engine-a", "auto", "request style for A: "+strings.Join(checkEngines, "|"))
	f.StringVar(&engB, "engine-b", "auto", "request style for B: "+strings.Join(checkEngines, "|"))
	f.StringVar(&wlPath, "workload", "", "workload file (servecmp workload)")
	f.IntVar(&limit, "limit", 0, "check only the first N requests (0 = all)")
	f.Int64Var(&seed, "seed", 1234, "sampling seed sent with every request")
	f.DurationVar(&timeout, "timeout", 120*time.Second, "per-request timeout")
	f.StringVar(&out, "out", "", "write the JSON report here")
	f.StringVar(&format, "format", "text", "stdout format: text or json")
	f.StringVar(&quality, "quality", "not-run", "downstream quality status to record: pass, fail or not-run")
	f.StringVar(&qualityNote, "quality-note", "", "free-text note on the quality evaluation (e.g. the eval and scores)")
	return cmd
}

// writeJSONFile writes v as indented JSON to path (atomically).
func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(b, '\n'))
}
