package plots

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/servecmp/servecmp/compare"
)

// energyPerToken draws each run's GPU energy per output token (J), A and
// B side by side: one point per run, the side's mean as a bar behind its
// points, the legend naming the systems (sides, as present.SideLabels
// gives them). Only runs whose energy is complete are drawn, as only they
// enter the energy rows; ok is false when no run has a figure.
func energyPerToken(e *compare.EnergyReport, sides [2]string) (Figure, bool, error) {
	p := plot.New()
	p.Title.Text = "GPU energy per output token, per run"
	p.Y.Label.Text = "energy per output token (J)"
	p.X.Label.Text = "side (A, B; a point per run)"
	p.Add(plotter.NewGrid())
	var leg plot.Legend = plot.NewLegend()
	var all []float64
	perRun := energyPoints(e)
	for i, side := range []struct {
		name string
		c    color.Color
	}{{"a", colorA}, {"b", colorB}} {
		var pts plotter.XYs
		for k, v := range perRun[side.name] { // the runs spread a little about the side's place
			pts = append(pts, plotter.XY{X: float64(i) + 0.3*(float64(k)+0.5)/float64(len(perRun[side.name])) - 0.15, Y: v})
		}
		if len(pts) == 0 {
			continue
		}
		mean := 0.0
		for _, q := range pts {
			mean += q.Y
			all = append(all, q.Y)
		}
		mean /= float64(len(pts))
		bar, err := plotter.NewBarChart(plotter.Values{mean}, vg.Points(60))
		if err != nil {
			return Figure{}, false, err
		}
		bar.XMin, bar.Color, bar.LineStyle.Width = float64(i), lighter(side.c), 0
		s, err := plotter.NewScatter(pts)
		if err != nil {
			return Figure{}, false, err
		}
		s.GlyphStyle = draw.GlyphStyle{Color: side.c, Radius: vg.Points(4), Shape: draw.CircleGlyph{}}
		p.Add(bar, s)
		leg.Add(fmt.Sprintf("%s (%d runs; bar = mean %.4g J)", sides[i], len(pts), mean), s)
	}
	if len(all) == 0 {
		return Figure{}, false, nil
	}
	p.X.Min, p.X.Max = -0.6, 1.6
	p.X.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0, Label: "A"}, {Value: 1, Label: "B"}})
	fromZero(&p.Y, maxOf(all))
	return single("energy_per_output_token_j", p, leg, 6*vg.Inch, 4*vg.Inch), true, nil
}

// energyPoints are the energy per output token of each side's complete
// runs, in run order, by side ("a", "b").
func energyPoints(e *compare.EnergyReport) map[string][]float64 {
	out := map[string][]float64{}
	for _, run := range e.Runs {
		if run.Energy != nil && run.Energy.Complete && run.Energy.PerOutputTokenJ != nil {
			out[run.Side] = append(out[run.Side], *run.Energy.PerOutputTokenJ)
		}
	}
	return out
}

// lighter mixes c halfway to white.
func lighter(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	mix := func(v uint32) uint8 { return uint8((v>>8 + 255) / 2) }
	return color.RGBA{R: mix(r), G: mix(g), B: mix(b), A: 255}
}
