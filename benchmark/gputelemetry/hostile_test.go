package gputelemetry

import (
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/servecmp/servecmp/benchmark/result"
)

const lbl = `gpu="0",UUID="GPU-aaaaaaaa-0000-0000-0000-000000000000",Hostname="h"`

// TestHostilePage feeds single series the parser must drop, count or
// bound, and pages it must refuse.
func TestHostilePage(t *testing.T) {
	cases := []struct {
		name, body string
		check      func(p page) bool
	}{
		{"NaN", "DCGM_FI_DEV_POWER_USAGE{" + lbl + "} NaN\n", func(p page) bool { return p.invalid[fPower] == 1 && len(p.gpus) == 0 }},
		{"+Inf", "DCGM_FI_DEV_POWER_USAGE{" + lbl + "} +Inf\n", func(p page) bool { return p.invalid[fPower] == 1 }},
		{"-Inf", "DCGM_FI_DEV_GPU_TEMP{" + lbl + "} -Inf\n", func(p page) bool { return p.invalid[fTemp] == 1 }},
		{"negative", "DCGM_FI_DEV_POWER_USAGE{" + lbl + "} -3\n", func(p page) bool { return p.invalid[fPower] == 1 }},
		{"huge", "DCGM_FI_DEV_POWER_USAGE{" + lbl + "} 1e300\n", func(p page) bool { return p.invalid[fPower] == 1 }},
		{"int64 blank", "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{" + lbl + "} 9223372036854775794\n", func(p page) bool { return p.invalid[fEnergy] == 1 }},
		{"fp64 blank", "DCGM_FI_DEV_POWER_USAGE{" + lbl + "} 140737488355328\n", func(p page) bool { return p.invalid[fPower] == 1 }},
		{"int32 blank", "DCGM_FI_DEV_GPU_TEMP{" + lbl + "} 2147483632\n", func(p page) bool { return p.invalid[fTemp] == 1 }},
		{"blank mask", "DCGM_FI_DEV_CLOCKS_EVENT_REASONS{" + lbl + "} 9223372036854775794\n", func(p page) bool { return p.invalid[fEvents] == 1 }},
		{"fractional mask", "DCGM_FI_DEV_CLOCKS_EVENT_REASONS{" + lbl + "} 4.5\n", func(p page) bool { return p.invalid[fEvents] == 1 }},
		{"util over 100", "DCGM_FI_DEV_GPU_UTIL{" + lbl + "} 101\n", func(p page) bool { return p.invalid[fUtil] == 1 }},
		{"no labels", "DCGM_FI_DEV_POWER_USAGE 300\n", func(p page) bool { return p.unlabeled == 1 && len(p.gpus) == 0 }},
		{"index not a number", `DCGM_FI_DEV_POWER_USAGE{gpu="zero"} 300` + "\n", func(p page) bool { return p.unlabeled == 1 }},
		{"index only", `DCGM_FI_DEV_POWER_USAGE{gpu="3"} 300` + "\n", func(p page) bool { return len(p.gpus) == 1 && keyOf(p.gpus[0].id) == "#3" }},
		{"duplicate", "DCGM_FI_DEV_POWER_USAGE{" + lbl + `,GPU_I_ID="1"} 300` + "\nDCGM_FI_DEV_POWER_USAGE{" + lbl + `,GPU_I_ID="2"} 900` + "\n",
			func(p page) bool { return p.dups == 1 && p.gpus[0].v[fPower] == 300 }},
		{"both event names", "DCGM_FI_DEV_CLOCKS_EVENT_REASONS{" + lbl + "} 4\nDCGM_FI_DEV_CLOCK_THROTTLE_REASONS{" + lbl + "} 64\n",
			func(p page) bool { return p.gpus[0].v[fEvents] == 0x44 && p.dups == 0 }},
		{"long label", `DCGM_FI_DEV_POWER_USAGE{gpu="0",modelName="` + strings.Repeat("é", 5000) + `"} 1` + "\n",
			func(p page) bool {
				m := p.gpus[0].id.Model
				return len(m) <= maxLabel && len(m) >= maxLabel-1 && utf8.ValidString(m)
			}},
		{"control characters", `DCGM_FI_DEV_POWER_USAGE{gpu="0",Hostname="a\nb"} 1` + "\n", func(p page) bool { return p.gpus[0].id.Host == "ab" }},
		{"unknown families", "foo 1\nbar{gpu=\"0\"} 2\n", func(p page) bool { return len(p.gpus) == 0 && p.unlabeled == 0 }},
		{"histogram", "# TYPE DCGM_FI_DEV_POWER_USAGE histogram\nDCGM_FI_DEV_POWER_USAGE_bucket{" + lbl + `,le="+Inf"} 1` + "\n",
			func(p page) bool { return len(p.gpus) == 0 }},
	}
	for _, tc := range cases {
		p, err := parsePage([]byte(tc.body))
		if err != nil || !tc.check(p) {
			t.Errorf("%s: %v %+v", tc.name, err, p)
		}
	}
	var many strings.Builder
	for i := range maxGPUsPerNode + 5 {
		fmt.Fprintf(&many, "DCGM_FI_DEV_POWER_USAGE{gpu=\"%d\"} 1\n", i)
	}
	if p, err := parsePage([]byte(many.String())); err != nil || len(p.gpus) != maxGPUsPerNode || p.overCap != 5 {
		t.Errorf("over the GPU bound: %v, %d GPUs, %d over", err, len(p.gpus), p.overCap)
	}
	for name, body := range map[string]string{
		"garbage":      "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\" 1\n",
		"bad utf8":     "DCGM_FI_DEV_POWER_USAGE{gpu=\"\xff\"} 1\n",
		"many series":  strings.Repeat("x 1\n", maxPageSeries+1),
		"type clashes": "# TYPE a gauge\n# TYPE a counter\na 1\n",
	} {
		if _, err := parsePage([]byte(body)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestHostileExporters scrapes one good node beside a slow one, a down
// one, a missing one, a redirecting one and one with an oversized page:
// the good node's energy survives, each other is a warning, and the
// result is not complete.
func TestHostileExporters(t *testing.T) {
	good := serveStandIn(t, &standIn{host: "good", watts: []float64{300}})
	slow := serveStandIn(t, &standIn{host: "slow", watts: []float64{300}, delay: 5 * time.Second})
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL + "/metrics"
	down.Close()
	missing := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(missing.Close)
	redirect := httptest.NewServer(http.RedirectHandler(good, http.StatusFound))
	t.Cleanup(redirect.Close)
	big := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		line := "# " + strings.Repeat("x", 1<<16) + "\n"
		n := maxPageBytes/len(line) + 2
		w.Header().Set("Content-Length", strconv.Itoa(n*len(line)))
		for range n {
			if _, err := w.Write([]byte(line)); err != nil {
				return
			}
		}
	}))
	t.Cleanup(big.Close)
	urls := []string{good, slow, downURL, missing.URL + "/metrics", redirect.URL + "/metrics", big.URL + "/metrics"}
	var eps []Endpoint
	for _, u := range urls {
		eps = append(eps, Endpoint{URL: u})
	}
	s, err := New(Config{Endpoints: eps, Every: 100 * time.Millisecond, Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	begin := time.Now()
	ws, we := runWindow(t, s, 500*time.Millisecond)
	if el := time.Since(begin); el > 4*time.Second {
		t.Errorf("run took %v: a slow exporter held it up", el)
	}
	res := s.Result(ws, we)
	e := res.Energy(100, 1)
	// Six exporters on a shared machine: the good node's sample times
	// jitter, so the check is the reported bound, not 1%.
	if e == nil || e.GPUs != 1 || math.Abs(e.Joules-300*(we-ws)) > e.UncertaintyJ+3 || res.Complete || e.Complete {
		t.Fatalf("energy %+v complete %v; warnings %q", e, res.Complete, res.Warnings)
	}
	all := strings.Join(res.Warnings, "\n")
	for _, want := range []string{
		redactedHost(slow) + "/metrics: all", "exceeded", // slow: every scrape timed out
		redactedHost(downURL) + "/metrics: all", // down
		"exporter missing",                      // 404: polling stopped
		"302 Found",                             // redirect not followed
		"page over",                             // oversized
	} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings lack %q:\n%s", want, all)
		}
	}
	if res.Exporters[3].Scrapes != 0 || res.Exporters[3].ScrapeErrors != 1 {
		t.Errorf("missing exporter polled on: %+v", res.Exporters[3])
	}
}

func redactedHost(u string) string { return strings.TrimSuffix(u, "/metrics") }

// TestSelection picks GPUs by index and UUID and names the one missing.
func TestSelection(t *testing.T) {
	var gs []fakeGPU
	for i := range 4 {
		gs = append(gs, fakeGPU{idx: i, uuid: uuidOf("n", i), host: "n", vals: map[string]float64{power: float64(100 * (i + 1))}})
	}
	s := newFed(t, Endpoint{URL: "http://n:9400/metrics", GPUs: []string{"1", uuidOf("n", 3), "7"}})
	for i := range 3 {
		feed(t, s, 0, float64(i), pageOf(gs...))
	}
	res := s.Result(0, 2)
	if len(res.GPUs) != 2 || res.GPUs[0].Index != "1" || res.GPUs[1].Index != "3" || res.Contract.GPUCount != 2 || res.Complete {
		t.Fatalf("%+v", res)
	}
	if e := res.Energy(0, 0); !near(e.Joules, 2*600, 1e-12) || e.PerOutputTokenJ != nil || e.PerRequestJ != nil || *e.TokensPerSPerGPU != 0 {
		t.Errorf("%+v", e)
	}
	if all := strings.Join(res.Warnings, "\n"); !strings.Contains(all, "selected GPU(s) 7 not found; it reports") {
		t.Errorf("warnings %q", res.Warnings)
	}
}

// TestDuplicateAcrossExporters counts a GPU two exporters report once.
func TestDuplicateAcrossExporters(t *testing.T) {
	s := newFed(t, Endpoint{URL: "http://a:9400/metrics"}, Endpoint{URL: "http://b:9400/metrics"})
	for i := range 3 {
		body := one(map[string]float64{power: 100})
		feed(t, s, 0, float64(i), body)
		feed(t, s, 1, float64(i), body)
	}
	res := s.Result(0, 2)
	if e := res.Energy(1, 1); len(res.GPUs) != 1 || !near(e.Joules, 200, 1e-12) {
		t.Fatalf("%+v", res.GPUs)
	}
	if !strings.Contains(strings.Join(res.Warnings, "\n"), "counted once") {
		t.Errorf("warnings %q", res.Warnings)
	}
}

// TestThinning keeps a long recording within maxRows per GPU, keeps the
// pinned edge samples, and still gets the energy right.
func TestThinning(t *testing.T) {
	s := newFed(t)
	for i := range 3 * maxRows {
		p, _ := parsePage([]byte(one(map[string]float64{power: 250, energy: 1e6 + 250e3*float64(i)})))
		s.mu.Lock()
		how := periodic
		if i == 1000 || i == 5000 {
			how = edge
		}
		s.record(s.nodes[0], p, float64(i), how)
		s.mu.Unlock()
	}
	g := s.nodes[0].gpus[uuidOf("a", 0)]
	pinned := 0
	for _, r := range g.rows {
		if r.pinned {
			pinned++
		}
	}
	if len(g.rows) > maxRows || pinned != 2 || g.rows[0].t != 0 || g.rows[len(g.rows)-1].t != 3*maxRows-1 {
		t.Errorf("%d rows, %d pinned, first %v last %v", len(g.rows), pinned, g.rows[0].t, g.rows[len(g.rows)-1].t)
	}
	res := s.Result(1000, 5000)
	if !near(*res.GPUs[0].EnergyJ, 250*4000, 1e-12) || len(res.Power) > result.MaxPowerPoints {
		t.Errorf("energy %v, %d power points", *res.GPUs[0].EnergyJ, len(res.Power))
	}
}

// TestConfig refuses what the scraper cannot run.
func TestConfig(t *testing.T) {
	for name, cfg := range map[string]Config{
		"none":      {},
		"not http":  {Endpoints: []Endpoint{{URL: "file:///etc/passwd"}}},
		"no host":   {Endpoints: []Endpoint{{URL: "http:///metrics"}}},
		"twice":     {Endpoints: []Endpoint{{URL: "http://a/metrics"}, {URL: "http://a/metrics"}}},
		"bad token": {Endpoints: []Endpoint{{URL: "http://a/metrics", GPUs: []string{"GPU-zz"}}}},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := New(Config{Endpoints: []Endpoint{{URL: "http://user:secret@a/x", GPUs: []string{"x"}}}}); err == nil || strings.Contains(err.Error(), "secret") {
		t.Errorf("error %v", err)
	}
	for in, want := range map[string]string{"": "", "all": "", "0, 1": "0|1", "GPU-04c3b593-0000-0000-0000-000000000000": "GPU-04c3b593-0000-0000-0000-000000000000"} {
		got, err := ParseGPUs(in)
		if err != nil || strings.Join(got, "|") != want {
			t.Errorf("ParseGPUs(%q) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"a", "-1", "0,,1", "GPU-", "GPU-xyz", "70000"} {
		if _, err := ParseGPUs(in); err == nil {
			t.Errorf("ParseGPUs(%q) accepted", in)
		}
	}
}

// FuzzParsePage: whatever the page, parsing does not panic and every kept
// value and label is within its bounds.
func FuzzParsePage(f *testing.F) {
	f.Add([]byte(one(map[string]float64{power: 300, energy: 1e9, "DCGM_FI_DEV_CLOCKS_EVENT_REASONS": 4})))
	f.Add([]byte("DCGM_FI_DEV_POWER_USAGE{" + lbl + "} NaN\nDCGM_FI_DEV_POWER_USAGE{" + lbl + "} 2\n"))
	f.Add([]byte("# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter\nDCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"1\"} 9223372036854775794\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := parsePage(body)
		if err != nil {
			return
		}
		if len(p.gpus) > maxGPUsPerNode {
			t.Fatalf("%d GPUs", len(p.gpus))
		}
		for _, r := range p.gpus {
			for f, v := range r.v {
				if !math.IsNaN(v) && !field(f).valid(v) {
					t.Fatalf("field %d kept %v", f, v)
				}
			}
			for _, l := range []string{r.id.Index, r.id.UUID, r.id.Model, r.id.Host, r.id.Driver, r.id.PCIBusID, r.id.Device} {
				if len(l) > maxLabel || !utf8.ValidString(l) {
					t.Fatalf("label %q", l)
				}
			}
		}
	})
}
