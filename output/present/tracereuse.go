package present

import (
	"fmt"
	"io"

	"github.com/servecmp/servecmp/benchmark/result"
)

// writePrefixReuse writes, for a trace replay, the share of prompt tokens
// the trace's shared prefixes allow beside the share the engine served
// from its prefix cache (tab-separated, for the caller's tabwriter).
func writePrefixReuse(w io.Writer, r *result.Result) {
	s := &r.Summary
	if s.ImpliedReuseShare == nil {
		return
	}
	served := "the engine reported neither cached_tokens nor prefix-cache metrics"
	switch {
	case s.CachedShare != nil:
		served = fmt.Sprintf("the engine served %.1f%% (usage cached_tokens)", 100**s.CachedShare)
	case r.ServerMetrics != nil && r.ServerMetrics.PrefixCacheHitRate != nil:
		served = fmt.Sprintf("the engine served %.1f%% (server metrics)", 100**r.ServerMetrics.PrefixCacheHitRate)
	}
	fmt.Fprintf(w, "prefix reuse\tthe trace implies %.1f%% of prompt tokens; %s\n", 100**s.ImpliedReuseShare, served)
}
