package gputelemetry

import (
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeGPU is one GPU of a page built by the tests.
type fakeGPU struct {
	idx  int
	uuid string // "" leaves the label out
	host string // "" leaves the label out
	vals map[string]float64
}

const testModel, testDriver = "NVIDIA H100 80GB HBM3", "550.54.15"

// pageOf writes a dcgm-exporter-like page: one family per metric name,
// one series per GPU that has it.
func pageOf(gs ...fakeGPU) string {
	names := map[string]bool{}
	for _, g := range gs {
		for n := range g.vals {
			names[n] = true
		}
	}
	var sorted []string
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	var b strings.Builder
	for _, n := range sorted {
		typ := "gauge"
		if n == "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION" {
			typ = "counter"
		}
		fmt.Fprintf(&b, "# HELP %s test.\n# TYPE %s %s\n", n, n, typ)
		for _, g := range gs {
			if v, ok := g.vals[n]; ok {
				fmt.Fprintf(&b, "%s{%s} %s\n", n, g.labels(), fmtValue(v))
			}
		}
	}
	return b.String()
}

func (g fakeGPU) labels() string {
	l := []string{fmt.Sprintf(`gpu="%d"`, g.idx)}
	if g.uuid != "" {
		l = append(l, `UUID="`+g.uuid+`"`)
	}
	l = append(l, fmt.Sprintf(`pci_bus_id="00000000:%02X:00.0"`, 0x19+g.idx), fmt.Sprintf(`device="nvidia%d"`, g.idx),
		`modelName="`+testModel+`"`)
	if g.host != "" {
		l = append(l, `Hostname="`+g.host+`"`)
	}
	l = append(l, `DCGM_FI_DRIVER_VERSION="`+testDriver+`"`)
	return strings.Join(l, ",")
}

func fmtValue(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	}
	return fmt.Sprint(v)
}

func uuidOf(node string, i int) string {
	h := uint32(2166136261)
	for _, c := range []byte(node) {
		h = (h ^ uint32(c)) * 16777619
	}
	return fmt.Sprintf("GPU-%08x-0000-0000-0000-%012d", h, i)
}

// standIn is a stand-in exporter over HTTP: constant power per GPU and,
// unless noCounter, an energy counter integrating it since an offset.
type standIn struct {
	host      string
	watts     []float64
	noCounter bool
	delay     time.Duration // before answering
	t0        time.Time

	mu    sync.Mutex
	pages int
}

func (x *standIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if x.delay > 0 {
		select {
		case <-time.After(x.delay):
		case <-r.Context().Done():
			return
		}
	}
	el := time.Since(x.t0).Seconds()
	x.mu.Lock()
	x.pages++
	x.mu.Unlock()
	var gs []fakeGPU
	for i, p := range x.watts {
		v := map[string]float64{"DCGM_FI_DEV_POWER_USAGE": p, "DCGM_FI_DEV_GPU_UTIL": 90, "DCGM_FI_DEV_FB_USED": 70000,
			"DCGM_FI_DEV_FB_FREE": 11559, "DCGM_FI_DEV_SM_CLOCK": 1980, "DCGM_FI_DEV_GPU_TEMP": 60, "DCGM_FI_PROF_SM_ACTIVE": 0.75,
			"DCGM_FI_DEV_CLOCKS_EVENT_REASONS": 0}
		if !x.noCounter {
			v["DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"] = math.Round(5e9 + p*el*1000)
		}
		gs = append(gs, fakeGPU{idx: i, uuid: uuidOf(x.host, i), host: x.host, vals: v})
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	fmt.Fprint(w, pageOf(gs...))
}

func serveStandIn(t *testing.T, x *standIn) string {
	t.Helper()
	x.t0 = time.Now()
	srv := httptest.NewServer(x)
	t.Cleanup(srv.Close)
	return srv.URL + "/metrics"
}

// newFed returns a scraper over placeholder URLs for tests that feed it
// pages directly (feed), with no HTTP and exact times.
func newFed(t *testing.T, eps ...Endpoint) *Scraper {
	t.Helper()
	if len(eps) == 0 {
		eps = []Endpoint{{URL: "http://node-a:9400/metrics"}}
	}
	s, err := New(Config{Endpoints: eps, Every: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// feed records body as node i's answer at time at.
func feed(t *testing.T, s *Scraper, i int, at float64, body string) {
	t.Helper()
	p, err := parsePage([]byte(body))
	if err != nil {
		t.Fatalf("page at %v: %v", at, err)
	}
	s.mu.Lock()
	s.nodes[i].scrapes++
	s.record(s.nodes[i], p, at, periodic)
	s.mu.Unlock()
}

// one is a single-GPU page with the given readings.
func one(vals map[string]float64) string {
	return pageOf(fakeGPU{idx: 0, uuid: uuidOf("a", 0), host: "node-a", vals: vals})
}

func near(got, want, rel float64) bool { return math.Abs(got-want) <= rel*math.Abs(want) }
