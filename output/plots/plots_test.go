package plots

import (
	"bytes"
	"encoding/xml"
	"image"
	_ "image/png"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"

	"github.com/servecmp/servecmp/compare"
	"github.com/servecmp/servecmp/internal/atomicfile"
	"github.com/servecmp/servecmp/internal/testkit/fixture"
)

func TestPlotsValid(t *testing.T) {
	dir := t.TempDir()
	files, err := Write(dir, fixture.Report(), Options{SLO: map[string]float64{"tpot_ms": 15, "ttft_ms_p99": 150}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"cdf_ttft_ms.png", "cdf_e2e_ms.svg", "cdf_itl_ms.png", "sweep_output_throughput.png", "sweep_ttft_ms_p50.svg",
		"throughput_latency.png", "throughput_latency.svg", "regions_per_rank.png", "regions_per_rank.svg"}
	for _, w := range want {
		if !slices.Contains(files, filepath.Join(dir, w)) {
			t.Errorf("%s not reported as written", w)
		}
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if st, _ := os.Stat(f); st.Mode().Perm() != 0o644 {
			t.Errorf("%s: mode %v, want 0644", f, st.Mode().Perm())
		}
		if len(data) < 5000 {
			t.Errorf("%s: %d bytes, too small for a drawn figure", f, len(data))
		}
		switch {
		case strings.HasSuffix(f, ".png"):
			cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
			if err != nil || format != "png" || cfg.Width < 400 || cfg.Height < 250 {
				t.Errorf("%s: not a valid PNG (%v, %s, %dx%d)", f, err, format, cfg.Width, cfg.Height)
			}
		case strings.HasSuffix(f, ".svg"):
			if root := svgRoot(t, f, data); root != "svg" {
				t.Errorf("%s: root element %q, want svg", f, root)
			}
		default:
			t.Errorf("unexpected file %s", f)
		}
	}
}

func svgRoot(t *testing.T, name string, data []byte) string {
	d := xml.NewDecoder(bytes.NewReader(data))
	root := ""
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return root
		}
		if err != nil {
			t.Errorf("%s: malformed XML: %v", name, err)
			return root
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
}

func figures(t *testing.T, r *compare.Report, o Options) map[string]Figure {
	t.Helper()
	figs, err := Figures(r, o)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]Figure{}
	for _, f := range figs {
		out[f.Name] = f
	}
	return out
}

func isLog(ax plot.Axis) bool {
	_, ok := ax.Scale.(plot.LogScale)
	return ok
}

func TestAxesOfQuantitiesStartAtZero(t *testing.T) {
	figs := figures(t, fixture.Report(), Options{})
	for name, f := range figs {
		for _, row := range f.Panels {
			for _, p := range row {
				if name == "forest" { // metrics on y, B/A on a log x: TestForest
					continue
				}
				if !isLog(p.Y) && p.Y.Min != 0 {
					t.Errorf("%s %q: y axis from %g, want 0", name, p.Title.Text, p.Y.Min)
				}
				if !isLog(p.X) && p.X.Min > 0 && name != "regions_per_rank" {
					t.Errorf("%s %q: x axis from %g, want 0", name, p.Title.Text, p.X.Min)
				}
				for _, l := range []string{p.X.Label.Text, p.Y.Label.Text} {
					if name != "regions_per_rank" || l != "" {
						if !strings.Contains(l, "(") && !strings.Contains(l, "tokens/s") && !strings.HasPrefix(l, "fraction of") {
							t.Errorf("%s: axis label %q names no unit", name, l)
						}
					}
				}
			}
		}
	}
	if f := figs["cdf_itl_ms"]; f.Panels[0][0].Y.Label.Text != "fraction of gaps" {
		t.Errorf("ITL CDF y label %q, want fraction of gaps", f.Panels[0][0].Y.Label.Text)
	}
	if f := figs["cdf_ttft_ms"]; f.Panels[0][0].Y.Label.Text != "fraction of requests" {
		t.Errorf("TTFT CDF y label %q, want fraction of requests", f.Panels[0][0].Y.Label.Text)
	}
}

// TestCDFAxis: a sample spanning two decades gets a log axis over whole
// decades; a narrow sample with a far tail a linear axis from 0 that ends
// past p99 and says so; a narrow sample without one a linear axis to its
// maximum.
func TestCDFAxis(t *testing.T) {
	spread := []float64{0, 0.5, 1, 2, 3, 5, 8, 13, 40, 80}
	tail := make([]float64, 0, 1000)
	for i := range 999 {
		tail = append(tail, 2+float64(i%60)/10)
	}
	tail = append(tail, 80)
	narrow := []float64{10, 11, 12, 13, 14}
	// Chunks that arrived together give gaps near 0: they do not stretch
	// the axis below a tenth of the median.
	coalesced := []float64{0.001, 0.002, 0.003, 3, 4, 4, 4, 5, 5, 6, 90}
	for _, c := range []struct {
		name      string
		v         []float64
		log       bool
		min, max  float64
		noteHas   string
		wantFloor float64
	}{
		{"spread", spread, true, 0.1, 80 * 1.15, "values under 0.1 ms drawn at 0.1 ms", 0.1},
		{"coalesced", coalesced, true, 0.1, 90 * 1.15, "values under 0.1 ms drawn at 0.1 ms", 0.1},
		{"tail", tail, false, 0, 7.9 * 1.05, "past p99", 0},
		{"narrow", narrow, false, 0, 14 * 1.05, "", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := cdf(compare.LatencySample{Name: "itl_ms", A: c.v, B: c.v}, [2]string{"A", "B"})
			if err != nil {
				t.Fatal(err)
			}
			p := f.Panels[0][0]
			if isLog(p.X) != c.log {
				t.Errorf("log x = %v, want %v", isLog(p.X), c.log)
			}
			if !near(p.X.Min, c.min) || !near(p.X.Max, c.max) {
				t.Errorf("x axis [%g, %g], want [%g, %g]", p.X.Min, p.X.Max, c.min, c.max)
			}
			if p.Y.Min != 0 || p.Y.Max != 1 {
				t.Errorf("y axis [%g, %g], want [0, 1]", p.Y.Min, p.Y.Max)
			}
			if !strings.Contains(p.Title.Text, c.noteHas) || c.noteHas == "" && strings.Contains(p.Title.Text, "\n") {
				t.Errorf("title %q, want a note %q", p.Title.Text, c.noteHas)
			}
			if want := "ITL, gap between streamed chunks (ms)"; p.X.Label.Text != want && p.X.Label.Text != want+", log scale" || isLog(p.X) != strings.HasSuffix(p.X.Label.Text, "log scale") {
				t.Errorf("x label %q", p.X.Label.Text)
			}
			// The figure draws without panicking on the log axis.
			drawPNG(t, f)
		})
	}
}

func TestLogTicks(t *testing.T) {
	var labels []string
	for _, tk := range (logTicks{}).Ticks(0.1, 115) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if got := strings.Join(labels, " "); got != "0.1 1 10 100" {
		t.Errorf("labels %q, want 0.1 1 10 100", got)
	}
	if n := len((logTicks{}).Ticks(0.1, 115)); n != 28 {
		t.Errorf("%d ticks in [0.1, 115], want 28 (9 per decade and 100)", n)
	}
}

func near(a, b float64) bool {
	d := a - b
	return d < 1e-9*max(1, b) && d > -1e-9*max(1, b)
}

func sweepReport(offered []float64, ttft func(float64) float64) *compare.Report {
	var pts []compare.SweepPoint
	for _, v := range offered {
		pts = append(pts, compare.SweepPoint{Offered: v, OutputThroughput: 100 * v / (1 + v/16), RequestThroughput: 3 * v / (1 + v/16),
			TTFTP50: ttft(v), TTFTP99: 2 * ttft(v), TPOTP50: 5 + v/4, E2EP50: 200 + v, E2EP99: 300 + 2*v})
	}
	return &compare.Report{Sweeps: []compare.SweepCurve{
		{Side: "a", Path: "dir/a-sweep.json", Kind: "concurrency", Points: pts},
		{Side: "b", Path: "b-sweep.json", Kind: "concurrency", Points: pts[:len(pts)-1]},
	}}
}

func TestThroughputLatency(t *testing.T) {
	rep := sweepReport([]float64{1, 2, 4, 8, 16, 32, 64, 128, 256}, func(v float64) float64 { return 20 * v })
	figs := figures(t, rep, Options{SLO: map[string]float64{"ttft_ms_p99": 1000, "tpot_ms": 40}})
	f, ok := figs["throughput_latency"]
	if !ok {
		t.Fatal("no throughput_latency figure")
	}
	if len(f.Panels) != 2 || len(f.Panels[0]) != 2 {
		t.Fatalf("panels %dx%d, want 2x2", len(f.Panels), len(f.Panels[0]))
	}
	tpot, ttft := f.Panels[0][0], f.Panels[0][1]
	// TTFT from 20 to 10240 ms spans decades: log. TPOT 5.25..69 does not,
	// and the SLO at 40 ms lies inside the axis.
	if !isLog(ttft.X) || isLog(tpot.X) {
		t.Errorf("log x: TTFT %v, TPOT %v; want true, false", isLog(ttft.X), isLog(tpot.X))
	}
	if tpot.X.Min != 0 || tpot.X.Max < 69 {
		t.Errorf("TPOT axis [%g, %g]", tpot.X.Min, tpot.X.Max)
	}
	if ttft.Y.Min != 0 || tpot.Y.Min != 0 || f.Panels[1][0].Y.Min != 0 {
		t.Error("throughput axes do not start at 0")
	}
	if got := tpot.Y.Label.Text + "|" + f.Panels[1][0].Y.Label.Text; got != "output tokens/s, total|output tokens/s per user" {
		t.Errorf("y labels %q", got)
	}
	drawPNG(t, f)
	for _, bad := range []map[string]float64{{"ttft": 3}, {"tpot_ms_p99": 50}, {"ttft_ms_p95": 1}, {"e2e_ms": 1}, {"ttft_ms": -1}, {"tpot_ms_p": 1}} {
		if _, err := Figures(rep, Options{SLO: bad}); err == nil {
			t.Errorf("SLO %v accepted", bad)
		}
	}
}

// drawPNG draws a figure to PNG and checks the size of the result.
func drawPNG(t *testing.T, f Figure) {
	t.Helper()
	dir := t.TempDir()
	d, err := atomicfile.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	path := filepath.Join(dir, f.Name+".png")
	if err := f.save(d, f.Name+".png", "png"); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Size() < 20000 {
		t.Errorf("%s: %v, %d bytes", path, err, st.Size())
	}
}

func TestPerUser(t *testing.T) {
	pt := compare.SweepPoint{Offered: 8, OutputThroughput: 400, RequestThroughput: 2, E2EP50: 2000}
	if got := perUser("concurrency", pt); got != 50 {
		t.Errorf("closed loop: %g tok/s per user, want 400/8", got)
	}
	// Open loop at 2 req/s with 2 s requests: 4 in flight.
	if got := perUser("rate", pt); got != 100 {
		t.Errorf("open loop: %g tok/s per user, want 400/4", got)
	}
	if got := perUser("rate", compare.SweepPoint{OutputThroughput: 1}); got == got {
		t.Errorf("unknown in-flight count: %g, want NaN", got)
	}
}

func TestSweepLogAxis(t *testing.T) {
	rep := sweepReport([]float64{1, 4, 16, 64, 256}, func(v float64) float64 { return 30 })
	figs := figures(t, rep, Options{})
	p := figs["sweep_output_throughput"].Panels[0][0]
	if !isLog(p.X) || p.X.Min != 1 || !near(p.X.Max, 256*1.15) {
		t.Errorf("offered 1..256: x log=%v [%g, %g], want log [1, 294.4]", isLog(p.X), p.X.Min, p.X.Max)
	}
	if isLog(p.Y) || p.Y.Min != 0 {
		t.Errorf("throughput axis log=%v from %g, want linear from 0", isLog(p.Y), p.Y.Min)
	}
	if f := figs["sweep_ttft_ms_p50"]; f.Panels[0][0].Y.Min != 0 {
		t.Errorf("flat TTFT axis from %g", f.Panels[0][0].Y.Min)
	}
}

// TestLegendOutsideData: the legend strip lies right of every panel's data
// area, so that it covers no point.
func TestLegendOutsideData(t *testing.T) {
	for name, f := range figures(t, fixture.Report(), Options{SLO: map[string]float64{"tpot_ms": 15}}) {
		c, err := draw.NewFormattedCanvas(f.W, f.H, "png")
		if err != nil {
			t.Fatal(err)
		}
		dc := draw.New(c)
		legend, panels := f.layout(dc)
		if legend.Size().X <= 0 {
			t.Errorf("%s: no legend strip", name)
			continue
		}
		for i, row := range f.Panels {
			for k, p := range row {
				data := p.DataCanvas(panels[i][k])
				if data.Max.X >= legend.Min.X {
					t.Errorf("%s panel %d,%d: data area ends at x=%v, legend starts at %v", name, i, k, data.Max.X, legend.Min.X)
				}
			}
		}
	}
}

func TestNiceTicks(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   string
	}{
		{0, 525, "0 100 200 300 400 500"},
		{0, 1.05, "0.0 0.2 0.4 0.6 0.8 1.0"},
		{0, 18.9, "0 5 10 15"},
		{0, 3600, "0 1000 2000 3000"},
	} {
		var got []string
		for _, tk := range (niceTicks{}).Ticks(c.lo, c.hi) {
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if s := strings.Join(got, " "); s != c.want {
			t.Errorf("[%g, %g]: labels %q, want %q", c.lo, c.hi, s, c.want)
		}
	}
}

// TestDegenerateInputs: figures of thin or odd data draw without error:
// one sweep step, a rate sweep with TPOT 0 (one output token), a latency
// sample of one side only, a constant sample, all-zero gaps.
func TestDegenerateInputs(t *testing.T) {
	one := []compare.SweepPoint{{Offered: 2, OutputThroughput: 50, RequestThroughput: 1, TTFTP50: 30, TTFTP99: 40, E2EP50: 100, E2EP99: 120}}
	rep := &compare.Report{
		Sweeps: []compare.SweepCurve{{Side: "a", Path: "a.json", Kind: "rate", Points: one}},
		Latency: []compare.LatencySample{
			{Name: "ttft_ms", A: []float64{5}},
			{Name: "e2e_ms", A: []float64{7, 7, 7}, B: []float64{7}},
			{Name: "itl_ms", A: []float64{0, 0, 0}, B: []float64{0}},
			{Name: "tpot_ms"},
		},
		GPU: &compare.GPUTime{},
	}
	figs, err := Figures(rep, Options{SLO: map[string]float64{"tpot_ms": 10}})
	if err != nil {
		t.Fatal(err)
	}
	names := []string{}
	d, err := atomicfile.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, f := range figs {
		names = append(names, f.Name)
		if err := f.save(d, f.Name+".svg", "svg"); err != nil {
			t.Errorf("%s: %v", f.Name, err)
		}
	}
	if slices.Contains(names, "regions_per_rank") || slices.Contains(names, "cdf_tpot_ms") {
		t.Errorf("figures %v: region bars without ranks or a CDF without samples", names)
	}
	if !slices.Contains(names, "throughput_latency") || !slices.Contains(names, "cdf_itl_ms") {
		t.Errorf("figures %v", names)
	}
}
