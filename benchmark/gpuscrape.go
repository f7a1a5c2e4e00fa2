package benchmark

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/servecmp/servecmp/benchmark/gputelemetry"
	"github.com/servecmp/servecmp/benchmark/result"
)

// gpuRun is the GPU telemetry scraper of one run: periodic scrapes of
// every exporter, plus one at each measured step's edges so that the
// window's energy is bracketed by samples. Like the server-metrics
// scraper it runs on a context an interrupt does not cancel, so that the
// drain is still covered. A nil *gpuRun scrapes nothing.
type gpuRun struct {
	s      *gputelemetry.Scraper
	start  time.Time
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
}

// startGPU starts scraping gc's exporters and waits (briefly) for every
// first scrape, so that the counters have a baseline before the warmup.
// Config.Validate has checked gc.
func startGPU(ctx context.Context, gc GPUConfig) *gpuRun {
	if len(gc.Endpoints) == 0 {
		return nil
	}
	s, err := gputelemetry.New(gputelemetry.Config{Endpoints: gc.Endpoints, Every: gc.Every})
	if err != nil {
		return nil
	}
	g := &gpuRun{s: s, start: time.Now(), done: make(chan struct{})}
	s.SetStart(g.start)
	g.ctx, g.cancel = context.WithCancel(context.WithoutCancel(ctx))
	go func() { s.Run(g.ctx); close(g.done) }()
	select {
	case <-s.FirstScrape():
	case <-time.After(firstScrapeWait):
	case <-ctx.Done():
	}
	return g
}

// edge samples every exporter now (a measured step starts or has ended);
// each scrape is bounded by the scraper's timeout.
func (g *gpuRun) edge() {
	if g != nil {
		g.s.ScrapeNow(g.ctx)
	}
}

// stop ends scraping (after a last sample) and waits for it.
func (g *gpuRun) stop() {
	if g != nil {
		g.cancel()
		<-g.done
	}
}

// over summarises the telemetry over [from, to].
func (g *gpuRun) over(from, to time.Time) *result.GPUTelemetry {
	return g.s.Result(from.Sub(g.start).Seconds(), to.Sub(g.start).Seconds())
}

// energy is a measured step's energy: over its t=0 to its last request's
// end (the summary's duration), related to its output tokens and
// successful requests. Nil without telemetry or without a window.
func (g *gpuRun) energy(t0 time.Time, sum *result.Summary) *result.Energy {
	if g == nil || !(sum.DurationS > 0) {
		return nil
	}
	return g.over(t0, t0.Add(durSeconds(sum.DurationS))).Energy(sum.OutputTokens, sum.RequestsOK)
}

// edges samples the server metrics and the GPUs at once: a measured step
// is about to start.
func (r *runner) edges() {
	var wg sync.WaitGroup
	wg.Go(r.metrics.baseline)
	wg.Go(r.gpu.edge)
	wg.Wait()
}

// finishGPU adds the GPU telemetry of the measured window [from, to], its
// warnings (a throttled GPU among them), and the resource contract its
// labels give where the manifest gives none.
func (r *runner) finishGPU(from, to time.Time) {
	if r.gpu == nil {
		return
	}
	res := r.res
	tel := r.gpu.over(from, to)
	res.GPUTelemetry = tel
	res.Warnings = append(res.Warnings, tel.Warnings...)
	res.Warnings = append(res.Warnings, learnContract(&res.Manifest, tel.Contract)...)
}

// learnContract fills the manifest's GPU type, count and driver from the
// exporters' labels where the manifest gives none, and warns where the
// two disagree. The count is learned only from complete telemetry (every
// exporter answered, every selected GPU found).
func learnContract(m *result.Manifest, c result.GPUContract) []string {
	var w []string
	learn := func(key string, field *string, got string) {
		switch {
		case got == "":
		case *field == "":
			*field = got
		case *field != got:
			w = append(w, fmt.Sprintf("manifest %s is %q but the GPU exporters report %q", key, *field, got))
		}
	}
	learn("gpu_type", &m.GPUType, c.GPUType)
	learn("driver_version", &m.DriverVersion, c.DriverVersion)
	switch {
	case c.GPUCount == 0 || c.Partial:
	case m.GPUCount == 0:
		m.GPUCount = c.GPUCount
	case m.GPUCount != c.GPUCount:
		w = append(w, "manifest gpu_count is "+strconv.Itoa(m.GPUCount)+" but the GPU exporters report "+strconv.Itoa(c.GPUCount)+" GPUs for the engine")
	}
	return w
}
