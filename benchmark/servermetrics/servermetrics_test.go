package servermetrics

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/servesim"
)

const vllmPage = `# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="m"} 3
vllm:num_requests_running{engine="1",model_name="m"} 4
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{engine="0",model_name="m"} 2
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.25
vllm:kv_cache_usage_perc{engine="1",model_name="m"} 0.5
# TYPE vllm:num_preemptions_total counter
vllm:num_preemptions_total{engine="0",model_name="m"} 1
# TYPE vllm:prompt_tokens_total counter
vllm:prompt_tokens_total{engine="0",model_name="m"} 1000
# TYPE vllm:generation_tokens_total counter
vllm:generation_tokens_total{engine="0",model_name="m"} 500
# TYPE vllm:prefix_cache_queries_total counter
vllm:prefix_cache_queries_total{engine="0",model_name="m"} 800
# TYPE vllm:prefix_cache_hits_total counter
vllm:prefix_cache_hits_total{engine="0",model_name="m"} 200
# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{le="0.1",model_name="m"} 3
vllm:time_to_first_token_seconds_bucket{le="+Inf",model_name="m"} 4
vllm:time_to_first_token_seconds_sum{model_name="m"} 0.9
vllm:time_to_first_token_seconds_count{model_name="m"} 4
`

const vllmOldPage = `# TYPE vllm:gpu_cache_usage_perc gauge
vllm:gpu_cache_usage_perc{model_name="m"} 0.75
# TYPE vllm:gpu_prefix_cache_hits counter
vllm:gpu_prefix_cache_hits_total{model_name="m"} 7
`

const sglangPage = `# HELP sglang:prompt_tokens_total Number of prefill tokens processed.
# TYPE sglang:prompt_tokens_total counter
sglang:prompt_tokens_total{model_name="m",tp_rank="0"} 8.128902e+06
# TYPE sglang:generation_tokens_total counter
sglang:generation_tokens_total{model_name="m",tp_rank="0"} 7.557572e+06
# TYPE sglang:token_usage gauge
sglang:token_usage{model_name="m"} 0.28
# TYPE sglang:cache_hit_rate gauge
sglang:cache_hit_rate{model_name="m"} 0.0075
# TYPE sglang:num_running_reqs gauge
sglang:num_running_reqs{model_name="m"} 12
# TYPE sglang:num_queue_reqs gauge
sglang:num_queue_reqs{model_name="m"} 5
# TYPE sglang:cached_tokens_total counter
sglang:cached_tokens_total{cache_source="device",model_name="m"} 100
sglang:cached_tokens_total{cache_source="host",model_name="m"} 20
`

const tgiPage = `# TYPE tgi_queue_size gauge
tgi_queue_size 6
# TYPE tgi_batch_current_size gauge
tgi_batch_current_size 9
# TYPE tgi_request_input_length histogram
tgi_request_input_length_bucket{le="100"} 2
tgi_request_input_length_bucket{le="+Inf"} 3
tgi_request_input_length_sum 450
tgi_request_input_length_count 3
# TYPE tgi_request_generated_tokens histogram
tgi_request_generated_tokens_bucket{le="+Inf"} 3
tgi_request_generated_tokens_sum 96
tgi_request_generated_tokens_count 3
`

// llamaPage is llama-server's /metrics (with --metrics), as this build
// writes it: no KV-cache gauge.
const llamaPage = `# HELP llamacpp:prompt_tokens_total Number of prompt tokens processed.
# TYPE llamacpp:prompt_tokens_total counter
llamacpp:prompt_tokens_total 5
# TYPE llamacpp:prompt_seconds_total counter
llamacpp:prompt_seconds_total 0.001
# TYPE llamacpp:tokens_predicted_total counter
llamacpp:tokens_predicted_total 8
# TYPE llamacpp:n_decode_total counter
llamacpp:n_decode_total 8
# TYPE llamacpp:n_tokens_max counter
llamacpp:n_tokens_max 8
# TYPE llamacpp:requests_processing gauge
llamacpp:requests_processing 2
# TYPE llamacpp:requests_deferred gauge
llamacpp:requests_deferred 1
# TYPE llamacpp:kv_cache_usage_ratio gauge
llamacpp:kv_cache_usage_ratio 0.125
`

const dcgmPage = `# TYPE DCGM_FI_DEV_FB_USED gauge
DCGM_FI_DEV_FB_USED{gpu="0"} 1024
DCGM_FI_DEV_FB_USED{gpu="1"} 2048
`

func TestParseEngines(t *testing.T) {
	tests := []struct {
		name, page, engine string
		want               map[string]float64
		source             map[string]string
	}{
		{"vllm", vllmPage, "vllm", map[string]float64{"requests_running": 7, "requests_waiting": 2, "kv_cache_usage": 0.5,
			"preemptions": 1, "prompt_tokens": 1000, "generation_tokens": 500, "prefix_cache_queries": 800, "prefix_cache_hits": 200},
			map[string]string{"kv_cache_usage": "vllm:kv_cache_usage_perc"}},
		{"vllm old", vllmOldPage, "vllm", map[string]float64{"kv_cache_usage": 0.75, "prefix_cache_hits": 7},
			map[string]string{"kv_cache_usage": "vllm:gpu_cache_usage_perc", "prefix_cache_hits": "vllm:gpu_prefix_cache_hits_total"}},
		{"sglang", sglangPage, "sglang", map[string]float64{"requests_running": 12, "requests_waiting": 5, "kv_cache_usage": 0.28,
			"prefix_cache_hit_rate": 0.0075, "prompt_tokens": 8128902, "generation_tokens": 7557572, "prefix_cache_hits": 120}, nil},
		{"tgi", tgiPage, "tgi", map[string]float64{"requests_running": 9, "requests_waiting": 6, "prompt_tokens": 450, "generation_tokens": 96}, nil},
		{"llamacpp", llamaPage, "llamacpp", map[string]float64{"requests_running": 2, "requests_waiting": 1, "kv_cache_usage": 0.125,
			"prompt_tokens": 5, "generation_tokens": 8, "decode_calls": 8}, nil},
		{"dcgm", dcgmPage, "dcgm", map[string]float64{"gpu_memory_used": 3072 * mib}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap, err := Parse(strings.NewReader(tt.page))
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]float64{}
			for _, r := range snap.Readings {
				got[r.Name] = r.Value
				if src, ok := tt.source[r.Name]; ok && r.EngineMetric != src {
					t.Errorf("%s from %s, want %s", r.Name, r.EngineMetric, src)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("got  %v\nwant %v", got, tt.want)
			}
			var engines []string
			for _, r := range snap.Readings {
				if e := engineOf(r.EngineMetric); e != "" && !slices.Contains(engines, e) {
					engines = append(engines, e)
				}
			}
			if e := strings.Join(engines, "+"); e != tt.engine {
				t.Errorf("engine %q, want %q", e, tt.engine)
			}
		})
	}
}

func TestParseRejectsGarbage(t *testing.T) {
	for _, page := range []string{"vllm:x{a=\"b\" 1\n", "# TYPE a gauge\n# TYPE a counter\na 1\n", "a 1 2 3 4\n"} {
		if _, err := Parse(strings.NewReader(page)); err == nil {
			t.Errorf("no error for %q", page)
		}
	}
	snap, err := Parse(strings.NewReader("# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running NaN\n"))
	if err != nil || len(snap.Readings) != 0 {
		t.Errorf("NaN kept: %+v %v", snap, err)
	}
}

func TestSummarise(t *testing.T) {
	g := &series{engineMetric: "g", kind: result.Gauge, samples: []result.ServerSample{{0, 10}, {1, 1}, {2, 3}, {3, 5}, {4, 100}}}
	m := summarise("g", g, 0.5, 3.5)
	if m.WindowSamples != 3 || *m.Peak != 5 || *m.Mean != 3 || m.Increase != nil || len(m.Samples) != 5 {
		t.Errorf("gauge: %+v", m)
	}
	// Counter: baseline is the last sample before the window (t=1, 10);
	// the drop at t=3 is a reset, counted as +4.
	c := &series{engineMetric: "c", kind: result.Counter, samples: []result.ServerSample{{0, 0}, {1, 10}, {2, 15}, {3, 4}, {4, 9}, {5, 50}}}
	m = summarise("c", c, 1.5, 4)
	if m.WindowSamples != 3 || *m.Increase != 5+4+5 || *m.Peak != 15 || m.Mean != nil {
		t.Errorf("counter: %+v", m)
	}
	if math.Abs(*m.RatePerS-14.0/3) > 1e-12 {
		t.Errorf("rate %v", *m.RatePerS)
	}
	// The sample after the window closes it: growth between the last
	// in-window scrape (t=3) and the window end (3.5) is counted.
	m = summarise("c", c, 1.5, 3.5)
	if *m.Increase != 5+4+5 || *m.Peak != 15 {
		t.Errorf("closing sample: increase %v, want 14", *m.Increase)
	}
	// A window shorter than the interval, between two samples, still has
	// the counter's increase (no peak: no sample inside it).
	m = summarise("c", c, 1.2, 1.8)
	if m.WindowSamples != 0 || m.Peak != nil || m.Increase == nil || *m.Increase != 5 {
		t.Errorf("bracketed short window: %+v", m)
	}
	// A window holding no sample and not bracketed has no figures.
	m = summarise("c", c, 10, 20)
	if m.Peak != nil || m.Increase != nil || m.WindowSamples != 0 {
		t.Errorf("empty window: %+v", m)
	}
	// A window from the first sample takes it as the baseline.
	m = summarise("c", c, 0, 2)
	if *m.Increase != 15 {
		t.Errorf("from start: increase %v, want 15", *m.Increase)
	}
}

// pageServer serves pages in turn; the last one repeats.
func pageServer(pages ...string) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1)) - 1
		w.Write([]byte(pages[min(i, len(pages)-1)]))
	})), &n
}

func TestScraperRun(t *testing.T) {
	p1 := strings.ReplaceAll(vllmPage, "} 1000\n", "} 1000\n")
	p2 := strings.ReplaceAll(vllmPage, "} 1000\n", "} 1600\n")
	ts, hits := pageServer(p1, p1, p2)
	defer ts.Close()
	s := NewScraper(ts.URL+"/metrics", 10*time.Millisecond, nil)
	runUntil(t, s, func() bool { return hits.Load() >= 5 })
	res := s.Result(0, math.Inf(1))
	// A scrape cancelled in flight is served but not recorded.
	if n := int(hits.Load()); n < 5 || res.Scrapes < n-1 || res.Scrapes > n || res.ScrapeErrors != 0 {
		t.Fatalf("%d hits, result %+v", hits.Load(), res)
	}
	if res.Engine != "vllm" || len(res.Warnings) != 0 || res.WindowEndS <= 0 {
		t.Errorf("result %+v", res)
	}
	for _, m := range res.Metrics {
		if m.Name == "prompt_tokens" && (*m.Increase != 600 || *m.Peak != 1600) {
			t.Errorf("prompt_tokens increase %v peak %v", *m.Increase, *m.Peak)
		}
		if m.Name == "kv_cache_usage" && (*m.Peak != 0.5 || *m.Mean != 0.5) {
			t.Errorf("kv %+v", m)
		}
	}
	if res.PrefixCacheHitRate != nil {
		t.Errorf("hit rate %v without query growth", *res.PrefixCacheHitRate)
	}
	b, err := json.Marshal(res)
	if err != nil || !strings.Contains(string(b), `"samples":[[`) {
		t.Errorf("json: %v %.200s", err, b)
	}
}

// runUntil runs s until cond holds (checked every few milliseconds, for
// at most 10 s), then stops it and waits for Run to return.
func runUntil(t *testing.T, s *Scraper, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Error("condition not reached in 10 s")
			break
		}
	}
	cancel()
	<-done
}

func TestScraperMissingEndpoint(t *testing.T) {
	ts := httptest.NewServer(http.NotFoundHandler())
	defer ts.Close()
	s := NewScraper(ts.URL+"/metrics", 5*time.Millisecond, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	s.Run(ctx)
	res := s.Result(0, 1)
	if res.ScrapeErrors != 1 || res.Scrapes != 0 || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "404") {
		t.Errorf("%+v", res)
	}
}

func TestScraperErrorsAndUnknown(t *testing.T) {
	ts, hits := pageServer("garbage{\n", "# TYPE other gauge\nother 1\n")
	defer ts.Close()
	s := NewScraper(ts.URL, 5*time.Millisecond, nil)
	runUntil(t, s, func() bool { return hits.Load() >= 3 })
	res := s.Result(0, 10)
	if res.ScrapeErrors != 1 || res.Scrapes < 2 {
		t.Fatalf("%+v", res)
	}
	w := strings.Join(res.Warnings, "\n")
	if !strings.Contains(w, "scrapes failed") || !strings.Contains(w, "none of them a known") {
		t.Errorf("warnings %q", res.Warnings)
	}
	// Nothing listening: every scrape fails, Run still returns.
	s = NewScraper("http://127.0.0.1:1/metrics", 5*time.Millisecond, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	s.Run(ctx)
	if res := s.Result(0, 1); res.Scrapes != 0 || res.ScrapeErrors == 0 || !strings.Contains(res.Warnings[0], "all") {
		t.Errorf("%+v", res)
	}
}

func TestScraperAgainstSimulator(t *testing.T) {
	sim := servesim.New(servesim.Config{EngineName: "sglang"})
	ts := httptest.NewServer(sim)
	defer func() { sim.Close(); ts.Close() }()
	s := NewScraper(ts.URL+"/metrics", 5*time.Millisecond, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	<-s.FirstScrape() // a baseline before any request
	for i := range 5 {
		body := fmt.Sprintf(`{"prompt":[%d,5,6],"max_tokens":10,"ignore_eos":true}`, i+3)
		resp, err := http.Post(ts.URL+"/v1/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	cancel()
	<-done
	res := s.Result(0, math.Inf(1))
	if res.Engine != "sglang" {
		t.Errorf("engine %q", res.Engine)
	}
	for _, m := range res.Metrics {
		if m.Name == "generation_tokens" && (m.Increase == nil || *m.Increase != 50) {
			t.Errorf("generation tokens increase %v, want 50", m.Increase)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, p := range []string{vllmPage, vllmOldPage, sglangPage, tgiPage, dcgmPage, "", "# EOF\n", "a{b=\"\\\"\"} 1 123\n"} {
		f.Add([]byte(p))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		snap, err := Parse(strings.NewReader(string(data)))
		if err != nil {
			return
		}
		for _, r := range snap.Readings {
			if math.IsNaN(r.Value) || math.IsInf(r.Value, 0) {
				t.Errorf("non-finite value %v for %s", r.Value, r.Name)
			}
		}
		if _, err := json.Marshal(snap); err != nil {
			t.Error(err)
		}
	})
}

func TestScrapeNowKeepsTimeOrder(t *testing.T) {
	ts, hits := pageServer(vllmPage)
	defer ts.Close()
	s := NewScraper(ts.URL+"/metrics", 2*time.Millisecond, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	<-s.FirstScrape()
	for range 20 {
		s.ScrapeNow(context.Background())
	}
	for hits.Load() < 30 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	<-done
	res := s.Result(0, math.Inf(1))
	if res.Scrapes < 21 {
		t.Fatalf("%d scrapes", res.Scrapes)
	}
	for _, m := range res.Metrics {
		for i := 1; i < len(m.Samples); i++ {
			if m.Samples[i][0] < m.Samples[i-1][0] {
				t.Fatalf("%s: samples out of time order at %d", m.Name, i)
			}
		}
	}
}

// TestScraperHangingEndpointWarns is the case: a /metrics that
// accepts the request and never answers, during a run shorter than the
// client's timeout, is reported in a warning instead of dropped.
func TestScraperHangingEndpointWarns(t *testing.T) {
	hang := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hang:
		case <-r.Context().Done():
		}
	}))
	defer ts.Close()
	defer close(hang)
	s := NewScraper(ts.URL+"/metrics", 5*time.Millisecond, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	time.Sleep(100 * time.Millisecond) // the run, shorter than one scrape's timeout
	bctx, bcancel := WithDeadline(context.Background(), 50*time.Millisecond)
	s.ScrapeNow(bctx) // a baseline, cut by its own deadline
	bcancel()
	cancel()
	<-done
	res := s.Result(0, 1)
	w := strings.Join(res.Warnings, "\n")
	if res.Scrapes != 0 || !strings.Contains(w, "server metrics:") || !(strings.Contains(w, "scrapes failed") || strings.Contains(w, "did not answer")) {
		t.Fatalf("scrapes %d, errors %d, warnings %q", res.Scrapes, res.ScrapeErrors, res.Warnings)
	}
}
