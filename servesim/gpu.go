package servesim

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// GPUSim sets the simulated GPUs whose telemetry the simulator serves on
// GPUMetricsPath in dcgm-exporter's names, so that energy can be measured
// against a known truth. Each GPU draws
//
//	IdleWatts + WattsPerSeq × running sequences / Count
//
// (the engine's per-sequence power shared evenly, as tensor parallelism
// does), and its energy counter (mJ) is that power integrated exactly over
// the changes of the running count, from an offset that stands for the
// energy used since the driver loaded.
type GPUSim struct {
	Count       int     // GPUs; 0 serves no GPU page
	IdleWatts   float64 // W per GPU with nothing running
	WattsPerSeq float64 // W for the engine per running sequence
	// ClockEvents is the clock event (throttle) reason mask every GPU
	// reports (0x4 software power cap, 0x40 hardware thermal slowdown...);
	// bit 0x1 (GPU idle) is added while nothing runs.
	ClockEvents uint64
}

// GPUMetricsPath is where the GPU page is served: beside the engine's own
// /metrics, as a separate exporter would be on its own port.
const GPUMetricsPath = "/dcgm/metrics"

// Bounds of a GPUSim.
const (
	maxSimGPUs  = 64
	maxSimWatts = 5000
)

// validate reports a GPU setting the simulator cannot serve.
func (g GPUSim) validate() error {
	switch {
	case g.Count < 0 || g.Count > maxSimGPUs:
		return fmt.Errorf("GPU count must be in [0, %d], got %d", maxSimGPUs, g.Count)
	case !(g.IdleWatts >= 0 && g.IdleWatts <= maxSimWatts) || !(g.WattsPerSeq >= 0 && g.WattsPerSeq <= maxSimWatts):
		return fmt.Errorf("GPU watts must be in [0, %d]", maxSimWatts)
	case g.ClockEvents >= 1<<24:
		return errors.New("GPU clock event mask must be below 0x1000000")
	}
	return nil
}

// Fixed features of a simulated GPU.
const (
	simGPUModel  = "serve-sim GPU"
	simDriver    = "0.0-sim"
	simHost      = "serve-sim"
	simFBTotal   = 81559 // MiB
	simMemClock  = 2619  // MHz
	simBusyClock = 1980  // MHz
	simIdleClock = 345   // MHz
	simCapClock  = 1500  // MHz while a clock-limiting event is set
)

// gpuSim integrates the simulated GPUs' power over the running count.
type gpuSim struct {
	cfg        GPUSim
	maxRunning int
	seed       int64
	now        func() time.Time

	mu      sync.Mutex
	running int
	since   time.Time // last change of running
	joules  float64   // per GPU, up to since
}

func newGPUSim(cfg GPUSim, maxRunning int, seed int64, now func() time.Time) *gpuSim {
	return &gpuSim{cfg: cfg, maxRunning: max(maxRunning, 1), seed: seed, now: now, since: now()}
}

// power is one GPU's draw with n sequences running.
func (g *gpuSim) power(n int) float64 {
	return g.cfg.IdleWatts + g.cfg.WattsPerSeq*float64(n)/float64(g.cfg.Count)
}

// setRunning is the scheduler's hook: the energy so far is integrated at
// the old power before the count changes.
func (g *gpuSim) setRunning(n int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if n == g.running {
		return
	}
	t := g.now()
	g.joules += g.power(g.running) * t.Sub(g.since).Seconds()
	g.running, g.since = n, t
}

// read returns the running count, one GPU's power (W) and its energy (J)
// now.
func (g *gpuSim) read() (int, float64, float64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	p := g.power(g.running)
	return g.running, p, g.joules + p*g.now().Sub(g.since).Seconds()
}

// serveGPUs registers the GPU page on m when GPUs are configured and
// returns the scheduler's hook (nil otherwise).
func (s *Server) serveGPUs(m *http.ServeMux) func(int) {
	if s.cfg.GPU.Count == 0 {
		return nil
	}
	g := newGPUSim(s.cfg.GPU, s.cfg.MaxRunning, s.cfg.Seed, time.Now)
	m.HandleFunc("GET "+GPUMetricsPath, g.handle)
	return g.setRunning
}

func (g *gpuSim) handle(w http.ResponseWriter, _ *http.Request) {
	n, p, j := g.read()
	util := 0.0
	if n > 0 {
		util = math.Min(100, 40+60*float64(n)/float64(g.maxRunning))
	}
	clock, events := float64(simBusyClock), g.cfg.ClockEvents
	switch {
	case n == 0:
		clock, events = simIdleClock, events|0x1
	case events&0xEC != 0: // power cap, slowdowns, power brake
		clock = simCapClock
	}
	used := math.Round(0.9 * simFBTotal)
	rows := []struct {
		name, typ, help string
		v               func(i int) float64
	}{
		{"DCGM_FI_DEV_SM_CLOCK", "gauge", "SM clock frequency (in MHz).", func(int) float64 { return clock }},
		{"DCGM_FI_DEV_MEM_CLOCK", "gauge", "Memory clock frequency (in MHz).", func(int) float64 { return simMemClock }},
		{"DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (in C).", func(int) float64 { return math.Round(30 + p/20) }},
		{"DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W).", func(int) float64 { return p }},
		{"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "counter", "Total energy consumption since boot (in mJ).",
			func(i int) float64 { return math.Floor(1e9*float64(i+1) + 1000*j) }},
		{"DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %).", func(int) float64 { return math.Round(util) }},
		{"DCGM_FI_DEV_FB_FREE", "gauge", "Frame buffer memory free (in MiB).", func(int) float64 { return simFBTotal - used }},
		{"DCGM_FI_DEV_FB_USED", "gauge", "Frame buffer memory used (in MiB).", func(int) float64 { return used }},
		{"DCGM_FI_DEV_CLOCKS_EVENT_REASONS", "gauge", "Current clock event reasons (bit mask).", func(int) float64 { return float64(events) }},
		{"DCGM_FI_PROF_SM_ACTIVE", "gauge", "Ratio of cycles an SM has at least 1 warp assigned.", func(int) float64 { return util / 125 }},
	}
	var b bytes.Buffer
	for _, r := range rows {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n", r.name, r.help, r.name, r.typ)
		for i := range g.cfg.Count {
			b.WriteString(r.name + g.labels(i) + " " + strconv.FormatFloat(r.v(i), 'f', -1, 64) + "\n")
		}
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	w.Write(b.Bytes())
}

// labels are dcgm-exporter's labels for GPU i; its UUID follows Seed.
func (g *gpuSim) labels(i int) string {
	h := mix(uint64(g.seed)*0x9e3779b97f4a7c15 + uint64(i))
	return fmt.Sprintf(`{gpu="%d",UUID="GPU-%08x-%04x-%04x-%04x-%012x",pci_bus_id="00000000:%02X:00.0",device="nvidia%d",modelName="%s",Hostname="%s",DCGM_FI_DRIVER_VERSION="%s"}`,
		i, h>>32, h>>16&0xffff, h&0xffff, i, h&0xffffffffffff, 0x18+i, i, simGPUModel, simHost, simDriver)
}
