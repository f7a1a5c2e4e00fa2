package experiment

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/servecmp/servecmp/benchmark/result"
)

// Bounds of an experiment file's counts, beyond those of a benchmark's
// load (result's MaxConcurrencyLimit, MinRate, MaxRate): each is checked
// when the file is read, before anything runs.
const (
	// MaxRunCount bounds runs.count: a plan holds two steps per run.
	MaxRunCount = 1000
	// MaxSweepValues bounds the values of a sweep.
	MaxSweepValues = 100
	// MaxCheckRequests bounds check.requests.
	MaxCheckRequests = 100_000
	// MaxProfileSteps bounds profile.steps.
	MaxProfileSteps = 1_000_000
	// MaxWarmup bounds a warmup.
	MaxWarmup = 1_000_000
)

// loadValue checks one offered load: concurrency is a whole number from
// 1 to result.MaxConcurrencyLimit, rate a number from result.MinRate to
// result.MaxRate.
func (p *parser) loadValue(n *yaml.Node, where, kind string) float64 {
	if kind == LoadConcurrency {
		return float64(p.bounded(n, where, 1, result.MaxConcurrencyLimit))
	}
	v := p.number(n, where, true)
	if v > 0 && (v < result.MinRate || v > result.MaxRate) {
		p.errorf(n, "%s: %s requests/s is outside [%.3g, %g] (at least one request a week)", where, n.Value, result.MinRate, result.MaxRate)
	}
	return v
}

// sweep reads the sweep: concurrency or rate values, strictly increasing.
func (p *parser) sweep(n *yaml.Node) *Sweep {
	s := &Sweep{}
	values := func(kind string) func(*yaml.Node) {
		return func(v *yaml.Node) {
			s.Kind = kind
			where := "sweep." + kind
			if len(v.Content) > MaxSweepValues {
				p.errorf(v, "%s: %d values, more than %d", where, len(v.Content), MaxSweepValues)
				return
			}
			p.list(v, where, func(i int, x *yaml.Node) {
				val := p.loadValue(x, fmt.Sprintf("%s[%d]", where, i), kind)
				if i > 0 && val <= s.Values[i-1] && val > 0 {
					p.errorf(x, "%s: values must increase (%s after %g)", where, x.Value, s.Values[i-1])
				}
				s.Values = append(s.Values, val)
			})
		}
	}
	seen := p.fields(n, "sweep", map[string]func(*yaml.Node){
		LoadConcurrency:      values(LoadConcurrency),
		LoadRate:             values(LoadRate),
		"warmup":             func(v *yaml.Node) { s.Warmup = p.bounded(v, "sweep.warmup", 0, MaxWarmup) },
		"reset_prefix_cache": func(v *yaml.Node) { s.ResetPrefixCache = p.boolean(v, "sweep.reset_prefix_cache") },
	})
	if deref(n).Kind == yaml.MappingNode {
		s.Kind = p.oneOf(n, "sweep", seen, LoadConcurrency, LoadRate)
	}
	return s
}

// runs reads the repeated runs.
func (p *parser) runs(n *yaml.Node) Runs {
	r := Runs{Count: DefaultRunCount, Order: OrderInterleaved}
	load := func(kind string) func(*yaml.Node) {
		return func(v *yaml.Node) { r.Value = p.loadValue(v, "runs."+kind, kind) }
	}
	seen := p.fields(n, "runs", map[string]func(*yaml.Node){
		"count":              func(v *yaml.Node) { r.Count = p.bounded(v, "runs.count", 1, MaxRunCount) },
		LoadConcurrency:      load(LoadConcurrency),
		LoadRate:             load(LoadRate),
		"order":              func(v *yaml.Node) { r.Order = p.choice(v, "runs.order", OrderInterleaved, OrderBlocked) },
		"warmup":             func(v *yaml.Node) { r.Warmup = p.bounded(v, "runs.warmup", 0, MaxWarmup) },
		"reset_prefix_cache": func(v *yaml.Node) { r.ResetPrefixCache = p.boolean(v, "runs.reset_prefix_cache") },
		"shards":             func(v *yaml.Node) { r.Shards = p.integer(v, "runs.shards", 1) },
	})
	if deref(n).Kind == yaml.MappingNode {
		if seen[LoadConcurrency] == nil && seen[LoadRate] == nil {
			p.noLoad = n // a trace workload's own schedule, or an error (traceRuns)
		} else {
			r.Kind = p.oneOf(n, "runs", seen, LoadConcurrency, LoadRate)
		}
	}
	if r.Shards == 1 {
		r.Shards = 0 // one process, as without the key
	}
	if v := seen["shards"]; v != nil && r.Shards > 1 {
		p.shardLoad(v, &r)
	}
	return r
}

// shardLoad checks that the runs' total load divides among their shards:
// a concurrency must be a multiple of the shard count.
func (p *parser) shardLoad(n *yaml.Node, r *Runs) {
	switch {
	case r.Shards > MaxRunShards:
		p.errorf(n, "runs.shards: at most %d local processes", MaxRunShards)
	case r.Kind == LoadConcurrency && int(r.Value)%r.Shards != 0:
		p.errorf(n, "runs.shards: concurrency %g is not a multiple of %d shards (each shard keeps concurrency/shards in flight)", r.Value, r.Shards)
	}
}

// MaxRunShards bounds runs.shards: local processes on one host.
const MaxRunShards = 256

// profile reads the profile request: after, then for or steps, and the
// activities.
func (p *parser) profile(n *yaml.Node) *Profile {
	pr := &Profile{}
	seen := p.fields(n, "profile", map[string]func(*yaml.Node){
		"after": func(v *yaml.Node) { pr.After = p.duration(v, "profile.after") },
		"for": func(v *yaml.Node) {
			if pr.For = p.duration(v, "profile.for"); pr.For == 0 {
				p.errorf(v, "profile.for: must be > 0")
			}
		},
		"steps": func(v *yaml.Node) { pr.Steps = p.bounded(v, "profile.steps", 1, MaxProfileSteps) },
		"activities": func(v *yaml.Node) {
			p.list(v, "profile.activities", func(_ int, x *yaml.Node) {
				if a := p.nonEmpty(x, "profile.activities"); a != "" {
					pr.Activities = append(pr.Activities, a)
				}
			})
		},
	})
	if deref(n).Kind == yaml.MappingNode {
		p.oneOf(n, "profile", seen, "for", "steps")
	}
	return pr
}

// slo reads metric → threshold(s): "p99<=500" (a distribution form) or
// "<=500" (per request), or a list of them.
func (p *parser) slo(n *yaml.Node) result.SLO {
	var out result.SLO
	if n.Kind != yaml.MappingNode {
		p.errorf(n, "slo: want a mapping (metric: threshold), got %s", describe(n))
		return nil
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], deref(n.Content[i+1])
		metric := k.Value
		p.list(v, "slo."+metric, func(_ int, x *yaml.Node) {
			spec := strings.TrimSpace(p.str(x, "slo."+metric))
			if spec == "" {
				return
			}
			term := metric + ":" + spec
			if strings.HasPrefix(spec, "<") {
				term = metric + spec
			}
			t, err := result.ParseThreshold(term)
			if err != nil {
				p.errorf(x, "slo.%s: %v", metric, err)
				return
			}
			id := t.Metric + ":" + t.Stat
			if line, dup := seen[id]; dup {
				p.errorf(x, "slo.%s: a second %s threshold (first on line %d)", metric, id, line)
				return
			}
			seen[id] = x.Line
			out = append(out, t)
		})
	}
	return out
}
