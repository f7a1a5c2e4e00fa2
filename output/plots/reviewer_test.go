package plots

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/servecmp/servecmp/compare"
	"github.com/servecmp/servecmp/internal/testkit/fixture"
)

// svgText draws f as SVG and returns the document, whose text a reader
// sees.
func svgText(t *testing.T, f Figure) string {
	t.Helper()
	c := vgsvg.New(f.W, f.H)
	f.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// named gives the fixture's sides an engine and model each.
func named() *compare.Report {
	r := fixture.Report()
	for i := range r.Contract {
		switch r.Contract[i].Name {
		case "engine":
			r.Contract[i].A, r.Contract[i].B = "vllm", "sglang"
		case "model":
			r.Contract[i].A, r.Contract[i].B = "llama-8b", "llama-8b"
		}
	}
	return r
}

// TestLegendsNameTheSystems: every legend of A and B says which system
// each is, not which file.
func TestLegendsNameTheSystems(t *testing.T) {
	r := named()
	r.Energy = fixture.EnergyReport(10)
	figs := figures(t, r, Options{})
	for _, name := range []string{"cdf_ttft_ms", "sweep_output_throughput", "throughput_latency", "forest", "energy_per_output_token_j"} {
		f, ok := figs[name]
		if !ok {
			t.Errorf("no figure %s", name)
			continue
		}
		svg := svgText(t, f)
		for _, want := range []string{"A: vllm llama-8b", "B: sglang llama-8b"} {
			if !strings.Contains(svg, want) {
				t.Errorf("%s: the legend does not say %q", name, want)
			}
		}
		if strings.Contains(svg, ".json") {
			t.Errorf("%s: a file name in the figure", name)
		}
	}
	// Alike engines and models: the first declared difference tells them apart.
	r = fixture.Report()
	r.Differences = append(r.Differences, compare.Difference{Field: "manifest.extra.llamacpp_slots", A: "1", B: "4", Intentional: true})
	if got := svgText(t, figures(t, r, Options{})["cdf_ttft_ms"]); !strings.Contains(got, "llamacpp_slots 1") || !strings.Contains(got, "llamacpp_slots 4") {
		t.Errorf("sides alike but for the slots: legend does not name them")
	}
}

// TestSweepPlotsDrawTheirSLO: the TTFT and TPOT sweep figures draw the
// SLO threshold of their metric and percentile, and name it.
func TestSweepPlotsDrawTheirSLO(t *testing.T) {
	figs := figures(t, named(), Options{SLO: map[string]float64{"ttft_ms_p50": 40, "tpot_ms": 15, "ttft_ms_p99": 150}})
	for name, want := range map[string]string{"sweep_ttft_ms_p50": "SLO TTFT p50 ≤ 40 ms", "sweep_tpot_ms_p50": "SLO TPOT ≤ 15 ms"} {
		svg := svgText(t, figs[name])
		if !strings.Contains(svg, want) {
			t.Errorf("%s: no %q", name, want)
		}
		if strings.Contains(svg, "p99 ≤ 150") {
			t.Errorf("%s draws the p99 objective", name)
		}
	}
	if svg := svgText(t, figs["sweep_output_throughput"]); strings.Contains(svg, "SLO") {
		t.Error("a throughput figure draws an SLO")
	}
}

// TestLogAxesSaySo: every logarithmic axis of every figure says so in
// its label, and no linear one does.
func TestLogAxesSaySo(t *testing.T) {
	r := named()
	for i := range r.Latency { // a spread that makes the CDFs logarithmic
		for k := range r.Latency[i].A {
			r.Latency[i].A[k] *= math.Pow(10, float64(k%4))
		}
	}
	n := 0
	for name, f := range figures(t, r, Options{}) {
		for _, row := range f.Panels {
			for _, p := range row {
				for _, ax := range []*plot.Axis{&p.X, &p.Y} {
					if _, log := ax.Scale.(plot.LogScale); log != strings.HasSuffix(ax.Label.Text, logNote) {
						t.Errorf("%s: axis %q, logarithmic %v", name, ax.Label.Text, log)
					} else if log {
						n++
					}
				}
			}
		}
	}
	if n == 0 {
		t.Error("no logarithmic axis drawn: the test tests nothing")
	}
}

// TestForest: the forest opens the figures, needs no records, gives
// every metric with a ratio a row, and puts each at B/A.
func TestForest(t *testing.T) {
	r := named()
	r.Latency = nil // no records
	figs, err := Figures(r, Options{})
	if err != nil || len(figs) == 0 || figs[0].Name != "forest" {
		t.Fatalf("first figure %v, err %v", figs, err)
	}
	p := figs[0].Panels[0][0]
	if _, ok := p.X.Scale.(plot.LogScale); !ok || !strings.Contains(p.X.Label.Text, "B/A") {
		t.Errorf("x axis %q", p.X.Label.Text)
	}
	rows := forestRows(r.Metrics)
	if len(rows) < len(r.Metrics)/2 {
		t.Fatalf("%d rows of %d metrics", len(rows), len(r.Metrics))
	}
	svg := svgText(t, figs[0])
	for _, m := range r.Metrics {
		if !strings.Contains(svg, m.Name) {
			t.Errorf("forest lacks %s", m.Name)
		}
	}
	for _, row := range rows {
		if !math.IsNaN(row.lo) && (row.lo > row.ratio+1e-9 || row.hi < row.ratio-1e-9) {
			t.Logf("%s: B/A %.3g outside its interval [%.3g, %.3g] (the interval is the bootstrap's, the point the medians')", row.name, row.ratio, row.lo, row.hi)
		}
	}
	if _, ok := forest(&compare.Report{}, [2]string{"A", "B"}); ok {
		t.Error("a forest of no metrics")
	}
}

// TestLabelsDoNotOverprint: point labels placed around a tight cluster
// of points overlap neither each other nor any point, and stay inside
// the area.
func TestLabelsDoNotOverprint(t *testing.T) {
	area := vg.Rectangle{Max: vg.Point{X: 300, Y: 200}}
	var at, size []vg.Point
	for i := range 40 { // two curves crossing in the middle
		x := vg.Length(20 + 6*i)
		at = append(at, vg.Point{X: x, Y: 100 + vg.Length(i%3)}, vg.Point{X: x + 2, Y: 102 - vg.Length(i%2)})
		size = append(size, vg.Point{X: 14, Y: 8}, vg.Point{X: 14, Y: 8})
	}
	placed := placeLabels(at, size, area)
	shown := 0
	for i, r := range placed {
		if r == (vg.Rectangle{}) {
			continue
		}
		shown++
		if !within(r, area) {
			t.Errorf("label %d outside the area: %v", i, r)
		}
		for k, o := range placed {
			if k != i && o != (vg.Rectangle{}) && overlapsAny(r, []vg.Rectangle{o}) {
				t.Errorf("labels %d and %d overlap", i, k)
			}
		}
		for k, p := range at {
			if p.X > r.Min.X && p.X < r.Max.X && p.Y > r.Min.Y && p.Y < r.Max.Y {
				t.Errorf("label %d covers point %d", i, k)
			}
		}
	}
	if shown == 0 || shown == len(at) {
		t.Errorf("%d of %d labels shown: the cluster should keep some and leave some out", shown, len(at))
	}
}
