package result

// This file is the model of GPU telemetry (benchmark/gputelemetry fills
// it from dcgm-exporter endpoints) and of the energy a run's summary
// carries.
//
// Units: power W; energy J; utilisation percent 0..100; SM active a ratio
// 0..1; frame-buffer memory MiB; clocks MHz; temperature °C; times
// seconds from the run start. A nil figure was not reported.

// Energy sources, per GPU and for the engine.
const (
	EnergyFromCounter = "counter"        // the energy counter's increase
	EnergyFromPower   = "power_integral" // the power gauge integrated over time
	EnergyFromMixed   = "mixed"          // counter, with reset intervals from power (or GPUs disagree)
)

// MaxPowerPoints bounds GPUTelemetry.Power.
const MaxPowerPoints = 512

// PowerSample is one point of a power series: [seconds from the run
// start, W]. It encodes as a two-element JSON array.
type PowerSample [2]float64

// GPUTelemetry is what the GPU telemetry scraper recorded over a run,
// summarised over one window (the measured window: first measured step's
// start to the last one's drain end).
type GPUTelemetry struct {
	Exporters    []GPUExporter `json:"exporters"`
	IntervalS    float64       `json:"interval_s"`
	WindowStartS float64       `json:"window_start_s"`
	WindowEndS   float64       `json:"window_end_s"`
	// Contract is what the exporters' labels say about the hardware.
	Contract GPUContract `json:"contract"`
	// GPUs are the engine's GPUs, node by node, by index.
	GPUs []GPUStats `json:"gpus"`
	// Power is the GPUs' total power (W) over the whole recording, warmup
	// and drain included, resampled to at most MaxPowerPoints points. A
	// GPU counts only between its first and last sample.
	Power []PowerSample `json:"power"`
	// Throttled is true when any GPU reported a clock-limiting event
	// (power cap, thermal or hardware slowdown, power brake) in or at the
	// edges of the window; ThrottleReasons names those events.
	Throttled       bool     `json:"throttled"`
	ThrottleReasons []string `json:"throttle_reasons,omitempty"`
	// Complete is true when every exporter answered, every selected GPU
	// was found, and every GPU's energy covers the window (no lower bound,
	// at most 1% of it extrapolated).
	Complete bool     `json:"complete"`
	Warnings []string `json:"warnings,omitempty"`
}

// GPUExporter is one node's exporter and how its scrapes went.
type GPUExporter struct {
	URL          string `json:"url"`            // credentials redacted
	Node         string `json:"node,omitempty"` // its Hostname label
	Scrapes      int    `json:"scrapes"`        // successful
	ScrapeErrors int    `json:"scrape_errors"`
	GPUs         int    `json:"gpus"` // the engine's GPUs found on it
}

// GPUContract is the resource contract as the exporters report it.
// Several models or drivers are joined with " + ".
type GPUContract struct {
	GPUType       string `json:"gpu_type,omitempty"`
	GPUCount      int    `json:"gpu_count"`
	DriverVersion string `json:"driver_version,omitempty"`
	Nodes         int    `json:"nodes"`
	// Partial is set when an exporter never answered or a selected GPU
	// was not found: GPUCount then undercounts the engine's GPUs.
	Partial bool `json:"partial,omitempty"`
}

// GPUID is what an exporter's labels say about one GPU.
type GPUID struct {
	Index    string `json:"index,omitempty"` // the exporter's "gpu" label
	UUID     string `json:"uuid,omitempty"`
	PCIBusID string `json:"pci_bus_id,omitempty"`
	Device   string `json:"device,omitempty"`
	Model    string `json:"model,omitempty"`
	Host     string `json:"hostname,omitempty"`
	Driver   string `json:"driver_version,omitempty"`
}

// GPUStats is one GPU's telemetry over the window. Means are time-weighted
// (trapezoids, interpolated to the window's edges); peaks are the largest
// sample inside the window.
type GPUStats struct {
	GPUID
	Node          string `json:"node"` // Hostname label, else the exporter URL
	WindowSamples int    `json:"window_samples"`

	EnergyJ *float64 `json:"energy_j"`
	Source  string   `json:"source,omitempty"` // EnergyFromCounter, EnergyFromPower or EnergyFromMixed
	// CounterJ and PowerIntegralJ are the two estimates, when available.
	CounterJ       *float64 `json:"counter_j,omitempty"`
	PowerIntegralJ *float64 `json:"power_integral_j,omitempty"`
	// UncertaintyJ bounds the error from the window's edges falling
	// between samples, from extrapolation and from the readings' age (a
	// reading may be as old as the gap since the sample before it), if the
	// power stayed within [0, the highest power seen]. For the power
	// integral it leaves out the sampling error inside the window.
	UncertaintyJ float64 `json:"uncertainty_j"`
	// UncoveredS is how much of the window lies outside the samples the
	// energy came from (extrapolated).
	UncoveredS float64 `json:"uncovered_s"`
	// RefreshS is the median time between changes of the reading the
	// energy came from: the exporter's effective refresh period.
	RefreshS      *float64 `json:"refresh_s,omitempty"`
	CounterResets int      `json:"counter_resets"`
	// LowerBound is set when a counter reset had no power to bridge it.
	LowerBound bool `json:"lower_bound,omitempty"`

	MeanPowerW      *float64 `json:"mean_power_w"`
	PeakPowerW      *float64 `json:"peak_power_w"`
	MeanUtilPct     *float64 `json:"mean_util_pct"`
	MeanSMActive    *float64 `json:"mean_sm_active"`
	MeanFBUsedMiB   *float64 `json:"mean_fb_used_mib"`
	PeakFBUsedMiB   *float64 `json:"peak_fb_used_mib"`
	FBTotalMiB      *float64 `json:"fb_total_mib"` // used + free, last sample
	MeanSMClockMHz  *float64 `json:"mean_sm_clock_mhz"`
	MeanMemClockMHz *float64 `json:"mean_mem_clock_mhz"`
	MeanTempC       *float64 `json:"mean_temp_c"`
	PeakTempC       *float64 `json:"peak_temp_c"`

	// ClockEventMask ORs the clock event reasons of the samples in the
	// window and the two that bracket it; ClockEvents names its bits.
	ClockEventMask uint64   `json:"clock_event_mask"`
	ClockEvents    []string `json:"clock_events,omitempty"`
	// ThrottledFrac is the share of those samples with a clock-limiting
	// bit.
	ThrottledFrac *float64 `json:"throttled_frac,omitempty"`
}

// Energy is the engine's energy over a measured step's window (t=0 to
// the end of its last request, Summary.DurationS), as the summary carries
// it.
type Energy struct {
	Joules float64 `json:"joules"`
	// PerOutputTokenJ divides Joules by the summary's output tokens (nil
	// without any); PerRequestJ by its successful requests (nil without
	// any).
	PerOutputTokenJ *float64 `json:"per_output_token_j"`
	PerRequestJ     *float64 `json:"per_request_j"`
	MeanPowerW      float64  `json:"mean_power_w"` // Joules / window
	GPUs            int      `json:"gpus"`         // GPUs in Joules
	Source          string   `json:"source"`       // one GPU source, or EnergyFromMixed
	UncertaintyJ    float64  `json:"uncertainty_j"`
	WindowS         float64  `json:"window_s"`
	// Complete is false when an exporter failed, a selected GPU was
	// missing or a GPU's energy does not cover the window: Joules is then
	// not the whole engine's (GPUTelemetry.Warnings say why).
	Complete bool `json:"complete"`
	// Output tokens per second, per GPU and per watt of mean power (the
	// latter equals output tokens per joule).
	TokensPerSPerGPU *float64 `json:"tokens_per_s_per_gpu"`
	TokensPerSPerW   *float64 `json:"tokens_per_s_per_w"`
	// Throttled is set when a GPU reported a clock-limiting event in the
	// window; ThrottleReasons names them.
	Throttled       bool     `json:"throttled"`
	ThrottleReasons []string `json:"throttle_reasons,omitempty"`
}

// Energy totals the GPUs' energy over the window and relates it to the
// output tokens and successful requests the window served. It returns
// nil when no GPU has an energy figure or the window has no length.
func (t *GPUTelemetry) Energy(outputTokens int64, requests int) *Energy {
	if t == nil || !(t.WindowEndS-t.WindowStartS > 0) {
		return nil
	}
	win := t.WindowEndS - t.WindowStartS
	e := &Energy{Complete: t.Complete, WindowS: win, Throttled: t.Throttled, ThrottleReasons: t.ThrottleReasons}
	for _, g := range t.GPUs {
		if g.EnergyJ == nil {
			continue
		}
		e.Joules += *g.EnergyJ
		e.UncertaintyJ += g.UncertaintyJ
		e.GPUs++
		switch {
		case e.Source == "":
			e.Source = g.Source
		case e.Source != g.Source:
			e.Source = EnergyFromMixed
		}
	}
	if e.GPUs == 0 {
		return nil
	}
	e.MeanPowerW = e.Joules / win
	if outputTokens > 0 && e.Joules > 0 {
		e.PerOutputTokenJ = fptr(e.Joules / float64(outputTokens))
		e.TokensPerSPerW = fptr(float64(outputTokens) / e.Joules)
	}
	if requests > 0 {
		e.PerRequestJ = fptr(e.Joules / float64(requests))
	}
	if outputTokens >= 0 {
		e.TokensPerSPerGPU = fptr(float64(outputTokens) / win / float64(e.GPUs))
	}
	return e
}

func fptr(v float64) *float64 { return &v }
