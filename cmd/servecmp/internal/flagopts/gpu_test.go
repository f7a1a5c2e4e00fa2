package flagopts

import (
	"errors"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/cmd/servecmp/internal/cli"
)

// TestGPUFlags: --gpu-metrics-url (repeatable, "none" alone) and --gpus
// reach the configuration; a mistake is a usage error naming its flag.
func TestGPUFlags(t *testing.T) {
	wl := optionsWorkload(t, 3, false)
	mk := func(urls []string, gpus string) Bench {
		return Bench{URL: "http://h:1/", Workload: wl, Engine: "auto", Concurrency: 2, GPUMetricsURL: urls, GPUs: gpus,
			Changed: func(n string) bool { return n == "concurrency" }}
	}
	b := mk([]string{"http://n1:9400/metrics", "http://n2:9400/metrics"}, "0,1")
	cfg, err := b.Config()
	if err != nil || len(cfg.GPU.Endpoints) != 2 || strings.Join(cfg.GPU.Endpoints[1].GPUs, ",") != "0,1" {
		t.Fatalf("%+v, %v", cfg.GPU, err)
	}
	for _, urls := range [][]string{nil, {"none"}} {
		b := mk(urls, "")
		if cfg, err := b.Config(); err != nil || cfg.GPU.Endpoints != nil {
			t.Errorf("%q: %+v, %v", urls, cfg.GPU, err)
		}
	}
	for _, tc := range []struct {
		urls       []string
		gpus, flag string
	}{
		{nil, "0", "gpu-metrics-url"},
		{[]string{"none", "http://n1/metrics"}, "", "gpu-metrics-url"},
		{[]string{"n1:9400"}, "", "gpu-metrics-url"},
		{[]string{"http://n1/metrics"}, "GPU-xyz", "gpus"},
	} {
		b := mk(tc.urls, tc.gpus)
		_, err := b.Config()
		var ue *cli.UsageError
		if !errors.As(err, &ue) || !strings.HasPrefix(err.Error(), "--"+tc.flag+": ") {
			t.Errorf("%q %q: %v, want a usage error naming --%s", tc.urls, tc.gpus, err, tc.flag)
		}
	}
}
