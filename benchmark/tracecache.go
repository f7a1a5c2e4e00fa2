package benchmark

import (
	"fmt"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/benchmark/workload"
)

// Trace replays (workload trace): the workload's header carries the share
// of prompt tokens the trace's shared prefixes let an unbounded prefix
// cache reuse, starting empty. A run reports it beside the share the
// engine served from its cache (Summary.ImpliedReuseShare beside
// CachedShare, or the server metrics' prefix-cache hit rate when no
// request reports cached_tokens) and warns when the two are far apart.
const (
	// ReuseLowRatio: an engine that served less than this fraction of the
	// implied share is warned about (cache off, undersized or evicting).
	ReuseLowRatio = 0.5
	// ReuseHighSlack: an engine that served more than the implied share
	// plus this is warned about (a cache warm from earlier runs).
	ReuseHighSlack = 0.05
	// reuseLowFloor: below this implied share there is too little to lose
	// for the low warning to mean anything.
	reuseLowFloor = 0.02
)

// impliedReuse is the workload's implied prefix reuse share, nil when it
// is not a trace replay.
func impliedReuse(w *workload.Workload) *float64 {
	if w == nil || w.Header == nil || w.Header.Trace == nil {
		return nil
	}
	v := w.Header.Trace.ImpliedPrefixReuseShare
	return &v
}

// setImpliedReuse puts the implied share in a step's summary when the
// step sent every request (else the share of the whole trace does not
// describe what was sent) and says so otherwise.
func (r *runner) setImpliedReuse(w *warnings, sum *result.Summary, out *stepOut) {
	imp := impliedReuse(r.cfg.Workload)
	if imp == nil {
		return
	}
	if out.notSent > 0 || out.interrupted {
		w.add(fmt.Sprintf("the trace implies %.1f%% prefix reuse over the whole workload, but %d requests were not sent: the engine's cached share is not compared with it", 100**imp, out.notSent))
		return
	}
	sum.ImpliedReuseShare = imp
}

// reuseWarning compares the share the engine served from its prefix
// cache (from what: source) with the implied share; "" when they agree.
func reuseWarning(served, implied float64, source string) string {
	switch {
	case implied >= reuseLowFloor && served < ReuseLowRatio*implied:
		return fmt.Sprintf("the engine served %.1f%% of the prompt tokens from its prefix cache (%s), far less than the %.1f%% the trace's shared prefixes allow: its prefix cache is off, too small for this trace or evicting, and the run measures that", 100*served, source, 100*implied)
	case served > implied+ReuseHighSlack:
		return fmt.Sprintf("the engine served %.1f%% of the prompt tokens from its prefix cache (%s), more than the %.1f%% the trace's shared prefixes allow from an empty cache: it was warm from earlier runs (--reset-prefix-cache), or the prompts share more than the trace says", 100*served, source, 100*implied)
	}
	return ""
}

// cachedReuseWarning is the step's check on the requests' cached_tokens.
func cachedReuseWarning(w *warnings, sum *result.Summary) {
	if sum.ImpliedReuseShare == nil || sum.CachedShare == nil {
		return
	}
	if s := reuseWarning(*sum.CachedShare, *sum.ImpliedReuseShare, "usage cached_tokens"); s != "" {
		w.add(s)
	}
}

// metricsReuseWarning is the run's check on the server metrics, when no
// request reported cached_tokens.
func metricsReuseWarning(res *result.Result) (string, bool) {
	imp, hr := res.Summary.ImpliedReuseShare, (*float64)(nil)
	if res.ServerMetrics != nil {
		hr = res.ServerMetrics.PrefixCacheHitRate
	}
	if imp == nil || res.Summary.CachedShare != nil || hr == nil {
		return "", imp != nil
	}
	return reuseWarning(*hr, *imp, "server metrics, prefix-cache hit rate"), true
}
