// Package gputelemetry samples NVIDIA dcgm-exporter endpoints (one per
// node) during a benchmark run and turns the samples into the energy the
// engine's GPUs used over the measurement window, with per-GPU means of
// the rest of the telemetry and the clock-limiting events seen. What it
// produces is the result model's (result.GPUTelemetry, result.GPUStats,
// result.Energy): compare reads it without linking the scraper.
//
// Units: power W; energy J (the exporter's counter is mJ and is converted
// where it enters); utilisation percent 0..100; SM active a ratio 0..1;
// frame-buffer memory MiB; clocks MHz; temperature °C; times seconds from
// the run start the caller gives (SetStart). A sample's time is the
// midpoint of its HTTP request.
//
// Invariants:
//   - Every value is bounded where it enters: a reading that is not
//     finite, negative or above its field's ceiling (fields.go; DCGM's
//     "blank" sentinels such as 0x7ffffffffffffff0 fall above every
//     ceiling) is dropped and counted; label values are clipped. No NaN
//     or infinity reaches the result.
//   - A GPU is keyed by its UUID (else its index) within its node; a node
//     is the exporter's Hostname label, else its URL. A UUID seen on two
//     exporters is one GPU, counted once.
//   - Energy comes from the energy counter when it has two distinct
//     values, else from the power gauge integrated over the samples
//     (trapezoid). A counter that goes down was reset (driver reload, GPU
//     reset; a 64-bit mJ counter cannot wrap in practice): that interval's
//     energy is the power integral over it when power is exposed ("mixed"
//     source), else the counter's new value, a lower bound.
//   - Window edges fall between samples: the counter (or the power) is
//     interpolated linearly to them and extrapolated at the neighbouring
//     interval's rate where the samples stop short. A counter value that
//     repeats is a cached reading, not a new one: only the first sample of
//     each value is kept (changePoints). UncertaintyJ bounds what the
//     edges, the extrapolation and the readings' age can get wrong if the
//     power stayed within [0, the highest power seen].
//   - A slow, failing or missing exporter, or a missing GPU, is a warning
//     in the result and clears Complete; it never loses the run.
package gputelemetry
