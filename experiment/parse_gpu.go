package experiment

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/servecmp/servecmp/benchmark/gputelemetry"
)

// gpuURLs reads an engine's gpu_metrics_url: one URL, a list of them (one
// per node), or none.
func (p *parser) gpuURLs(n *yaml.Node, where string) []string {
	var out []string
	p.list(n, where, func(i int, v *yaml.Node) {
		out = append(out, strings.TrimSpace(p.nonEmpty(v, fmt.Sprintf("%s[%d]", where, i))))
	})
	return out
}

// gpuSelection reads an engine's gpus: "0,1", a list of indices and
// UUIDs, or "all".
func (p *parser) gpuSelection(n *yaml.Node, where string) string {
	var out []string
	p.list(n, where, func(i int, v *yaml.Node) { out = append(out, p.str(v, fmt.Sprintf("%s[%d]", where, i))) })
	s := strings.Join(out, ",")
	if _, err := gputelemetry.ParseGPUs(s); err != nil {
		p.errorf(n, "%s: %v", where, err)
	}
	return s
}

// checkGPU checks an engine's GPU telemetry settings as a whole (benchmark
// --gpu-metrics-url and --gpus): URLs, "none" alone, a selection only with
// a URL.
func (p *parser) checkGPU(n *yaml.Node, side string, e *Engine) {
	eps, err := gputelemetry.Endpoints(e.GPUMetricsURLs, e.GPUs)
	if err != nil {
		p.errorf(n, "%s.gpu_metrics_url: %v", side, err)
		return
	}
	if len(eps) == 0 {
		e.GPUMetricsURLs = nil // "none"
	}
}
