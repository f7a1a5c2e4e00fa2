package servesim

import (
	"bytes"
	"context"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// TestGPUSimIntegrates drives the power model on a fake clock: the energy
// is the exact integral of the power over the running counts.
func TestGPUSimIntegrates(t *testing.T) {
	t0 := time.Unix(1000, 0)
	now := t0
	g := newGPUSim(GPUSim{Count: 4, IdleWatts: 50, WattsPerSeq: 12}, 64, 1, func() time.Time { return now })
	steps := []struct {
		at      time.Duration
		running int
	}{{1500 * time.Millisecond, 4}, {2 * time.Second, 10}, {3250 * time.Millisecond, 10}, {5 * time.Second, 0}}
	want, last, prev := 0.0, 0, time.Duration(0)
	for _, s := range steps {
		now = t0.Add(s.at)
		g.setRunning(s.running)
		want += (50 + 12*float64(last)/4) * (s.at - prev).Seconds()
		last, prev = s.running, s.at
	}
	now = t0.Add(6 * time.Second)
	want += 50 * 1.0
	n, p, j := g.read()
	if n != 0 || p != 50 || math.Abs(j-want) > 1e-9 {
		t.Errorf("running %d, power %v W, energy %v J; want 0, 50, %v", n, p, j, want)
	}
	if g.power(10) != 50+12*10/4.0 {
		t.Errorf("power(10) = %v", g.power(10))
	}
}

// gpuPage reads the simulator's GPU page: per metric name, the values of
// GPUs 0, 1, ... in order.
func gpuPage(t *testing.T, url string) map[string][]float64 {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(get(t, url+GPUMetricsPath)))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]float64{}
	for name, f := range fams {
		for _, m := range f.GetMetric() {
			v := m.GetGauge().GetValue()
			if m.Counter != nil {
				v = m.GetCounter().GetValue()
			}
			out[name] = append(out[name], v)
		}
	}
	return out
}

// hold keeps n long streams running until the returned stop is called,
// and waits until the engine reports them all running.
func hold(t *testing.T, url string, n int) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { post(t, ctx, url+"/v1/completions", completion([]int{100 + i}, 100000, nil)) })
	}
	for deadline := time.Now().Add(10 * time.Second); scrape(t, url)["vllm:num_requests_running"] != float64(n); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d requests never all ran", n)
		}
	}
	return func() { cancel(); wg.Wait() }
}

// TestGPUPowerFollowsLoad: more running sequences, more watts, as the
// model says; the counter grows at the power reported; idle is marked.
func TestGPUPowerFollowsLoad(t *testing.T) {
	_, url := newTest(t, Config{DecodeBase: 5 * time.Millisecond, GPU: GPUSim{Count: 2, IdleWatts: 60, WattsPerSeq: 10, ClockEvents: 0x4}})
	idle := gpuPage(t, url)
	if len(idle["DCGM_FI_DEV_POWER_USAGE"]) != 2 || idle["DCGM_FI_DEV_POWER_USAGE"][0] != 60 || idle["DCGM_FI_DEV_CLOCKS_EVENT_REASONS"][0] != 0x5 ||
		idle["DCGM_FI_DEV_GPU_UTIL"][0] != 0 || idle["DCGM_FI_DEV_SM_CLOCK"][0] != simIdleClock {
		t.Fatalf("idle page %v", idle)
	}
	prevW := 60.0
	for _, n := range []int{2, 8} {
		stop := hold(t, url, n)
		a := gpuPage(t, url)
		t0 := time.Now()
		time.Sleep(300 * time.Millisecond)
		b := gpuPage(t, url)
		dt := time.Since(t0).Seconds()
		stop()
		w := a["DCGM_FI_DEV_POWER_USAGE"][1]
		if w != 60+10*float64(n)/2 || w <= prevW || a["DCGM_FI_DEV_CLOCKS_EVENT_REASONS"][1] != 0x4 || a["DCGM_FI_DEV_SM_CLOCK"][1] != simCapClock {
			t.Errorf("%d running: %v W (before %v W), page %v", n, w, prevW, a)
		}
		// Between the two reads the power was constant: the counter (mJ)
		// grew by power × time, up to the reads' own latency.
		got := (b["DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"][1] - a["DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"][1]) / 1000
		if math.Abs(got-w*dt) > w*0.05 {
			t.Errorf("%d running: counter grew %.3f J in %.3f s at %v W (want %.3f)", n, got, dt, w, w*dt)
		}
		prevW = w
	}
}

func TestGPUSimConfig(t *testing.T) {
	for _, g := range []GPUSim{{Count: -1}, {Count: 65}, {Count: 1, IdleWatts: -1}, {Count: 1, WattsPerSeq: math.NaN()},
		{Count: 1, IdleWatts: 1e9}, {Count: 1, ClockEvents: 1 << 30}} {
		if err := (Config{GPU: g}).Validate(); err == nil || !strings.Contains(err.Error(), "GPU") {
			t.Errorf("%+v: %v", g, err)
		}
	}
	// Without GPUs there is no GPU page.
	_, url := newTest(t, Config{})
	resp, err := testClient.Get(url + GPUMetricsPath)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("GPU page without GPUs: %d", resp.StatusCode)
	}
}
