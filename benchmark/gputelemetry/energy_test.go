package gputelemetry

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/servecmp/servecmp/benchmark/result"
)

// runWindow scrapes s around a window of length d and returns the
// window's edges: a baseline ScrapeNow, the window, a closing ScrapeNow.
func runWindow(t *testing.T, s *Scraper, d time.Duration) (float64, float64) {
	t.Helper()
	start := time.Now()
	s.SetStart(start)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	<-s.FirstScrape()
	s.ScrapeNow(ctx)
	ws := time.Since(start).Seconds()
	time.Sleep(d)
	we := time.Since(start).Seconds()
	s.ScrapeNow(ctx)
	cancel()
	<-done
	return ws, we
}

// TestStandInConstantPower checks the energy of two nodes of two GPUs at
// known constant power against GPUs × watts × window, from the counter
// and, with the counter switched off, from the power integral.
func TestStandInConstantPower(t *testing.T) {
	for _, tc := range []struct {
		name      string
		noCounter bool
		source    string
	}{{"counter", false, result.EnergyFromCounter}, {"power", true, result.EnergyFromPower}} {
		t.Run(tc.name, func(t *testing.T) {
			a := &standIn{host: "node-a", watts: []float64{300, 250}, noCounter: tc.noCounter}
			b := &standIn{host: "node-b", watts: []float64{400, 350}, noCounter: tc.noCounter}
			s, err := New(Config{Endpoints: []Endpoint{{URL: serveStandIn(t, a)}, {URL: serveStandIn(t, b)}}, Every: 50 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			ws, we := runWindow(t, s, 2*time.Second)
			res := s.Result(ws, we)
			e := res.Energy(3000, 30)
			want := 1300 * (we - ws)
			if e == nil || !near(e.Joules, want, 0.01) || e.GPUs != 4 || e.Source != tc.source {
				t.Fatalf("energy %+v, want %.1f J from 4 GPUs by %s; warnings %q", e, want, tc.source, res.Warnings)
			}
			t.Logf("%s: %.2f J over %.3f s (want %.2f, %+.3f%%), ± %.2f J", tc.name, e.Joules, we-ws, want, 100*(e.Joules/want-1), e.UncertaintyJ)
			if !near(e.MeanPowerW, 1300, 0.01) || !near(*e.PerOutputTokenJ, e.Joules/3000, 1e-12) ||
				!near(*e.PerRequestJ, e.Joules/30, 1e-12) || !near(*e.TokensPerSPerGPU, 3000/(we-ws)/4, 1e-12) ||
				!near(*e.TokensPerSPerW, 3000/e.Joules, 1e-12) {
				t.Errorf("derived figures %+v", e)
			}
			if !res.Complete || !e.Complete || res.Throttled {
				t.Errorf("complete %v throttled %v; warnings %q", res.Complete, res.Throttled, res.Warnings)
			}
			c := res.Contract
			if c.GPUType != testModel || c.GPUCount != 4 || c.DriverVersion != testDriver || c.Nodes != 2 {
				t.Errorf("contract %+v", c)
			}
			g := res.GPUs[0]
			if g.Node != "node-a" || g.Index != "0" || !near(*g.MeanUtilPct, 90, 1e-9) || !near(*g.MeanSMActive, 0.75, 1e-9) ||
				!near(*g.MeanFBUsedMiB, 70000, 1e-9) || *g.FBTotalMiB != 81559 || !near(*g.MeanSMClockMHz, 1980, 1e-9) ||
				!near(*g.MeanTempC, 60, 1e-9) || *g.PeakPowerW != 300 || g.MeanMemClockMHz != nil {
				t.Errorf("gpu 0 %+v", g)
			}
			if (g.CounterJ == nil) != tc.noCounter || g.PowerIntegralJ == nil || !near(*g.PowerIntegralJ, 300*(we-ws), 0.01) {
				t.Errorf("gpu 0 estimates counter %v power %v", g.CounterJ, g.PowerIntegralJ)
			}
			if len(res.Power) == 0 || len(res.Power) > result.MaxPowerPoints || !near(res.Power[len(res.Power)/2][1], 1300, 1e-9) {
				t.Errorf("power series %d points, mid %v", len(res.Power), res.Power[len(res.Power)/2])
			}
		})
	}
}

// series feeds one GPU's pages at t = 0, 1, ..., n-1 built by at.
func series(t *testing.T, s *Scraper, n int, at func(t float64) map[string]float64) {
	t.Helper()
	for i := range n {
		feed(t, s, 0, float64(i), one(at(float64(i))))
	}
}

const (
	power  = "DCGM_FI_DEV_POWER_USAGE"
	energy = "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"
)

// TestCounterResets checks the counter's decreases and jumps: a reset
// to zero, a wrap-like drop from near the top of its range, a small step
// back and a jump forward, each bridged by the power integral (source
// mixed), and without power a lower bound that clears Complete.
func TestCounterResets(t *testing.T) {
	const watts = 200.0
	cases := []struct {
		name    string
		counter func(t float64) float64 // mJ
		source  string                  // mixed: bridged by power; counter: a blip dropped
	}{
		{"reset to zero", func(t float64) float64 {
			if t < 5.5 {
				return 7e9 + watts*t*1000
			}
			return watts * (t - 5.5) * 1000
		}, result.EnergyFromMixed},
		{"wrap-like drop", func(t float64) float64 {
			if t < 5.5 {
				return (1 << 53) - 2e7 + watts*t*1000
			}
			return watts * (t - 5.5) * 1000
		}, result.EnergyFromMixed},
		{"jump forward", func(t float64) float64 {
			if t >= 6 {
				return 1e6 + 1e12 + watts*t*1000
			}
			return 1e6 + watts*t*1000
		}, result.EnergyFromMixed},
		{"one step back", func(t float64) float64 {
			if t == 5 {
				return 1e6 + watts*4*1000 - 1000
			}
			return 1e6 + watts*t*1000
		}, result.EnergyFromCounter},
		{"one spike", func(t float64) float64 {
			if t == 5 {
				return 1e15
			}
			return 1e6 + watts*t*1000
		}, result.EnergyFromCounter},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newFed(t)
			series(t, s, 11, func(t float64) map[string]float64 { return map[string]float64{power: watts, energy: tc.counter(t)} })
			res := s.Result(1.5, 8.5)
			g := res.GPUs[0]
			resets := map[string]int{result.EnergyFromMixed: 1, result.EnergyFromCounter: 0}[tc.source]
			if !near(*g.EnergyJ, watts*7, 1e-9) || g.Source != tc.source || g.CounterResets != resets || g.LowerBound || !res.Complete {
				t.Errorf("with power: %+v; warnings %q", g, res.Warnings)
			}
			if got := strings.Contains(strings.Join(res.Warnings, "\n"), "reset inside the window"); got != (resets > 0) {
				t.Errorf("warnings %q: reset named %v, want %v", res.Warnings, got, resets > 0)
			}
		})
	}
	t.Run("reset without power", func(t *testing.T) {
		s := newFed(t)
		series(t, s, 11, func(t float64) map[string]float64 { return map[string]float64{energy: cases[0].counter(t)} })
		res := s.Result(1.5, 8.5)
		g := res.GPUs[0]
		// The interval (5, 6) counts only what came after the reset: 100 J
		// of its 200.
		if !near(*g.EnergyJ, watts*7-100, 1e-9) || !g.LowerBound || res.Complete || g.Source != result.EnergyFromCounter {
			t.Errorf("%+v complete %v", g, res.Complete)
		}
		if !strings.Contains(strings.Join(res.Warnings, "\n"), "lower bound") {
			t.Errorf("warnings %q", res.Warnings)
		}
	})
}

// TestMissingCounter integrates a power ramp without a counter: the
// trapezoids, cut at the window's edges, give the exact area.
func TestMissingCounter(t *testing.T) {
	s := newFed(t)
	series(t, s, 11, func(t float64) map[string]float64 { return map[string]float64{power: 100 + 40*t} })
	res := s.Result(2.5, 7.5)
	g := res.GPUs[0]
	if g.Source != result.EnergyFromPower || !near(*g.EnergyJ, 1500, 1e-12) || g.CounterJ != nil || !near(*g.MeanPowerW, 300, 1e-12) {
		t.Errorf("%+v", g)
	}
	if !strings.Contains(strings.Join(res.Warnings, "\n"), "no energy counter") {
		t.Errorf("warnings %q", res.Warnings)
	}
}

// TestStaleExporter scrapes an exporter that refreshes every 3 s while
// the power steps from 100 W to 500 W: the estimate is off, and the
// bound it reports covers the error.
func TestStaleExporter(t *testing.T) {
	trueEnergy := func(t float64) float64 { // J since 0
		return 100*min(t, 10) + 500*max(0, t-10)
	}
	s := newFed(t)
	for i := range 50 {
		at := 0.25 + 0.5*float64(i)
		ref := 3 * math.Floor(at/3) // the exporter's last refresh
		p := 100.0
		if ref >= 10 {
			p = 500
		}
		feed(t, s, 0, at, one(map[string]float64{power: p, energy: 1e9 + 1000*trueEnergy(ref)}))
	}
	res := s.Result(10, 20)
	g := res.GPUs[0]
	err := math.Abs(*g.EnergyJ - 5000)
	if g.RefreshS == nil || *g.RefreshS != 3 || err > g.UncertaintyJ || err == 0 {
		t.Errorf("energy %.1f J (truth 5000, error %.1f) ± %.1f, refresh %v", *g.EnergyJ, err, g.UncertaintyJ, g.RefreshS)
	}
	t.Logf("stale: %.1f J, truth 5000 J, bound ± %.1f J", *g.EnergyJ, g.UncertaintyJ)
	if !strings.Contains(strings.Join(res.Warnings, "\n"), "every ~3 s") {
		t.Errorf("warnings %q lack the refresh hint", res.Warnings)
	}
}

// TestEdgesAndExtrapolation covers a window that starts before the first
// sample and ends after the last.
func TestEdgesAndExtrapolation(t *testing.T) {
	s := newFed(t)
	series(t, s, 5, func(t float64) map[string]float64 {
		return map[string]float64{power: 100, energy: 1e6 + 1e5*t}
	})
	res := s.Result(-1, 10) // samples cover [0, 4]
	g := res.GPUs[0]
	if !near(*g.EnergyJ, 1100, 1e-12) || g.UncoveredS != 7 || res.Complete {
		t.Errorf("%+v", g)
	}
	if !strings.Contains(strings.Join(res.Warnings, "\n"), "extrapolated") {
		t.Errorf("warnings %q", res.Warnings)
	}
	// A window inside one sample interval, and one of no length.
	if r := s.Result(1.25, 1.75); !near(*r.GPUs[0].EnergyJ, 50, 1e-12) {
		t.Errorf("inside one interval: %v", *r.GPUs[0].EnergyJ)
	}
	if r := s.Result(2, 2); *r.GPUs[0].EnergyJ != 0 || r.Energy(1, 1) != nil {
		t.Errorf("empty window: %v", *r.GPUs[0].EnergyJ)
	}
}

// TestThrottleDecoding names every defined bit and an undefined one, and
// marks only the clock-limiting bits as throttling.
func TestThrottleDecoding(t *testing.T) {
	got := strings.Join(DecodeEvents(0x1|0x2|0x4|0x8|0x10|0x20|0x40|0x80|0x100|0x400), ",")
	want := "gpu_idle,applications_clocks_setting,sw_power_cap,hw_slowdown,sync_boost,sw_thermal_slowdown," +
		"hw_thermal_slowdown,hw_power_brake_slowdown,display_clock_setting,bit_0x400"
	if got != want {
		t.Errorf("DecodeEvents = %s\nwant %s", got, want)
	}
	for _, tc := range []struct {
		mask uint64
		want bool
	}{{0, false}, {0x1, false}, {0x2 | 0x10 | 0x100, false}, {0x4, true}, {0x8, true}, {0x20, true}, {0x40, true}, {0x80, true}} {
		if Throttling(tc.mask) != tc.want {
			t.Errorf("Throttling(%#x) = %v", tc.mask, !tc.want)
		}
	}
	// Through a page: the old family name, one sample in four throttled.
	s := newFed(t)
	series(t, s, 8, func(t float64) map[string]float64 {
		m := 0.0
		if t == 4 {
			m = 0x4 | 0x40
		}
		return map[string]float64{power: 300, "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS": m}
	})
	res := s.Result(2.5, 5.5) // samples 3, 4, 5 inside; 2 and 6 bracket it
	g := res.GPUs[0]
	if !res.Throttled || g.ClockEventMask != 0x44 || strings.Join(g.ClockEvents, ",") != "sw_power_cap,hw_thermal_slowdown" || *g.ThrottledFrac != 0.2 {
		t.Errorf("mask %#x events %v frac %v", g.ClockEventMask, g.ClockEvents, *g.ThrottledFrac)
	}
	if !strings.Contains(strings.Join(res.Warnings, "\n"), "a confound, like a warm cache): node-a/gpu0 (sw_power_cap, hw_thermal_slowdown; 20% of samples)") {
		t.Errorf("warnings %q", res.Warnings)
	}
	if r := s.Result(0.5, 2.5); r.Throttled {
		t.Errorf("throttled outside the event: %#x", r.GPUs[0].ClockEventMask)
	}
}

// TestResultJSON checks that a result of hostile input encodes (no NaN
// or infinity anywhere).
func TestResultJSON(t *testing.T) {
	s := newFed(t)
	series(t, s, 4, func(t float64) map[string]float64 {
		return map[string]float64{power: math.Inf(1), energy: math.NaN(), "DCGM_FI_DEV_GPU_TEMP": -5, "DCGM_FI_DEV_GPU_UTIL": 50}
	})
	res := s.Result(0, math.Inf(1))
	if _, err := json.Marshal(res); err != nil {
		t.Fatal(err)
	}
	if res.WindowEndS != 3 || res.GPUs[0].EnergyJ != nil || res.Complete || res.Energy(10, 1) != nil {
		t.Errorf("%+v", res)
	}
}
