package present

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/output/table"
)

// WorkloadInfo writes a workload's summary as text (WriteWorkloadInfo)
// or, with format "json", workload.Describe as indented JSON.
func WorkloadInfo(w io.Writer, wl *workload.Workload, format string) error {
	if format != "json" {
		return WriteWorkloadInfo(w, wl)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(workload.Describe(wl))
}

// writeTraceInfo writes a trace replay's lines of workload info: the
// trace, its implied prefix reuse, the length percentiles and the
// arrival rate per minute of trace.
func writeTraceInfo(w io.Writer, wl *workload.Workload) {
	if wl.Header == nil || wl.Header.Trace == nil {
		return
	}
	src, info := wl.Header.Trace, workload.Describe(wl)
	fmt.Fprintf(w, "trace       %s  %s  sha256 %.16s  block %d  time scale %g\n", table.Escape(src.File), table.Escape(src.Format), table.Escape(src.SHA256), src.BlockSize, src.TimeScale)
	fmt.Fprintf(w, "reuse       %.1f%% of prompt tokens implied (what an unbounded prefix cache that starts empty could reuse)\n", 100*src.ImpliedPrefixReuseShare)
	if d := info.InputLen; d != nil {
		fmt.Fprintf(w, "input_len   p50 %.0f  p90 %.0f  p99 %.0f tokens\n", d.P50, d.P90, d.P99)
	}
	d := info.MaxTokens
	fmt.Fprintf(w, "max_tokens  p50 %.0f  p90 %.0f  p99 %.0f tokens\n", d.P50, d.P90, d.P99)
	rates := info.Trace.RatePerMinute
	if len(rates) == 0 {
		fmt.Fprintf(w, "rate        %d minutes of trace (too many to bin)\n", info.Trace.Minutes)
		return
	}
	lo, hi, busiest, sum := rates[0].TraceRPS, rates[0].TraceRPS, 0, 0.0
	for i, r := range rates {
		lo, hi, sum = min(lo, r.TraceRPS), max(hi, r.TraceRPS), sum+r.TraceRPS
		if r.TraceRPS > rates[busiest].TraceRPS {
			busiest = i
		}
	}
	fmt.Fprintf(w, "rate        per minute of trace: min %.2f  mean %.2f  max %.2f req/s (minute %d) over %d min",
		lo, sum/float64(len(rates)), hi, busiest, len(rates))
	if src.TimeScale != 1 {
		fmt.Fprintf(w, "; sent %gx as fast (time scale %g)", 1/src.TimeScale, src.TimeScale)
	}
	fmt.Fprintln(w)
}
