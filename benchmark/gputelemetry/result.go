package gputelemetry

// Sample is one point of a series: [seconds from the run start, value].
// It encodes as a two-element JSON array.
type Sample [2]float64

// MaxPowerPoints bounds Result.Power.
const MaxPowerPoints = 512

// Result is what a Scraper recorded, summarised over one window.
type Result struct {
	Exporters    []Exporter `json:"exporters"`
	IntervalS    float64    `json:"interval_s"`
	WindowStartS float64    `json:"window_start_s"`
	WindowEndS   float64    `json:"window_end_s"`
	// Contract is what the exporters' labels say about the hardware.
	Contract Contract `json:"contract"`
	// GPUs are the engine's GPUs, node by node, by index.
	GPUs []GPU `json:"gpus"`
	// Power is the GPUs' total power (W) over the whole recording, warmup
	// and drain included, resampled to at most MaxPowerPoints points. A
	// GPU counts only between its first and last sample.
	Power []Sample `json:"power"`
	// Throttled is true when any GPU reported a clock-limiting event
	// (power cap, thermal or hardware slowdown, power brake) in or at the
	// edges of the window.
	Throttled bool `json:"throttled"`
	// Complete is true when every exporter answered, every selected GPU
	// was found, and every GPU's energy covers the window (no lower bound,
	// at most 1% of it extrapolated).
	Complete bool     `json:"complete"`
	Warnings []string `json:"warnings,omitempty"`
}

// Exporter is one node's exporter and how its scrapes went.
type Exporter struct {
	URL          string `json:"url"`            // credentials redacted
	Node         string `json:"node,omitempty"` // its Hostname label
	Scrapes      int    `json:"scrapes"`        // successful
	ScrapeErrors int    `json:"scrape_errors"`
	GPUs         int    `json:"gpus"` // the engine's GPUs found on it
}

// Contract is the resource contract as the exporters report it. Several
// models or drivers are joined with " + ".
type Contract struct {
	GPUType       string `json:"gpu_type,omitempty"`
	GPUCount      int    `json:"gpu_count"`
	DriverVersion string `json:"driver_version,omitempty"`
	Nodes         int    `json:"nodes"`
}

// GPU is one GPU's telemetry over the window. Means are time-weighted
// (trapezoids, interpolated to the window's edges); peaks are the largest
// sample inside the window. A nil figure was not reported.
type GPU struct {
	GPUID
	Node          string `json:"node"` // Hostname label, else the exporter URL
	WindowSamples int    `json:"window_samples"`

	EnergyJ *float64 `json:"energy_j"`
	Source  string   `json:"source,omitempty"` // SourceCounter, SourcePower or SourceMixed
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
	// bit (see Throttling).
	ThrottledFrac *float64 `json:"throttled_frac,omitempty"`
}

// Energy is the engine's energy over the window, as the result's summary
// carries it.
type Energy struct {
	Joules          float64  `json:"joules"`
	PerOutputTokenJ *float64 `json:"per_output_token_j"` // nil without output tokens
	PerRequestJ     *float64 `json:"per_request_j"`      // nil without requests
	MeanPowerW      float64  `json:"mean_power_w"`       // Joules / window
	GPUs            int      `json:"gpus"`               // GPUs in Joules
	Source          string   `json:"source"`             // one GPU source, or SourceMixed
	UncertaintyJ    float64  `json:"uncertainty_j"`      // sum of the GPUs' bounds
	Complete        bool     `json:"complete"`           // Result.Complete
	// Output tokens per second, per GPU and per watt of mean power (the
	// latter equals output tokens per joule).
	TokensPerSPerGPU *float64 `json:"tokens_per_s_per_gpu"`
	TokensPerSPerW   *float64 `json:"tokens_per_s_per_w"`
}

// Energy totals the GPUs' energy over the window and relates it to the
// output tokens and requests the window served. It returns nil when no
// GPU has an energy figure or the window has no length.
func (r *Result) Energy(outputTokens, requests int64) *Energy {
	if r == nil || !(r.WindowEndS-r.WindowStartS > 0) {
		return nil
	}
	win := r.WindowEndS - r.WindowStartS
	e := &Energy{Complete: r.Complete}
	for _, g := range r.GPUs {
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
			e.Source = SourceMixed
		}
	}
	if e.GPUs == 0 {
		return nil
	}
	e.MeanPowerW = e.Joules / win
	if outputTokens > 0 && e.Joules > 0 {
		e.PerOutputTokenJ = ptr(e.Joules / float64(outputTokens))
		e.TokensPerSPerW = ptr(float64(outputTokens) / e.Joules)
	}
	if requests > 0 {
		e.PerRequestJ = ptr(e.Joules / float64(requests))
	}
	if outputTokens >= 0 {
		e.TokensPerSPerGPU = ptr(float64(outputTokens) / win / float64(e.GPUs))
	}
	return e
}

func ptr(v float64) *float64 { return &v }
