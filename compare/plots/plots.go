// Package plots draws a compare.Report with gonum/plot: per-request latency
// CDFs of A and B, throughput and latency against offered load from sweep
// results, and stacked GPU-busy bars by region per rank. Every figure is
// written as PNG and SVG. Latencies are in ms, GPU time in ms.
package plots

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/servecmp/servecmp/compare"
)

var (
	colorA = color.RGBA{R: 31, G: 119, B: 180, A: 255}
	colorB = color.RGBA{R: 214, G: 39, B: 40, A: 255}
	// regionColors follow the region report order.
	regionColors = []color.Color{
		color.RGBA{R: 31, G: 119, B: 180, A: 255},
		color.RGBA{R: 255, G: 127, B: 14, A: 255},
		color.RGBA{R: 44, G: 160, B: 44, A: 255},
		color.RGBA{R: 148, G: 103, B: 189, A: 255},
		color.RGBA{R: 127, G: 127, B: 127, A: 255},
	}
)

// Write draws every figure the report has data for into dir and returns
// the files written.
func Write(dir string, r *compare.Report) ([]string, error) {
	var files []string
	save := func(p *plot.Plot, name string, w, h vg.Length) error {
		for _, ext := range []string{".png", ".svg"} {
			path := filepath.Join(dir, name+ext)
			if err := p.Save(w, h, path); err != nil {
				return err
			}
			files = append(files, path)
		}
		return nil
	}
	for _, s := range r.Latency {
		p, err := cdf(s)
		if err != nil {
			return files, err
		}
		if err := save(p, "cdf_"+s.Name, 6*vg.Inch, 4*vg.Inch); err != nil {
			return files, err
		}
	}
	if len(r.Sweeps) > 0 {
		for _, fig := range []struct {
			name, ylabel string
			get          func(compare.SweepPoint) float64
		}{
			{"sweep_output_throughput", "output tokens/s", func(p compare.SweepPoint) float64 { return p.OutputThroughput }},
			{"sweep_request_throughput", "requests/s", func(p compare.SweepPoint) float64 { return p.RequestThroughput }},
			{"sweep_ttft_p50", "TTFT p50 (ms)", func(p compare.SweepPoint) float64 { return p.TTFTP50 }},
			{"sweep_tpot_p50", "TPOT p50 (ms)", func(p compare.SweepPoint) float64 { return p.TPOTP50 }},
			{"sweep_e2e_p99", "E2E p99 (ms)", func(p compare.SweepPoint) float64 { return p.E2EP99 }},
		} {
			p, err := sweep(r.Sweeps, fig.ylabel, fig.get)
			if err != nil {
				return files, err
			}
			if err := save(p, fig.name, 6*vg.Inch, 4*vg.Inch); err != nil {
				return files, err
			}
		}
	}
	if r.GPU != nil {
		p, err := regions(r.GPU)
		if err != nil {
			return files, err
		}
		if p != nil {
			if err := save(p, "regions_per_rank", 7*vg.Inch, 4.5*vg.Inch); err != nil {
				return files, err
			}
		}
	}
	return files, nil
}

func ecdf(sorted []float64) plotter.XYs {
	n := len(sorted)
	// Thin very large samples to at most ~2000 points; the CDF shape stays.
	step := max(1, n/2000)
	pts := make(plotter.XYs, 0, n/step+1)
	for i := 0; i < n; i += step {
		pts = append(pts, plotter.XY{X: sorted[i], Y: float64(i+1) / float64(n)})
	}
	if pts[len(pts)-1].Y != 1 {
		pts = append(pts, plotter.XY{X: sorted[n-1], Y: 1})
	}
	return pts
}

func cdf(s compare.LatencySample) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "CDF of " + s.Name + " (pooled requests)"
	p.X.Label.Text = strings.TrimSuffix(s.Name, "_ms") + " (ms)"
	p.Y.Label.Text = "fraction of requests"
	p.Add(plotter.NewGrid())
	for _, side := range []struct {
		name string
		v    []float64
		c    color.Color
	}{{"A", s.A, colorA}, {"B", s.B, colorB}} {
		if len(side.v) == 0 {
			continue
		}
		l, err := plotter.NewLine(ecdf(side.v))
		if err != nil {
			return nil, err
		}
		l.Color = side.c
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("%s (n=%d)", side.name, len(side.v)), l)
	}
	// A CDF rises to the right: the bottom right corner stays free.
	p.Legend.Top, p.Legend.Left = false, false
	p.Legend.XOffs = vg.Points(-8)
	p.Legend.YOffs = vg.Points(8)
	return p, nil
}

func sweep(curves []compare.SweepCurve, ylabel string, get func(compare.SweepPoint) float64) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = ylabel + " vs offered load"
	p.X.Label.Text = "offered " + curves[0].Kind
	p.Y.Label.Text = ylabel
	p.Add(plotter.NewGrid())
	for i, c := range curves {
		pts := make(plotter.XYs, len(c.Points))
		for k, pt := range c.Points {
			pts[k] = plotter.XY{X: pt.Offered, Y: get(pt)}
		}
		l, sc, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, err
		}
		col := colorA
		if c.Side == "b" {
			col = colorB
		}
		l.Color, sc.Color = col, col
		if i >= 2 {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		}
		p.Add(l, sc)
		p.Legend.Add(strings.ToUpper(c.Side)+" "+filepath.Base(c.Path), l, sc)
	}
	p.Legend.Top = true
	return p, nil
}

func regions(g *compare.GPUTime) (*plot.Plot, error) {
	type bar struct {
		label string
		busy  map[string]float64
	}
	var bars []bar
	for _, sd := range []struct {
		name string
		s    *compare.SideGPU
	}{{"A", g.A}, {"B", g.B}} {
		if sd.s == nil {
			continue
		}
		for _, rk := range sd.s.Ranks {
			b := bar{label: sd.name + " " + rk.Rank, busy: map[string]float64{}}
			for _, rg := range rk.Regions {
				b.busy[rg.Region] = float64(rg.BusyNs) / 1e6
			}
			bars = append(bars, b)
		}
	}
	if len(bars) == 0 {
		return nil, nil
	}
	p := plot.New()
	p.Title.Text = "GPU busy time by region per rank"
	p.Y.Label.Text = "busy (ms)"
	p.Add(plotter.NewGrid())
	names := make([]string, len(bars))
	for i, b := range bars {
		names[i] = b.label
	}
	var below *plotter.BarChart
	for i, rg := range []string{"attention", "ffn", "communication", "io", "other"} {
		vals := make(plotter.Values, len(bars))
		for k, b := range bars {
			vals[k] = b.busy[rg]
		}
		bc, err := plotter.NewBarChart(vals, vg.Points(28))
		if err != nil {
			return nil, err
		}
		bc.Color = regionColors[i]
		bc.LineStyle.Width = 0
		if below != nil {
			bc.StackOn(below)
		}
		below = bc
		p.Add(bc)
		p.Legend.Add(rg, bc)
	}
	p.NominalX(names...)
	p.X.Tick.Label.Rotation = math.Pi / 10
	p.X.Tick.Label.XAlign = draw.XRight
	// Half a slot of room on each side so that no bar is cut at the edge.
	p.X.Min, p.X.Max = -0.6, float64(len(bars))-0.4
	// Head room above the tallest bar for the legend, on the left, clear of
	// the first bars' tops.
	p.Y.Min = 0
	p.Y.Max *= 1.6
	p.Y.Tick.Marker = plot.DefaultTicks{}
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.XOffs = vg.Points(40)
	return p, nil
}
