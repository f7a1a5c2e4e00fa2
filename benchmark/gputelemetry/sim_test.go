package gputelemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/servecmp/servecmp/benchmark/result"

	"github.com/servecmp/servecmp/servesim"
)

// loadSim serves a simulator with two GPUs and keeps n long streams
// running on it until the test ends; it returns the GPU page's URL once
// all n run.
func loadSim(t *testing.T, perSeq float64, n int) string {
	t.Helper()
	sim := servesim.New(servesim.Config{DecodeBase: 5 * time.Millisecond,
		GPU: servesim.GPUSim{Count: 2, IdleWatts: 70, WattsPerSeq: perSeq}})
	ts := httptest.NewServer(sim)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait(); sim.Close(); ts.Close() })
	for i := range n {
		wg.Go(func() {
			body, _ := json.Marshal(map[string]any{"prompt": []int{i + 10}, "max_tokens": 1000000, "ignore_eos": true, "stream": true})
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL+"/v1/completions", bytes.NewReader(body))
			if resp, err := http.DefaultClient.Do(req); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		resp, err := http.Get(ts.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(b), "vllm:num_requests_running{engine=\"0\",model_name=\"sim-model\"} "+strconv.Itoa(n)+"\n") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d streams never all ran", n)
		}
	}
	return ts.URL + servesim.GPUMetricsPath
}

// TestAgainstSimulator measures two simulators that differ only in their
// power per running sequence, under the same load of 8 streams: the
// energy follows the power model (2 × 70 W + 8 × W/seq) from the counter.
func TestAgainstSimulator(t *testing.T) {
	mean := map[float64]float64{}
	for _, perSeq := range []float64{8, 16} {
		s, err := New(Config{Endpoints: []Endpoint{{URL: loadSim(t, perSeq, 8)}}, Every: 50 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		ws, we := runWindow(t, s, time.Second)
		res := s.Result(ws, we)
		e := res.Energy(1000, 8)
		want := 2*70 + 8*perSeq
		if e == nil || e.Source != result.EnergyFromCounter || e.GPUs != 2 || !near(e.MeanPowerW, want, 0.02) || !res.Complete ||
			res.Contract.GPUType != "serve-sim GPU" || res.Throttled {
			t.Fatalf("W/seq %v: energy %+v, want %v W; complete %v; warnings %q", perSeq, e, want, res.Complete, res.Warnings)
		}
		t.Logf("W/seq %v: %.1f W mean (model %.0f W), %.1f J ± %.1f J over %.3f s", perSeq, e.MeanPowerW, want, e.Joules, e.UncertaintyJ, we-ws)
		mean[perSeq] = e.MeanPowerW
	}
	if r := mean[16] / mean[8]; !near(r, 268.0/204, 0.03) {
		t.Errorf("power ratio %.3f, model %.3f", r, 268.0/204)
	}
}
