//go:build unix

package experiment

import (
	"context"
	"errors"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/benchmark/client"
	"github.com/servecmp/servecmp/internal/testkit/ollamaserver"
)

// TestRunStopsOnTokenPrompts: a random workload of token ids against an
// engine that takes text only stops the run at its check with the
// client.SetupError (exit 2) that names the experiment file's remedy, and
// no measuring step runs.
func TestRunStopsOnTokenPrompts(t *testing.T) {
	s := httptest.NewServer(ollamaserver.NewStandIn())
	defer s.Close()
	src := "a: {url: \"" + s.URL + "\", model: tiny-raw}\nb: {url: \"" + s.URL + "\", model: tiny-raw}\n" +
		"workload: {random: {num: 4, input_len: 8, output_len: 4, seed: 1}}\nruns: {count: 1, concurrency: 1}\n"
	e, err := Parse(filepath.Join(t.TempDir(), "x.yaml"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	out, err := Run(context.Background(), e, t.TempDir(), RunOptions{})
	var se *client.SetupError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "engine ollama takes only text prompts") || !strings.Contains(err.Error(), textWorkloadHow) {
		t.Fatalf("got %v", err)
	}
	if len(out.Ran) != 0 {
		t.Errorf("ran %v", out.Ran)
	}
}

// TestBenchConfigMetrics: metrics_url decides the scrape of a side's
// sweeps and runs: the engine's own endpoint by default (left out on an
// engine without one), a URL as given, none at all.
func TestBenchConfigMetrics(t *testing.T) {
	for _, tc := range []struct {
		metrics, want string
		def           bool
	}{{"", "http://127.0.0.1:8001/metrics", true}, {"http://127.0.0.1:9400/metrics", "http://127.0.0.1:9400/metrics", false}, {MetricsNone, "", false}} {
		e := &Experiment{A: Engine{URL: "http://127.0.0.1:8001/", Model: "m", MetricsURL: tc.metrics}, Runs: Runs{Count: 1, Kind: LoadConcurrency, Value: 1}}
		r := &runner{e: e}
		cfg, err := r.benchConfig(Step{Name: "run-a-1", Kind: KindRun, Side: "a", Index: 1})
		if err != nil || cfg.Metrics.URL != tc.want || cfg.Metrics.Default != tc.def || cfg.TextWorkloadHow != textWorkloadHow {
			t.Errorf("metrics_url %q: %+v, %v", tc.metrics, cfg.Metrics, err)
		}
	}
}
