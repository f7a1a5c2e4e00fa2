package benchmark

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/internal/redact"
	"github.com/servecmp/servecmp/internal/testkit/fakeengine"
)

func ptrTo[T any](v T) *T { return &v }

func TestRunRefusesBadConfigBeforeAnyRequest(t *testing.T) {
	var hits atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer s.Close()
	ok := result.LoadPolicy{Mode: result.ModeConcurrency, Concurrency: 2}
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"no workload", func(c *Config) { c.Workload = nil }, "workload"},
		{"unknown engine", func(c *Config) { c.Engine = "foo" }, "engine"},
		{"zero concurrency", func(c *Config) { c.Load.Concurrency = 0 }, "concurrency"},
		{"bad arrival", func(c *Config) { c.Load = result.LoadPolicy{Mode: result.ModeRate, Rate: 2, Arrival: "uniform"} }, "arrival"},
		{"bad sweep value", func(c *Config) { c.SweepKind, c.SweepValues = result.ModeConcurrency, []float64{1, 2, 0} }, "sweep value 0"},
		{"fractional concurrency", func(c *Config) { c.SweepKind, c.SweepValues = result.ModeConcurrency, []float64{1.5} }, "integer"},
		{"sweep kind and mode differ", func(c *Config) { c.SweepKind, c.SweepValues = result.ModeRate, []float64{1} }, "sweep over rate"},
		{"bad manifest number", func(c *Config) { c.Manifest.Fields = []result.KV{{Key: "gpu_count", Value: "many"}} }, "gpu_count"},
		{"negative threshold", func(c *Config) { c.SaturationThreshold = -1 }, "threshold"},
		{"huge sweep value late in the list", func(c *Config) { c.SweepKind, c.SweepValues = result.ModeConcurrency, []float64{1, 2, 1e300} }, "sweep value 1e+300: concurrency above"},
		{"huge rate late in the list", func(c *Config) {
			c.Load, c.SweepKind, c.SweepValues = result.LoadPolicy{Mode: result.ModeRate, Rate: 1}, result.ModeRate, []float64{1, 1e300}
		}, "rate above"},
		{"huge concurrency", func(c *Config) { c.Load.Concurrency = 1 << 40 }, "concurrency above"},
		{"huge duration", func(c *Config) { c.Load.DurationS = 1e12 }, "at most 168h"},
		{"NaN drain timeout", func(c *Config) { c.Load.DrainTimeoutS = math.NaN() }, "at most 168h"},
		{"malformed url", func(c *Config) { c.URL = "http://[::1" }, "not a valid URL"},
		{"url without scheme", func(c *Config) { c.URL = "localhost:8000" }, "http:// or https://"},
		{"url without host", func(c *Config) { c.URL = "http:///v1" }, "no host"},
		{"url credentials never quoted", func(c *Config) { c.URL = "ftp://user:hunter2@host" }, redact.Mask + "@host"},
		{"far arrival offset", func(c *Config) {
			c.Workload = fakeengine.Workload(3, 2, false)
			c.Workload.Requests[2].ArrivalOffsetS = ptrTo(5e9)
		}, "arrival_offset_s must be in [0, 86400]"},
	} {
		cfg := Config{URL: s.URL, Engine: "vllm", Model: "m", Workload: fakeengine.Workload(3, 2, false), Load: ok}
		tc.edit(&cfg)
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Validate: %v, want an error naming %q", tc.name, err, tc.want)
		}
		_, err := Run(context.Background(), cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Run: %v, want the configuration's error naming %q", tc.name, err, tc.want)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests sent for configurations that were refused", n)
	}
}

func TestRunAssemblesTheManifest(t *testing.T) {
	f := &fakeengine.Server{}
	s := f.Start(t)
	res, err := Run(context.Background(), Config{
		URL: s.URL + "/", Workload: fakeengine.Workload(4, 2, true), Load: result.LoadPolicy{Mode: result.ModeConcurrency, Concurrency: 2, Seed: 9},
		Manifest: ManifestConfig{ServecmpVersion: "v1", ClientHost: "h", Fields: []result.KV{{Key: "gpu_type", Value: "H100"}, {Key: "model", Value: "user"}, {Key: "rack", Value: "r1"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Manifest
	// Detected: engine, version and model root; offered: load and seed;
	// the user's fields win over detection.
	if m.Engine != "vllm" || m.EngineVersion != "0.0-test" || m.Extra["model_root"] != "/ckpt/fake" || m.Model != "user" ||
		m.GPUType != "H100" || m.Extra["rack"] != "r1" || m.Seed != 9 || m.ServecmpVersion != "v1" || m.Endpoint != "completions" ||
		m.LoadPolicy != "concurrency 2, 4 measured requests, warmup 0, drain wait" || m.URL != s.URL+"/" {
		t.Fatalf("manifest %+v", m)
	}
	// The requests carry the detected model, not the manifest's.
	for _, b := range f.Bodies() {
		if b["model"] != "fake-model" {
			t.Fatalf("request model %v", b["model"])
		}
	}
	if res.ServerMetrics != nil {
		t.Errorf("server metrics without a metrics URL")
	}
}

func TestLoadPolicyString(t *testing.T) {
	for _, tc := range []struct {
		l    result.LoadPolicy
		want string
	}{
		{result.LoadPolicy{Mode: result.ModeConcurrency, Concurrency: 8, Requests: 64, Warmup: 4, Drain: result.DrainWait}, "concurrency 8, 64 measured requests, warmup 4, drain wait"},
		{result.LoadPolicy{Mode: result.ModeRate, Rate: 2.5, Arrival: result.ArrivalGamma, Burstiness: 0.5, MaxConcurrency: 3, Requests: 10, DurationS: 30, Drain: result.DrainCancel},
			"rate 2.5 req/s (gamma, burstiness 0.5), max concurrency 3, 10 measured requests, warmup 0, duration 30 s, drain cancel"},
		{result.LoadPolicy{Mode: result.ModeTrace, Requests: 5}, "trace, 5 measured requests, warmup 0"},
		{result.LoadPolicy{}, "unknown, 0 measured requests, warmup 0"},
	} {
		if got := tc.l.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.l, got, tc.want)
		}
	}
}
