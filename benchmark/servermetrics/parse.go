// Package servermetrics samples a serving engine's Prometheus /metrics
// endpoint during a benchmark run and summarises the samples over the
// measurement window.
//
// It knows the names vLLM (vllm:*, both kv_cache_usage_perc and the older
// gpu_cache_usage_perc), SGLang (sglang:*), TGI (tgi_*), TensorRT-LLM
// (trtllm*) and dcgm-exporter (DCGM_FI_DEV_FB_USED) use for a small set of
// canonical metrics: KV-cache usage, running and waiting requests,
// preemptions, prefix-cache hits and queries, prompt and generation token
// counters and GPU memory. See specs in names.go for the full mapping.
//
// Units and invariants:
//   - Times are seconds from the run start the caller gives (SetStart);
//     a sample's time is the midpoint of its HTTP request.
//   - Values are in the canonical unit of the metric: fractions in [0, 1]
//     for usage and hit rates, bytes for memory, tokens or requests for
//     counts. DCGM reports MiB and is converted to bytes.
//   - A metric exposed with several label sets (ranks, models) is summed,
//     except fractions, which take the largest label set: the fullest
//     rank is the one that runs out of KV cache first.
//   - Histograms and summaries (TGI's token-length histograms) contribute
//     their sample sum, which is a counter.
//   - NaN and infinite values are dropped, so every number is valid JSON.
//
// A missing endpoint or a failed scrape is a warning in the result, never
// an error: server metrics are context, not the measurement.
package servermetrics

import (
	"fmt"
	"io"
	"math"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/servecmp/servecmp/benchmark/result"
)

// Reading is one canonical metric's value in one scrape.
type Reading struct {
	Name         string            `json:"name"`          // canonical name, e.g. "kv_cache_usage"
	EngineMetric string            `json:"engine_metric"` // family it came from, e.g. "vllm:kv_cache_usage_perc"
	Kind         result.MetricKind `json:"kind"`
	Unit         string            `json:"unit"`
	Value        float64           `json:"value"`
}

// Snapshot is the result of parsing one /metrics page.
type Snapshot struct {
	// Readings holds the canonical metrics found, in the fixed order of
	// the package's metric table.
	Readings []Reading `json:"readings"`
	// Families is the number of metric families on the page, known or not.
	Families int `json:"families"`
}

// Parse reads one page in the Prometheus text exposition format and
// extracts the canonical metrics. It returns an error for a page the
// parser rejects; it never panics.
func Parse(r io.Reader) (Snapshot, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		return Snapshot{}, fmt.Errorf("parsing metrics: %w", err)
	}
	snap := Snapshot{Families: len(fams)}
	for i := range specs {
		sp := &specs[i]
		if rd, ok := lookup(sp, fams); ok {
			snap.Readings = append(snap.Readings, rd)
		}
	}
	return snap, nil
}

// lookup finds the first source of sp present in fams with at least one
// finite value, trying each name with and without a "_total" suffix.
func lookup(sp *spec, fams map[string]*dto.MetricFamily) (Reading, bool) {
	for _, src := range sp.sources {
		names := []string{src.name}
		if base, ok := strings.CutSuffix(src.name, "_total"); ok {
			names = append(names, base)
		} else if sp.Kind == result.Counter {
			names = append(names, src.name+"_total")
		}
		for _, n := range names {
			mf, ok := fams[n]
			if !ok {
				continue
			}
			v, ok := combineFamily(mf, sp.combine)
			if !ok {
				continue
			}
			if src.scale != 0 {
				v *= src.scale
			}
			return Reading{Name: sp.Name, EngineMetric: n, Kind: sp.Kind, Unit: sp.Unit, Value: v}, true
		}
	}
	return Reading{}, false
}

// combineFamily folds a family's label sets into one value.
func combineFamily(mf *dto.MetricFamily, how combine) (float64, bool) {
	var acc float64
	found := false
	for _, m := range mf.GetMetric() {
		v, ok := metricValue(mf.GetType(), m)
		if !ok {
			continue
		}
		switch {
		case !found:
			acc = v
		case how == maxLabels:
			acc = math.Max(acc, v)
		default:
			acc += v
		}
		found = true
	}
	if !found || math.IsNaN(acc) || math.IsInf(acc, 0) {
		return 0, false
	}
	return acc, true
}

func metricValue(t dto.MetricType, m *dto.Metric) (float64, bool) {
	var v float64
	switch t {
	case dto.MetricType_GAUGE:
		if m.Gauge == nil {
			return 0, false
		}
		v = m.Gauge.GetValue()
	case dto.MetricType_COUNTER:
		if m.Counter == nil {
			return 0, false
		}
		v = m.Counter.GetValue()
	case dto.MetricType_HISTOGRAM, dto.MetricType_GAUGE_HISTOGRAM:
		if m.Histogram == nil {
			return 0, false
		}
		v = m.Histogram.GetSampleSum()
	case dto.MetricType_SUMMARY:
		if m.Summary == nil {
			return 0, false
		}
		v = m.Summary.GetSampleSum()
	default:
		if m.Untyped == nil {
			return 0, false
		}
		v = m.Untyped.GetValue()
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}
