package experiment

import (
	"os"
	"path/filepath"

	"gopkg.in/yaml.v3"

	"github.com/servecmp/servecmp/benchmark/workload"
)

// trace reads workload.trace: the trace file (resolved against dir, and
// which must exist) and the reader's settings, checked as the workload
// trace command checks its flags.
func (p *parser) trace(n *yaml.Node, dir string) *Trace {
	t := &Trace{BlockSize: workload.DefaultTraceBlockSize, TimeScale: 1, Vocab: workload.DefaultVocab, FixedLength: true}
	const w = "workload.trace"
	file := func(v *yaml.Node, key string) string {
		f := p.nonEmpty(v, w+"."+key)
		if f == "" {
			return ""
		}
		if !filepath.IsAbs(f) {
			f = filepath.Join(dir, f)
		}
		if st, err := os.Stat(f); err != nil || !st.Mode().IsRegular() {
			p.errorf(v, "%s.%s: %s is not a readable file", w, key, f)
		}
		return f
	}
	seen := p.fields(n, w, map[string]func(*yaml.Node){
		"file":         func(v *yaml.Node) { t.File = file(v, "file") },
		"format":       func(v *yaml.Node) { t.Format = p.choice(v, w+".format", workload.TraceMooncake, workload.TraceAzure) },
		"block_size":   func(v *yaml.Node) { t.BlockSize = p.integer(v, w+".block_size", 1) },
		"time_scale":   func(v *yaml.Node) { t.TimeScale = p.number(v, w+".time_scale", true) },
		"start":        func(v *yaml.Node) { t.StartS = p.duration(v, w+".start").Seconds() },
		"limit":        func(v *yaml.Node) { t.Limit = p.integer(v, w+".limit", 0) },
		"seed":         func(v *yaml.Node) { t.Seed = uint64(p.integer(v, w+".seed", 0)) },
		"vocab":        func(v *yaml.Node) { t.Vocab = p.integer(v, w+".vocab", 4) },
		"tokenizer":    func(v *yaml.Node) { t.Tokenizer = file(v, "tokenizer") },
		"fixed_length": func(v *yaml.Node) { t.FixedLength = p.boolean(v, w+".fixed_length") },
		"temperature":  func(v *yaml.Node) { t.Temperature = p.number(v, w+".temperature", false) },
	})
	if deref(n).Kind != yaml.MappingNode {
		return t
	}
	p.require(n, w, seen, "file", "format")
	if t.Format == workload.TraceMooncake || t.Format == workload.TraceAzure { // else reported above
		if err := t.Spec().Validate(); err != nil {
			p.errorf(n, "%s: %v", w, err)
		}
	}
	return t
}

// traceRuns settles runs without concurrency or rate: a trace workload
// replays on its own schedule (LoadTrace); any other workload needs one.
// A trace workload takes no rate: its requests carry their own offsets.
func (p *parser) traceRuns(e *Experiment, runs *yaml.Node) {
	if runs != nil && e.Workload.Trace != nil && (e.Runs.Kind == LoadRate || (e.Sweep != nil && e.Sweep.Kind == LoadRate)) {
		p.errorf(runs, "runs, sweep: a trace workload sends every request at its own arrival time: give concurrency (closed loop) or no load (the trace's schedule), not rate")
	}
	switch {
	case p.noLoad == nil:
	case e.Workload.Trace != nil:
		e.Runs.Kind = LoadTrace
	default:
		p.errorf(p.noLoad, "runs: want one of %s, %s (only a trace workload may give neither)", LoadConcurrency, LoadRate)
	}
}
