// Package profile runs servecmp profile: the same workload and load policy
// as benchmark, with the engine's own profiler started and stopped inside
// the measured steady state, and the work completed inside that window
// counted from the measured records, so that analyze can normalise the
// captured GPU time by it (analyze --work-from).
//
// Clock: every time in the profile block is seconds on the run's clock,
// t=0 being the measured phase's start (benchmark's t=0). The window is
// [start acknowledged, stop requested]: the span in which the engine's
// profiler was surely running (vLLM and SGLang answer the start call once
// the profiler runs, and stop on receipt of the stop call).
//
// Invariants:
//   - an engine without a profiler API is refused before any request;
//   - load keeps flowing until the stop call has returned (benchmark's
//     Config.SendUntil), so the window never covers the drain unless the
//     workload ran out first, which the result then warns about;
//   - the measured records and the result are kept whatever the profiler
//     calls did: a failed start is an error returned with the result, a
//     stop that timed out and a trace directory that is missing or empty
//     are warnings;
//   - window_work follows benchmark's phase rule: requests that ended
//     inside the window and succeeded; output tokens of successful and
//     run-cancelled requests by their chunks' arrival times (a request
//     that straddles an edge counts only its tokens inside); input tokens
//     of those requests whose first token arrived inside the window.
//
// Durations are time.Duration in Options and seconds (float64) in the
// result; token counts are tokens.
package profile
