// Package plots draws a compare.Report with gonum/plot: per-request latency
// CDFs of A and B, throughput and latency against offered load from sweep
// results, throughput against latency across the sweep (the serving
// trade-off curve), GPU energy per output token by side (one point per
// run), and stacked GPU-busy bars by region per rank. Every
// figure is written as PNG and SVG.
//
// Units: latencies in ms, throughputs in tokens/s or requests/s, GPU time
// in ms; every axis label names its unit. Output tokens/s "per user" is the
// total output throughput over the requests in flight: the offered
// concurrency of a closed loop, or request throughput × median E2E latency
// (Little's law) for a rate sweep.
//
// Invariants a reviewer can rely on: an axis that shows a quantity starts at
// 0 unless it is logarithmic; an axis is logarithmic when its data span at
// least two decades (largest over smallest positive value ≥ 100); legends
// are drawn in a strip right of the data areas, so that they cover no point.
package plots

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"

	"github.com/servecmp/servecmp/output/present"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/servecmp/servecmp/compare"
	"github.com/servecmp/servecmp/internal/atomicfile"
)

// Options tunes the figures.
type Options struct {
	// SLO maps a latency objective to its threshold in ms; the
	// throughput–latency figure draws each as a vertical line. Keys are
	// the percentiles the sweep points carry: "ttft_ms_p50",
	// "ttft_ms_p99", "tpot_ms_p50", or "ttft_ms" and "tpot_ms" for any.
	SLO map[string]float64
}

// Figure is one picture: a grid of panels (rows of plots) and one legend
// drawn in a strip right of them.
type Figure struct {
	Name   string         // file name without extension
	Panels [][]*plot.Plot // at least one row of at least one plot
	Legend plot.Legend    // entries shared by the panels; may be empty
	W, H   vg.Length
}

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

// Write draws every figure the report has data for into dir (made when
// missing), with the SLO lines of o, and returns the files written. The
// names are resolved inside dir (atomicfile.Dir): a link planted in it
// does not lead a figure out of it.
func Write(dir string, r *compare.Report, o Options) ([]string, error) {
	d, err := atomicfile.OpenDir(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return WriteDir(d, r, o)
}

// WriteDir is Write into an open directory.
func WriteDir(d *atomicfile.Dir, r *compare.Report, o Options) ([]string, error) {
	figs, err := Figures(r, o)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, f := range figs {
		for _, ext := range []string{"png", "svg"} {
			name := f.Name + "." + ext
			if err := f.save(d, name, ext); err != nil {
				return files, fmt.Errorf("%s: %w", d.Join(name), err)
			}
			files = append(files, d.Join(name))
		}
	}
	return files, nil
}

// Figures builds every figure the report has data for, in the order Write
// saves them: the forest of every metric's relative difference, latency
// CDFs, sweep curves, throughput against latency, energy per output
// token, GPU regions. Legends name the systems (present.SideLabels).
func Figures(r *compare.Report, o Options) ([]Figure, error) {
	slo, err := present.ParseSLOLines(o.SLO)
	if err != nil {
		return nil, fmt.Errorf("plots: %w", err)
	}
	sides := present.SideLabels(r)
	var figs []Figure
	if f, ok := forest(r, sides); ok {
		figs = append(figs, f)
	}
	for _, s := range r.Latency {
		if len(s.A)+len(s.B) == 0 {
			continue
		}
		f, err := cdf(s, sides)
		if err != nil {
			return nil, err
		}
		figs = append(figs, f)
	}
	if len(r.Sweeps) > 0 {
		fs, err := sweeps(r.Sweeps, sides, slo)
		if err != nil {
			return nil, err
		}
		figs = append(figs, fs...)
		f, err := throughputLatency(r.Sweeps, sides, slo)
		if err != nil {
			return nil, err
		}
		figs = append(figs, f)
	}
	if r.Energy != nil {
		f, ok, err := energyPerToken(r.Energy, sides)
		if err != nil {
			return nil, err
		}
		if ok {
			figs = append(figs, f)
		}
	}
	if r.GPU != nil {
		f, ok, err := regions(r.GPU)
		if err != nil {
			return nil, err
		}
		if ok {
			figs = append(figs, f)
		}
	}
	return figs, nil
}

// save writes the figure in format ext ("png" or "svg") as name in d.
func (f Figure) save(d *atomicfile.Dir, name, ext string) error {
	c, err := draw.NewFormattedCanvas(f.W, f.H, ext)
	if err != nil {
		return err
	}
	f.Draw(draw.New(c))
	return d.WriteFunc(name, func(w io.Writer) error {
		_, err := c.WriteTo(w)
		return err
	})
}

// PNG draws the figure as a PNG image.
func (f Figure) PNG() ([]byte, error) {
	c, err := draw.NewFormattedCanvas(f.W, f.H, "png")
	if err != nil {
		return nil, err
	}
	f.Draw(draw.New(c))
	var b bytes.Buffer
	_, err = c.WriteTo(&b)
	return b.Bytes(), err
}

// Draw draws the panels and the legend strip on dc.
func (f Figure) Draw(dc draw.Canvas) {
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	labels := blankLogLabels(f.Panels)
	defer restoreLabels(labels)
	strip, cs := f.layout(dc)
	if strip.Size().X > 0 {
		f.Legend.Draw(strip)
	}
	for i, row := range f.Panels {
		for k, p := range row {
			if p != nil {
				p.Draw(cs[i][k])
				labels[i][k].draw(cs[i][k])
			}
		}
	}
}

// logLabel is the label of a panel's log axes, drawn by the figure:
// gonum/plot reserves room for a centred axis label at the arithmetic
// middle of the axis range, which on a log axis lies near its end, and so
// shrinks the data area. The axis keeps a blank label of the same height.
type logLabel struct {
	p      *plot.Plot
	x, y   string // "" where the axis is linear
	xs, ys string // the labels before blanking
}

func blankLogLabels(panels [][]*plot.Plot) [][]logLabel {
	out := make([][]logLabel, len(panels))
	for i, row := range panels {
		out[i] = make([]logLabel, len(row))
		for k, p := range row {
			if p == nil {
				continue
			}
			l := logLabel{p: p, xs: p.X.Label.Text, ys: p.Y.Label.Text}
			if _, ok := p.X.Scale.(plot.LogScale); ok && l.xs != "" {
				l.x, p.X.Label.Text = l.xs, " "
			}
			if _, ok := p.Y.Scale.(plot.LogScale); ok && l.ys != "" {
				l.y, p.Y.Label.Text = l.ys, " "
			}
			out[i][k] = l
		}
	}
	return out
}

func restoreLabels(ls [][]logLabel) {
	for _, row := range ls {
		for _, l := range row {
			if l.p != nil {
				l.p.X.Label.Text, l.p.Y.Label.Text = l.xs, l.ys
			}
		}
	}
}

// draw draws the blanked labels centred under and beside the data area
// of the panel drawn on c.
func (l logLabel) draw(c draw.Canvas) {
	if l.p == nil || l.x == "" && l.y == "" {
		return
	}
	data := l.p.DataCanvas(c)
	if l.x != "" {
		sty := l.p.X.Label.TextStyle
		c.FillText(sty, vg.Point{X: data.Center().X, Y: c.Min.Y + sty.FontExtents().Descent}, l.x)
	}
	if l.y != "" {
		sty := l.p.Y.Label.TextStyle
		x := c.Min.X + sty.Height(l.y) - sty.FontExtents().Descent
		sty.Rotation += math.Pi / 2
		c.FillText(sty, vg.Point{X: x, Y: data.Center().Y}, l.y)
	}
}

// layout places the legend strip (of width 0 when the legend is empty) at
// the right of dc and the panels left of it. It sets the legend's style.
func (f *Figure) layout(dc draw.Canvas) (strip draw.Canvas, panels [][]draw.Canvas) {
	pad := vg.Points(8)
	f.Legend.TextStyle.Font.Size = vg.Points(10)
	f.Legend.Top, f.Legend.Left = true, true
	f.Legend.Padding = vg.Points(3)
	area := draw.Crop(dc, pad, -pad, pad, -pad)
	lw := legendWidth(&f.Legend, area)
	strip = draw.Crop(area, area.Size().X-lw, 0, 0, -vg.Points(28))
	if lw > 0 {
		area = draw.Crop(area, 0, -lw-2*pad, 0, 0)
	}
	rows, cols := len(f.Panels), len(f.Panels[0])
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(16), PadY: vg.Points(16)}
	return strip, plot.Align(f.Panels, tiles, area)
}

// legendWidth is the width the legend needs, 0 when it has no entries.
func legendWidth(l *plot.Legend, c draw.Canvas) vg.Length {
	r := l.Rectangle(c)
	return r.Max.X - r.Min.X
}

// single wraps one plot as a figure of the given size.
func single(name string, p *plot.Plot, l plot.Legend, w, h vg.Length) Figure {
	return Figure{Name: name, Panels: [][]*plot.Plot{{p}}, Legend: l, W: w, H: h}
}
