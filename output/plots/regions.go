package plots

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/servecmp/servecmp/compare"
)

// regionOrder is the stacking order of the region bars, bottom first.
var regionOrder = []string{"attention", "ffn", "communication", "io", "other"}

// rankBar is one bar: a side's rank and its busy ms per region.
type rankBar struct {
	label string
	busy  map[string]float64
}

func rankBars(g *compare.GPUTime) []rankBar {
	var bars []rankBar
	for _, sd := range []struct {
		name string
		s    *compare.SideGPU
	}{{"A", g.A}, {"B", g.B}} {
		if sd.s == nil {
			continue
		}
		for _, rk := range sd.s.Ranks {
			b := rankBar{label: sd.name + " rank " + rk.Rank, busy: map[string]float64{}}
			for _, rg := range rk.Regions {
				b.busy[rg.Region] = float64(rg.BusyNs) / 1e6
			}
			bars = append(bars, b)
		}
	}
	return bars
}

// regions draws stacked GPU-busy bars by region per rank; ok is false when
// no rank has data.
func regions(g *compare.GPUTime) (f Figure, ok bool, err error) {
	bars := rankBars(g)
	if len(bars) == 0 {
		return Figure{}, false, nil
	}
	p := plot.New()
	p.Title.Text = "GPU busy time by region per rank"
	p.Y.Label.Text = "GPU busy time (ms)"
	p.Add(plotter.NewGrid())
	names := make([]string, len(bars))
	tops := make([]float64, len(bars))
	for i, b := range bars {
		names[i] = b.label
	}
	var stack []*plotter.BarChart
	var below *plotter.BarChart
	for i, rg := range regionOrder {
		vals := make(plotter.Values, len(bars))
		for k, b := range bars {
			vals[k] = b.busy[rg]
			tops[k] += vals[k]
		}
		bc, err := plotter.NewBarChart(vals, vg.Points(28))
		if err != nil {
			return Figure{}, false, err
		}
		bc.Color = regionColors[i]
		bc.LineStyle.Width = 0
		if below != nil {
			bc.StackOn(below)
		}
		below = bc
		p.Add(bc)
		stack = append(stack, bc)
	}
	// The legend lists the regions top down, as the bars stack them.
	leg := plot.NewLegend()
	for i := len(stack) - 1; i >= 0; i-- {
		leg.Add(regionOrder[i], stack[i])
	}
	p.NominalX(names...)
	p.X.Tick.Label.Rotation = math.Pi / 10
	p.X.Tick.Label.XAlign = draw.XRight
	// Half a slot of room on each side so that no bar is cut at the edge.
	p.X.Min, p.X.Max = -0.6, float64(len(bars))-0.4
	fromZero(&p.Y, maxOf(tops))
	return single("regions_per_rank", p, leg, 7.5*vg.Inch, 4.5*vg.Inch), true, nil
}

func maxOf(vs []float64) float64 {
	m := 0.0
	for _, v := range vs {
		m = max(m, v)
	}
	return m
}
