package flagopts

import "github.com/spf13/pflag"

// RegisterGPU adds the GPU telemetry flags (--gpu-metrics-url, --gpus) of
// benchmark and profile to fs; Config turns them into the run's
// exporters.
func (b *Bench) RegisterGPU(fs *pflag.FlagSet) {
	fs.StringArrayVar(&b.GPUMetricsURL, "gpu-metrics-url", nil, `GPU exporter (dcgm-exporter /metrics), one per node (repeatable; "none" for none): energy and GPU telemetry`)
	fs.StringVar(&b.GPUs, "gpus", "", "the engine's GPUs on the exporters: indices or UUIDs, e.g. 0,1 (default: all they report)")
}
