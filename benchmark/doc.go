// Package benchmark is servecmp's load generator: it replays a frozen
// workload against a serving engine through benchmark/client under a load
// policy (closed loop; open loop with constant, Poisson or gamma
// arrivals; trace offsets; a concurrency cap; multi-turn sessions), with
// warmup, steady-state and drain phases, sweeps over offered load, the
// progress line, client-side token counts, the server-metrics scrape and
// the GPU telemetry scrape (benchmark/gputelemetry: each step's energy),
// and returns a complete result.Result.
//
// Units: times inside a run are time.Duration from one monotonic start
// instant per step; in results, send times are seconds from the step's
// t=0 (its first scheduled send), latencies are milliseconds from the
// request's own send (benchmark/result states the model's units).
//
// Invariants:
//   - Sends follow an absolute schedule; a late send never moves later
//     ones, and its lag (actual − scheduled) is recorded.
//   - Failed and cancelled requests are counted by class and never enter
//     latency or token figures (result.NewSummary).
//   - Cached prompt tokens and the engine's own timings are kept per
//     record when the server sends them; the summary reports the cached
//     share and the client-minus-server differences, and the run warns
//     when they call for it.
//
// Run owns a whole invocation: it validates the configuration once
// (before any request), detects the engine, assembles the manifest once,
// scrapes the server's metrics and the engine's GPUs over the measured
// window (first measured step's start to the last one's drain end; the
// GPUs also at each step's edges, for its energy) and returns the
// complete Result. Engine dialects (which body fields and endpoints each engine
// accepts) live in benchmark/engine.
//
// The package never prints and reads no flags; cmd/servecmp wires it to
// the command line and output/present renders its results.
package benchmark
