package experiment

import (
	"slices"
	"strings"
	"testing"
)

// TestGPUKeys: gpu_metrics_url takes one URL, a list (one per node) or
// none; gpus a comma list or a YAML list of indices and UUIDs; both reach
// the benchmark configuration; a selection without a URL, "none" beside a
// URL and a bad value are errors naming the file and line.
func TestGPUKeys(t *testing.T) {
	eng := func(a string) string { return strings.Replace(base, "model: m}", "model: m, "+a+"}", 1) }
	for _, tc := range []struct {
		name, src string
		urls      []string
		gpus      string
	}{
		{"one", eng(`gpu_metrics_url: "http://h:9400/metrics"`), []string{"http://h:9400/metrics"}, ""},
		{"list and selection", eng(`gpu_metrics_url: ["http://h1:9400/metrics", "http://h2:9400/metrics"], gpus: "0,1"`),
			[]string{"http://h1:9400/metrics", "http://h2:9400/metrics"}, "0,1"},
		{"yaml list of GPUs", eng(`gpu_metrics_url: "http://h:9400/metrics", gpus: [0, GPU-0a1b2c]`), []string{"http://h:9400/metrics"}, "0,GPU-0a1b2c"},
		{"none", eng(`gpu_metrics_url: none`), nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := Parse("x.yaml", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(e.A.GPUMetricsURLs, tc.urls) || e.A.GPUs != tc.gpus || e.B.GPUMetricsURLs != nil {
				t.Fatalf("a %q %q, b %q", e.A.GPUMetricsURLs, e.A.GPUs, e.B.GPUMetricsURLs)
			}
			r := &runner{e: e}
			cfg, err := r.benchConfig(Step{Side: "a", Kind: KindRun})
			if err != nil || len(cfg.GPU.Endpoints) != len(tc.urls) {
				t.Fatalf("benchmark GPU config %+v, %v", cfg.GPU, err)
			}
			if len(tc.urls) > 0 && strings.Join(cfg.GPU.Endpoints[0].GPUs, ",") != tc.gpus {
				t.Errorf("selection %q, want %q", cfg.GPU.Endpoints[0].GPUs, tc.gpus)
			}
		})
	}
	for _, tc := range []struct{ name, src, want string }{
		{"selection without url", eng(`gpus: "0"`), `x.yaml:1: a.gpu_metrics_url: a GPU selection (0) needs a GPU exporter URL`},
		{"none beside a url", eng(`gpu_metrics_url: [none, "http://h/metrics"]`), `x.yaml:1: a.gpu_metrics_url: "none" switches GPU telemetry off`},
		{"bad url", eng(`gpu_metrics_url: "h:9400"`), `x.yaml:1: a.gpu_metrics_url: GPU telemetry: "h:9400" is not an http(s) URL`},
		{"bad selection", eng(`gpu_metrics_url: "http://h/metrics", gpus: "0,first"`), `x.yaml:1: a.gpus: GPU selection: "first" is neither`},
		{"empty url", eng(`gpu_metrics_url: ""`), `x.yaml:1: a.gpu_metrics_url[0]: must not be empty`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("x.yaml", []byte(tc.src))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}
