package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/servecmp/servecmp/internal/atomicfile"
	"github.com/servecmp/servecmp/servesim"
)

func newServeSimCmd(e *env) *cobra.Command {
	cfg := servesim.DefaultConfig()
	var addr, portFile string
	cmd := &cobra.Command{
		Use:   "serve-sim",
		Short: "Run a simulated OpenAI-compatible engine (for demos and tests; not a measurement)",
		Args:  cobra.NoArgs,
		RunE:  func(c *cobra.Command, _ []string) error { return runServeSim(c.Context(), e, cfg, addr, portFile) },
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:8000", "listen address (port 0 picks a free port)")
	f.StringVar(&portFile, "port-file", "", "write the server URL (http://HOST:PORT) to this file once listening")
	f.IntVar(&cfg.MaxRunning, "max-running", cfg.MaxRunning, "maximum running sequences (batch size)")
	f.DurationVar(&cfg.PrefillPerToken, "prefill-per-token", cfg.PrefillPerToken, "prefill time per uncached prompt token")
	f.DurationVar(&cfg.DecodeBase, "decode-base", cfg.DecodeBase, "fixed time of one decode step")
	f.DurationVar(&cfg.DecodePerSeq, "decode-per-seq", cfg.DecodePerSeq, "decode step time added per running sequence")
	f.IntVar(&cfg.KVCacheTokens, "kv-cache-tokens", 1<<20, "KV-cache capacity in tokens (preemption beyond it)")
	f.IntVar(&cfg.MaxModelLen, "max-model-len", 0, "reject prompt+max_tokens above this (0: no limit)")
	f.Int64Var(&cfg.Seed, "seed", 0, "seed for outputs and faults")
	f.IntVar(&cfg.Vocab, "vocab", 32000, "output token ids are in [3, vocab)")
	f.Float64Var(&cfg.EOSProb, "eos-prob", 0.005, "pseudo-EOS chance per token without ignore_eos (negative: never)")
	f.IntVar(&cfg.TokensPerChunk, "tokens-per-chunk", 1, "tokens per SSE chunk")
	f.Float64Var(&cfg.ErrorRate, "error-rate", 0, "fraction of requests answered HTTP 500")
	f.Float64Var(&cfg.MidStreamErrorRate, "mid-stream-error-rate", 0, "fraction of streams ended by an in-band error event")
	f.Float64Var(&cfg.StallRate, "stall-rate", 0, "fraction of streams that pause for --stall-for")
	f.DurationVar(&cfg.StallFor, "stall-for", time.Second, "length of an injected stall")
	f.Float64Var(&cfg.ResetRate, "reset-rate", 0, "fraction of streams whose connection is closed mid-stream")
	f.StringVar(&cfg.ModelName, "model", "sim-model", "model name served")
	f.StringVar(&cfg.EngineName, "engine", "vllm", "engine name (owned_by); \"sglang\" switches /metrics to SGLang names")
	f.StringVar(&cfg.Version, "engine-version", "0.0.0-sim", "version reported by GET /version")
	f.BoolVar(&cfg.OldMetricNames, "old-metric-names", false, "expose vllm:gpu_cache_usage_perc instead of vllm:kv_cache_usage_perc")
	f.StringVar(&cfg.APIKey, "api-key", "", "answer 401 to /v1/ requests without this bearer token (as vLLM's --api-key)")
	f.BoolVar(&cfg.Strict, "strict", false, "reject request fields the simulator does not know (like trtllm-serve)")
	f.IntVar(&cfg.GPU.Count, "gpus", 0, "serve a dcgm-exporter-like page for N simulated GPUs on "+servesim.GPUMetricsPath)
	f.Float64Var(&cfg.GPU.IdleWatts, "gpu-idle-watts", cfg.GPU.IdleWatts, "power of one simulated GPU with nothing running (W)")
	f.Float64Var(&cfg.GPU.WattsPerSeq, "gpu-watts-per-seq", cfg.GPU.WattsPerSeq, "engine power per running sequence, shared by the GPUs (W)")
	f.Uint64Var(&cfg.GPU.ClockEvents, "gpu-clock-events", 0, "clock event (throttle) reason bits the GPUs report, e.g. 0x4 (power cap)")
	f.StringVar(&cfg.ProfileDir, "profile-dir", "", "serve the profiler endpoints of --engine (POST /start_profile, /stop_profile) and write traces of the simulated steps here")
	return cmd
}

// runServeSim serves the simulator on addr until the context ends.
func runServeSim(ctx context.Context, e *env, cfg servesim.Config, addr, portFile string) error {
	if err := cfg.Validate(); err != nil {
		return usagef("%v", err)
	}
	if err := atomicfile.CheckWritable("--port-file", portFile); err != nil {
		return usagef("%v", err)
	}
	err := servesim.Serve(ctx, cfg, addr, servesim.Announce(e.stderr, portFile))
	if err == nil {
		fmt.Fprintln(e.stderr, "serve-sim: stopped")
	}
	return err
}
