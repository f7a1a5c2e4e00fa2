package compare

import "strings"

// Metric names follow one scheme in every output (JSON, CSV, text,
// markdown, workbook, HTML): a latency statistic is
// <kind>_<unit>_<statistic>, e.g. "ttft_ms_p50", "itl_per_token_ms_mean";
// a figure without a statistic keeps its result field name, with its unit
// in the unit column ("output_throughput", tok/s; "completion_time_s").

// Statistics are the statistic suffixes of latency metric names.
var Statistics = []string{"mean", "p50", "p90", "p95", "p99"}

// SplitMetric splits a metric name into its kind and statistic:
// "ttft_ms_p50" is ("ttft_ms", "p50"); a name without a statistic is its
// own kind with statistic "".
func SplitMetric(name string) (kind, stat string) {
	if i := strings.LastIndexByte(name, '_'); i > 0 {
		for _, s := range Statistics {
			if name[i+1:] == s {
				return name[:i], s
			}
		}
	}
	return name, ""
}
