// Package benchmark replays a frozen workload against an OpenAI-compatible
// streaming server and measures it: the streaming client and its SSE
// parser, the load generator (closed loop, open loop with constant,
// Poisson or gamma arrivals, trace offsets, a concurrency cap), warmup,
// steady-state and drain phases, metrics, sweeps, the manifest and the
// result and record files.
//
// Units: times inside a run are time.Duration from one monotonic start
// instant per step; in results, send times are seconds from the step's t=0
// (its first scheduled send), latencies and chunk offsets are milliseconds
// from the request's own send, throughputs are per second, token counts
// are tokens.
//
// Invariants:
//   - A chunk's timestamp is taken right after the read that delivered it
//     returns, before any parsing; chunks delivered by one read share it.
//   - TTFT is the first chunk with content (non-empty text, delta content,
//     reasoning or tool calls); a role-only chunk, the usage chunk and
//     [DONE] are not content. E2E is the last content chunk; DoneMs is the
//     end of the stream.
//   - A request is ok only when its stream ended with [DONE] or a
//     finish_reason and carried no in-band error; failed and cancelled
//     requests are counted by class and never enter latency or token
//     figures.
//   - Output tokens come from the server's usage; without usage they are
//     counted from the chunks (token_ids length, else one per content
//     chunk) and the result says so.
//   - Sends follow an absolute schedule; a late send never moves later
//     ones, and its lag (actual − scheduled) is recorded.
//   - A request is retried only when it provably never reached the
//     server: it failed with a connection error on a reused keep-alive
//     connection before any byte of the response (retry.go). It is sent
//     again once, on a fresh connection, counted (Record.Retried,
//     Summary.Retried), and its latencies still count from the first
//     send. Every other failure stays a failure.
//   - Cached prompt tokens (usage.prompt_tokens_details.cached_tokens)
//     and the engine's own timings (llama.cpp's "timings") are kept per
//     record when the server sends them; the summary reports the cached
//     share and the client-minus-server differences (TimingCheck).
//
// Run owns a whole invocation: it validates the configuration once
// (before any request), detects the engine, assembles the manifest once,
// scrapes the server's metrics over the measured window (first measured
// step's start to the last one's drain end) and returns the complete
// Result. Engine dialects (which body fields and endpoints each engine
// accepts) live in benchmark/engine.
//
// The package never prints and reads no flags; cmd/servecmp wires it to
// the command line and internal/present renders its results.
package benchmark
