package result

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/servecmp/servecmp/internal/stats"
)

// SLOMetrics lists the metrics a threshold may name, in milliseconds.
var SLOMetrics = []string{"ttft_ms", "tpot_ms", "itl_ms", "e2e_ms"}

// Threshold is one term of an SLO. Stat is "" for the per-request form,
// "mean", or a percentile "pNN" (Percentile holds NN).
type Threshold struct {
	Metric     string
	Stat       string
	Percentile float64 // in (0, 100); 0 unless Stat is a percentile
	Op         string  // "<=" or "<"
	LimitMs    float64
}

// String gives the threshold back in ParseThreshold syntax.
func (t Threshold) String() string {
	lim := strconv.FormatFloat(t.LimitMs, 'g', -1, 64)
	if t.Stat == "" {
		return t.Metric + t.Op + lim
	}
	return t.Metric + ":" + t.Stat + t.Op + lim
}

// Distribution reports whether t is held by a step statistic rather than
// by each request.
func (t Threshold) Distribution() bool { return t.Stat != "" }

// meets reports whether v satisfies the threshold's operator.
func (t Threshold) meets(v float64) bool {
	if t.Op == "<" {
		return v < t.LimitMs
	}
	return v <= t.LimitMs
}

// MarshalJSON writes the threshold as its string form.
func (t Threshold) MarshalJSON() ([]byte, error) { return marshalPlain(t.String()) }

// marshalPlain is json.Marshal without HTML escaping, so that "<=" stays
// readable wherever the caller's encoder does not escape either.
func marshalPlain(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// UnmarshalJSON reads a threshold written by MarshalJSON.
func (t *Threshold) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	p, err := ParseThreshold(s)
	if err != nil {
		return err
	}
	*t = p
	return nil
}

// SLO is a service-level objective: a list of thresholds on the
// per-request latencies that the summary reports (milliseconds): ttft_ms,
// tpot_ms, itl_ms and e2e_ms. A threshold has one of two forms:
//
//   - per request, "e2e_ms<=2000": every request is held to it;
//   - on the distribution, "ttft_ms:p99<=500" or "tpot_ms:mean<50": the
//     step's statistic is held to it (percentiles p0 < p < p100, written
//     p50, p90, p99.9, …, or mean).
//
// The operators are <= (a value exactly at the limit passes) and < (it
// fails).
//
// Goodput counts, per second of the step's duration, the requests that met
// every threshold, each applied to the request alone: as vLLM's --goodput
// does, a distribution form such as ttft_ms:p99<=500 also counts here as
// the per-request threshold ttft_ms<=500. For a single request, itl_ms is
// its largest gap between content chunks; a metric the request does not
// define (TPOT or ITL with fewer than two output tokens or chunks, TTFT
// with no content chunk) does not apply to it.
//
// Failed requests are misses: they never meet a threshold, and in a
// distribution each adds one value of +Inf to the sample of every metric,
// so that a p99 fails once the failures reach past its rank (roughly
// more than 1% of the requests). Cancelled
// requests (cut by the drain rule or an interrupt, not served) are left
// out of every count, as they are from the summary's latencies.
// Percentiles use the summary's definition (stats.Quantile: gonum's
// stat.LinInterp, Hyndman–Fan type 4).
type SLO []Threshold

// String gives the SLO back in ParseSLO syntax.
func (s SLO) String() string {
	parts := make([]string, len(s))
	for i, t := range s {
		parts[i] = t.String()
	}
	return strings.Join(parts, ",")
}

// HasDistribution reports whether some threshold is a distribution form.
func (s SLO) HasDistribution() bool {
	return slices.ContainsFunc(s, Threshold.Distribution)
}

// ParseSLO reads comma-separated thresholds, such as
// "ttft_ms:p99<=500,tpot_ms:p99<=50,e2e_ms<=2000". A metric may carry
// several thresholds, but not the same statistic twice.
func ParseSLO(s string) (SLO, error) {
	var out SLO
	seen := map[string]bool{}
	for term := range strings.SplitSeq(s, ",") {
		t, err := ParseThreshold(term)
		if err != nil {
			return nil, err
		}
		k := t.Metric + ":" + t.Stat
		if seen[k] {
			return nil, fmt.Errorf("slo term %q: %s has two thresholds", strings.TrimSpace(term), k)
		}
		seen[k] = true
		out = append(out, t)
	}
	return out, nil
}

// ParseThreshold reads one term: METRIC OP LIMIT or METRIC:STAT OP LIMIT.
func ParseThreshold(term string) (Threshold, error) {
	s := strings.TrimSpace(term)
	bad := func(format string, a ...any) (Threshold, error) {
		return Threshold{}, fmt.Errorf("slo term %q: %s", s, fmt.Sprintf(format, a...))
	}
	if s == "" {
		return bad("empty term")
	}
	i := strings.IndexByte(s, '<')
	if i < 0 {
		return bad("want METRIC<=LIMIT or METRIC:STAT<=LIMIT (operators <= and <)")
	}
	var t Threshold
	lhs, rhs := strings.TrimSpace(s[:i]), s[i+1:]
	t.Op = "<"
	if strings.HasPrefix(rhs, "=") {
		t.Op, rhs = "<=", rhs[1:]
	}
	t.Metric, t.Stat, _ = strings.Cut(lhs, ":")
	t.Metric, t.Stat = strings.TrimSpace(t.Metric), strings.TrimSpace(t.Stat)
	if !slices.Contains(SLOMetrics, t.Metric) {
		return bad("unknown metric %q (want one of %s)", t.Metric, strings.Join(SLOMetrics, ", "))
	}
	if strings.Contains(lhs, ":") {
		p, err := parseStat(t.Stat)
		if err != nil {
			return bad("%v", err)
		}
		t.Percentile = p
	}
	lim, err := strconv.ParseFloat(strings.TrimSpace(rhs), 64)
	if err != nil || math.IsNaN(lim) || math.IsInf(lim, 0) || lim < 0 {
		return bad("limit %q is not a number >= 0", strings.TrimSpace(rhs))
	}
	t.LimitMs = lim
	return t, nil
}

// parseStat reads "mean" or "pNN" and returns NN (0 for the mean).
func parseStat(stat string) (float64, error) {
	if stat == "mean" {
		return 0, nil
	}
	num, ok := strings.CutPrefix(stat, "p")
	p, err := strconv.ParseFloat(num, 64)
	if !ok || err != nil || !(p > 0 && p < 100) {
		return 0, fmt.Errorf("unknown statistic %q (want mean or a percentile such as p50, p99, p99.9)", stat)
	}
	return p, nil
}

// ThresholdResult is a distribution threshold's outcome on one step.
type ThresholdResult struct {
	Threshold Threshold `json:"threshold"`
	// Value is the statistic in milliseconds; nil (null) when the sample
	// is empty or the statistic falls among the failed requests, which
	// count as +Inf (Samples and Failed tell the two apart).
	Value   *float64 `json:"value"`
	Samples int      `json:"samples"` // values in the sample, failed requests included
	Failed  int      `json:"failed"`  // failed requests among them
	Pass    bool     `json:"pass"`
	// ValueOK is the statistic of the successful requests alone, given
	// when failed requests entered the sample (and some succeeded): a
	// threshold that fails while ValueOK meets it was missed through its
	// failures alone.
	ValueOK *float64 `json:"value_ok_only,omitempty"`
}

// MissedByFailures reports whether the threshold failed only because
// failed requests count as misses: the successful ones met it.
func (tr ThresholdResult) MissedByFailures() bool {
	return !tr.Pass && tr.Failed > 0 && tr.ValueOK != nil && tr.Threshold.meets(*tr.ValueOK)
}

// SLOResult is an SLO evaluated on one step's requests. Its JSON names
// are meant to sit inline in a summary (embed a *SLOResult, nil when no
// SLO was given).
type SLOResult struct {
	SLO SLO `json:"slo"`
	// Requests counts the measured requests, ok or failed (cancelled ones
	// are left out); Met those that met every threshold taken per request.
	Requests int `json:"slo_requests"`
	Met      int `json:"slo_met"`
	// GoodputRPS is Met per second of the step's duration (0 when the
	// duration is not positive, or there were no requests).
	GoodputRPS float64 `json:"goodput_rps"`
	// Attainment is Met/Requests; nil (null) when there were no requests.
	Attainment *float64 `json:"slo_attainment"`
	// Thresholds holds the distribution forms, in SLO order.
	Thresholds []ThresholdResult `json:"slo_thresholds"`
	// Pass is true when every distribution threshold passed (and there
	// is at least one): the step meets the SLO.
	Pass bool `json:"slo_pass"`
}

// EvaluateSLO applies slo to one step's records; durationS is the step's
// measured duration in seconds (Summary.DurationS), the goodput's
// denominator.
func EvaluateSLO(recs []Record, durationS float64, slo SLO) SLOResult {
	res := SLOResult{SLO: slo, Thresholds: []ThresholdResult{}}
	for i := range recs {
		r := &recs[i]
		if r.ErrorClass == ClassCancelled && !r.OK {
			continue
		}
		res.Requests++
		if r.OK && meetsAll(r, slo) {
			res.Met++
		}
	}
	if res.Requests > 0 {
		att := float64(res.Met) / float64(res.Requests)
		res.Attainment = &att
	}
	if durationS > 0 {
		res.GoodputRPS = float64(res.Met) / durationS
	}
	res.Pass = slo.HasDistribution()
	for _, t := range slo {
		if !t.Distribution() {
			continue
		}
		tr := evalDistribution(recs, t)
		res.Pass = res.Pass && tr.Pass
		res.Thresholds = append(res.Thresholds, tr)
	}
	return res
}

// meetsAll reports whether an ok request meets every threshold taken per
// request.
func meetsAll(r *Record, slo SLO) bool {
	for _, t := range slo {
		if v, ok := requestValue(r, t.Metric); ok && !t.meets(v) {
			return false
		}
	}
	return true
}

// requestValue is an ok request's own value of metric, and whether the
// request defines it; for itl_ms it is the request's largest chunk gap.
func requestValue(r *Record, metric string) (float64, bool) {
	switch metric {
	case "ttft_ms":
		return r.TTFTMs, len(r.ChunkTimesMs) > 0
	case "tpot_ms":
		return tpotOf(r)
	case "itl_ms":
		gaps := gapsOf(r)
		if len(gaps) == 0 {
			return 0, false
		}
		return slices.Max(gaps), true
	default: // e2e_ms
		return r.E2EMs, true
	}
}

// tpotOf is the summary's per-request TPOT, defined with two or more
// output tokens and a content chunk.
func tpotOf(r *Record) (float64, bool) {
	n := r.CompletionTokens
	if n < 2 || len(r.ChunkTimesMs) == 0 {
		return 0, false
	}
	return (r.E2EMs - r.TTFTMs) / float64(n-1), true
}

// gapsOf lists the gaps between consecutive content chunks (the summary's
// itl_ms sample for one request).
func gapsOf(r *Record) []float64 {
	var g []float64
	for j := 1; j < len(r.ChunkTimesMs); j++ {
		g = append(g, r.ChunkTimesMs[j]-r.ChunkTimesMs[j-1])
	}
	return g
}

// sampleOf is the distribution a threshold on metric is held to: the
// summary's sample over ok requests, plus +Inf for each failed request.
func sampleOf(recs []Record, metric string) []float64 {
	var x []float64
	for i := range recs {
		r := &recs[i]
		switch {
		case r.OK && metric == "itl_ms":
			x = append(x, gapsOf(r)...)
		case r.OK:
			if v, ok := requestValue(r, metric); ok {
				x = append(x, v)
			}
		case r.ErrorClass != ClassCancelled:
			x = append(x, math.Inf(1))
		}
	}
	return x
}

// evalDistribution computes a distribution threshold's statistic, and,
// when failed requests entered it, the statistic of the successful ones
// alone (ValueOK), which says whether the failures decided the outcome.
func evalDistribution(recs []Record, t Threshold) ThresholdResult {
	x := sampleOf(recs, t.Metric)
	tr := ThresholdResult{Threshold: t, Samples: len(x)}
	if len(x) == 0 {
		return tr
	}
	slices.Sort(x)
	for _, xi := range slices.Backward(x) {
		if !math.IsInf(xi, 1) {
			break
		}
		tr.Failed++
	}
	v := statistic(x, t)
	tr.Pass = t.meets(v)
	if !math.IsInf(v, 1) {
		tr.Value = &v
	}
	if ok := x[:len(x)-tr.Failed]; tr.Failed > 0 && len(ok) > 0 {
		vo := statistic(ok, t)
		tr.ValueOK = &vo
	}
	return tr
}

// statistic is t's statistic (mean or percentile) of the sorted sample x.
func statistic(x []float64, t Threshold) float64 {
	if t.Stat == "mean" {
		var v float64
		for _, xi := range x {
			v += xi
		}
		return v / float64(len(x))
	}
	if v := stats.Quantile(x, t.Percentile/100); !math.IsNaN(v) {
		return v
	}
	return math.Inf(1) // Inf − Inf between two failed requests
}

// LoadStep is one step of a sweep as capacity sees it: its offered load
// (concurrency or requests/s), its throughputs and its SLO outcome.
type LoadStep struct {
	Load              float64
	RequestThroughput float64 // ok requests/s
	OutputThroughput  float64 // output tokens/s
	SLO               SLOResult
}

// Capacity statuses.
const (
	CapacityReached    = "reached"          // a step met the SLO and the next one did not
	CapacityNotReached = "not_reached"      // every step met it: capacity ≥ the last step
	CapacityBelowFirst = "below_first_step" // the first step already missed it
)

// CapacityResult answers "how much load meets the SLO". Load and the
// figures beside it are those of the last step that met the SLO (absent
// when the status is below_first_step). FailedAt is the load of the first
// step that missed it (absent when not_reached); RecoveredAbove is set when
// a later step met the SLO again, which the search ignores.
type CapacityResult struct {
	Status            string   `json:"status"`
	Load              *float64 `json:"load"`
	RequestThroughput *float64 `json:"request_throughput"`
	OutputThroughput  *float64 `json:"output_throughput"`
	GoodputRPS        *float64 `json:"goodput_rps"`
	FailedAt          *float64 `json:"failed_at"`
	RecoveredAbove    bool     `json:"recovered_above,omitempty"`
	// Missed are the thresholds the step at FailedAt missed, with their
	// values; FailedRequests counts that step's failed requests, which
	// count as misses (+Inf in every distribution). Absent when
	// not_reached.
	Missed         []ThresholdResult `json:"missed,omitempty"`
	FailedRequests int               `json:"failed_requests,omitempty"`
}

// Capacity finds the highest offered load whose step meets the SLO. Steps
// must be in strictly increasing load order, and the SLO must have a
// distribution threshold (a per-request threshold alone gives no pass or
// fail for a step). The search assumes latency grows with load: it walks
// up the steps and the first step that misses the SLO ends it, so capacity
// is the step before; a later step that meets the SLO again (noise, or a
// load the server sheds) does not count and sets RecoveredAbove.
func Capacity(steps []LoadStep) (CapacityResult, error) {
	if len(steps) == 0 {
		return CapacityResult{}, errors.New("capacity: no sweep steps")
	}
	for i, s := range steps {
		if !s.SLO.SLO.HasDistribution() {
			return CapacityResult{}, fmt.Errorf("capacity: the SLO %q has no distribution threshold (such as ttft_ms:p99<=500)", s.SLO.SLO)
		}
		if i > 0 && !(s.Load > steps[i-1].Load) {
			return CapacityResult{}, fmt.Errorf("capacity: step loads must increase (%g after %g)", s.Load, steps[i-1].Load)
		}
	}
	fail := slices.IndexFunc(steps, func(s LoadStep) bool { return !s.SLO.Pass })
	var c CapacityResult
	switch fail {
	case -1:
		c.Status = CapacityNotReached
		c.set(steps[len(steps)-1])
		return c, nil
	case 0:
		c.Status = CapacityBelowFirst
	default:
		c.Status = CapacityReached
		c.set(steps[fail-1])
	}
	failedAt := steps[fail].Load
	c.FailedAt = &failedAt
	for _, tr := range steps[fail].SLO.Thresholds {
		if tr.Threshold.Distribution() && !tr.Pass {
			c.Missed = append(c.Missed, tr)
			c.FailedRequests = max(c.FailedRequests, tr.Failed)
		}
	}
	c.RecoveredAbove = slices.ContainsFunc(steps[fail+1:], func(s LoadStep) bool { return s.SLO.Pass })
	return c, nil
}

// set copies step s's figures into c.
func (c *CapacityResult) set(s LoadStep) {
	load, rt, ot, g := s.Load, s.RequestThroughput, s.OutputThroughput, s.SLO.GoodputRPS
	c.Load, c.RequestThroughput, c.OutputThroughput, c.GoodputRPS = &load, &rt, &ot, &g
}

// RecordsByStep groups records by their Step field, keeping their order.
func RecordsByStep(recs []Record) map[int][]Record {
	out := map[int][]Record{}
	for _, r := range recs {
		out[r.Step] = append(out[r.Step], r)
	}
	return out
}

// stepSLO evaluates slo on one step's records; nil without an SLO.
func StepSLO(recs []Record, durationS float64, slo SLO) *SLOResult {
	if len(slo) == 0 {
		return nil
	}
	res := EvaluateSLO(recs, durationS, slo)
	return &res
}

// SweepCapacity is Capacity over the steps of a sweep whose summaries
// carry their SLO outcome (a sweep run with an SLO).
func SweepCapacity(sw *Sweep) (*CapacityResult, error) {
	steps := make([]LoadStep, len(sw.Steps))
	for i, st := range sw.Steps {
		s := st.Summary
		if s.SLOResult == nil {
			return nil, fmt.Errorf("capacity: sweep step %g carries no SLO outcome (run the sweep with --slo)", st.Value)
		}
		steps[i] = LoadStep{Load: st.Value, RequestThroughput: s.RequestThroughput, OutputThroughput: s.OutputThroughput, SLO: *s.SLOResult}
	}
	c, err := Capacity(steps)
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// ApplySLO holds a result to slo afresh from its records (matched to the
// steps by their Step field): every step's summary gets the SLO's outcome
// (none when slo is empty), the result's summary the last step's, and a
// sweep its capacity (none when the SLO has no distribution threshold).
// It lets one measurement be judged against a changed SLO without being
// measured again.
func ApplySLO(res *Result, recs []Record, slo SLO) {
	by := RecordsByStep(recs)
	if res.Sweep == nil || len(res.Sweep.Steps) == 0 {
		res.Summary.SLOResult = StepSLO(by[0], res.Summary.DurationS, slo)
		return
	}
	sw := res.Sweep
	for i := range sw.Steps {
		st := &sw.Steps[i]
		st.Summary.SLOResult = StepSLO(by[i], st.Summary.DurationS, slo)
	}
	res.Summary.SLOResult = sw.Steps[len(sw.Steps)-1].Summary.SLOResult
	sw.Capacity = nil
	if slo.HasDistribution() {
		sw.Capacity, _ = SweepCapacity(sw) // steps always carry the outcome here
	}
}
