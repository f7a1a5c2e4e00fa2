package result

// MetricKind tells how a scraped server metric's samples are summarised over the window.
type MetricKind string

const (
	// Gauge: peak and mean of the samples inside the window.
	Gauge MetricKind = "gauge"
	// Counter: peak (the largest cumulative value seen) and the increase
	// within the window, with counter resets handled.
	Counter MetricKind = "counter"
)

// ServerSample is one point of a series: [seconds from run start, value]. It
// encodes as a two-element JSON array.
type ServerSample [2]float64

// ServerMetric is one canonical server metric's series and its summary over the
// measurement window.
type ServerMetric struct {
	Name         string     `json:"name"`
	EngineMetric string     `json:"engine_metric"`
	Kind         MetricKind `json:"kind"`
	Unit         string     `json:"unit"`
	// WindowSamples counts samples with WindowStartS <= t <= WindowEndS.
	WindowSamples int `json:"window_samples"`
	// Peak is the largest sample inside the window (for a counter, its
	// cumulative value at the end); nil when the window holds no sample.
	Peak *float64 `json:"peak"`
	// Mean is the plain mean of the gauge's samples inside the window
	// (samples are evenly spaced in time). Gauges only.
	Mean *float64 `json:"mean,omitempty"`
	// Increase is how much a counter grew over the window: from the last
	// sample at or before the window start (or the first sample inside it
	// when there is none) to the first sample at or after the window end
	// (or the last sample inside it when there is none); a drop is taken
	// as a counter reset. Counters only.
	Increase *float64 `json:"increase,omitempty"`
	// RatePerS is Increase divided by the time between those two samples.
	RatePerS *float64 `json:"rate_per_s,omitempty"`
	// Samples is the whole series, warmup and drain included.
	Samples []ServerSample `json:"samples"`
}

// ServerMetrics is what the server-metrics scraper recorded over a run
// (the server's Prometheus series), summarised over one window.
type ServerMetrics struct {
	URL          string  `json:"url"`
	Engine       string  `json:"engine,omitempty"`
	IntervalS    float64 `json:"interval_s"`
	WindowStartS float64 `json:"window_start_s"`
	WindowEndS   float64 `json:"window_end_s"`
	Scrapes      int     `json:"scrapes"`       // successful scrapes
	ScrapeErrors int     `json:"scrape_errors"` // failed scrapes
	// PrefixCacheHitRate is prefix_cache_hits.increase /
	// prefix_cache_queries.increase over the window, when both counters
	// are exposed and queries grew.
	PrefixCacheHitRate *float64       `json:"prefix_cache_hit_rate,omitempty"`
	Metrics            []ServerMetric `json:"metrics"`
	Warnings           []string       `json:"warnings,omitempty"`
}
