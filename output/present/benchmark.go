package present

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/output/table"
)

// WriteBenchmarkText writes the human summary of a benchmark result to w:
// a key/value block aligned as one, with the sweep's and the latency
// distributions' rows inside it (not separate tables).
func WriteBenchmarkText(w io.Writer, r *result.Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	m := r.Manifest
	esc := table.Escape // server- and file-given strings
	fmt.Fprintf(tw, "engine\t%s %s\n", esc(m.Engine), esc(m.EngineVersion))
	fmt.Fprintf(tw, "model\t%s\n", esc(m.Model))
	fmt.Fprintf(tw, "workload\t%s (%d requests, sha256 %.12s)\n", esc(r.Workload.Path), r.Workload.Count, esc(r.Workload.SHA256))
	fmt.Fprintf(tw, "load\t%s\n", esc(m.LoadPolicy))
	if !r.StartedAt.IsZero() && !r.EndedAt.IsZero() {
		fmt.Fprintf(tw, "ran\t%s .. %s\n", r.StartedAt.UTC().Format(time.RFC3339), r.EndedAt.UTC().Format(time.RFC3339))
	}
	writeShards(tw, r)
	if r.Incomplete {
		fmt.Fprintf(tw, "status\tINCOMPLETE (interrupted)\n")
	}
	if r.Sweep != nil {
		fmt.Fprintf(tw, "\nsweep (%s)\trequests ok/failed\toutput_throughput tok/s\trequest_throughput req/s\tttft_ms_p50\ttpot_ms_p50\n", r.Sweep.Kind)
		for _, s := range r.Sweep.Steps {
			mark := ""
			if s.Incomplete {
				mark = " (interrupted: not used for saturation)"
			}
			fmt.Fprintf(tw, "%g%s\t%d/%d\t%.1f\t%.2f\t%.1f\t%.2f\n", s.Value, mark, s.Summary.RequestsOK, s.Summary.RequestsFailed,
				s.Summary.OutputThroughput, s.Summary.RequestThroughput, s.Summary.TTFT.P50, s.Summary.TPOT.P50)
		}
		if r.Sweep.SaturationAt != nil {
			fmt.Fprintf(tw, "saturation at\t%g\n", *r.Sweep.SaturationAt)
		} else {
			fmt.Fprintf(tw, "saturation\tnot reached\n")
		}
		writeCapacity(tw, r.Sweep.Capacity)
		fmt.Fprintf(tw, "\nlast step:\n")
	}
	s := r.Summary
	fmt.Fprintf(tw, "\nrequests\t%d ok, %d failed, %d cancelled, %d not sent\n", s.RequestsOK, s.RequestsFailed, s.RequestsCancelled, s.RequestsNotSent)
	if len(s.FailedByClass) > 0 {
		fmt.Fprintf(tw, "failed by class\t%s\n", FailureClasses(s.FailedByClass))
	}
	fmt.Fprintf(tw, "tokens\t%d input, %d output\n", s.InputTokens, s.OutputTokens)
	fmt.Fprintf(tw, "duration\t%.3f s\n", s.DurationS)
	if s.CompletionTimeS != nil {
		fmt.Fprintf(tw, "completion time\t%.3f s\n", *s.CompletionTimeS)
	}
	fmt.Fprintf(tw, "throughput\t%.3f req/s, %.1f input tok/s, %.1f output tok/s\n", s.RequestThroughput, s.InputThroughput, s.OutputThroughput)
	st := r.Phases.Steady
	fmt.Fprintf(tw, "steady state\t%.3f s, %.1f output tok/s, mean concurrency %.2f\n", st.DurationS, st.OutputThroughput, st.MeanConcurrency)
	fmt.Fprintf(tw, "drain\t%.3f s\n", r.Phases.Drain.DurationS)
	fmt.Fprintf(tw, "concurrency\tmean %.2f, max %d\n", s.Concurrency.Mean, s.Concurrency.Max)
	writeEnergy(tw, s.Energy)
	writeSLOResult(tw, s.SLOResult)
	fmt.Fprintf(tw, "\nms\tmean\tstd\tp50\tp90\tp95\tp99\tmax\tcount\n")
	for _, d := range []struct {
		name string
		d    result.Dist
	}{{"ttft", s.TTFT}, {"tpot", s.TPOT}, {"itl (per chunk)", s.ITL}, {"itl (per token)", s.ITLPerToken}, {"e2e", s.E2E}, {"send lag", s.SendLag}} {
		fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%d\n", d.name, d.d.Mean, d.d.Std, d.d.P50, d.d.P90, d.d.P95, d.d.P99, d.d.Max, d.d.Count)
	}
	if s.CapDelayed > 0 {
		fmt.Fprintf(tw, "cap delayed\t%d requests waited for a --max-concurrency slot\n", s.CapDelayed)
	}
	if s.LengthMismatches > 0 {
		fmt.Fprintf(tw, "length mismatches\t%d\n", s.LengthMismatches)
	}
	writePrefixReuse(tw, r) // tracereuse.go
	writeRequestChecks(tw, &s)
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", table.Escape(n))
	}
	_, err := fmt.Fprintf(w, "warnings: %d (see result file and stderr)\n", len(r.Warnings))
	return err
}

// FailureClasses lists failed requests by class as "class=n" pairs in
// class order, or "none".
func FailureClasses(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, m[k])
	}
	return strings.Join(parts, " ")
}

// WriteWorkloadInfo writes a workload's identity and length summary.
func WriteWorkloadInfo(w io.Writer, wl *workload.Workload) error {
	st := wl.Stats()
	n := len(wl.Requests)
	fmt.Fprintf(w, "file        %s\nsha256      %s\nrequests    %d (tokens %d, text %d, chat %d)\n",
		table.Escape(wl.Path), wl.SHA256, n, st.Kinds[workload.KindTokens], st.Kinds[workload.KindText], st.Kinds[workload.KindChat])
	writeWorkloadHeader(w, wl) // realtext.go
	if len(st.InputLens) > 0 {
		fmt.Fprintf(w, "input_len   %s tokens (%d requests that know it: token ids, or counted with a tokenizer)\n", intStats(st.InputLens), len(st.InputLens))
	}
	_, err := fmt.Fprintf(w, "max_tokens  %s tokens\nfixed       %d of %d\narrivals    %d of %d\n",
		intStats(st.MaxTokens), st.FixedLen, n, st.WithArrive, n)
	writeTraceInfo(w, wl) // workloadinfo.go
	return err
}

// intStats formats min/mean/max and the total of xs.
func intStats(xs []int) string {
	lo, hi, sum := xs[0], xs[0], 0
	for _, x := range xs {
		lo, hi, sum = min(lo, x), max(hi, x), sum+x
	}
	return fmt.Sprintf("min %d  mean %.1f  max %d  total %d", lo, float64(sum)/float64(len(xs)), hi, sum)
}
