package plots

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// labelLayer draws the point labels of one panel (the offered load at
// each point of a throughput–latency curve) so that none overprints
// another label or a point: each label takes the first of four places
// around its point (right above, left above, right below, left below)
// that stays inside the data area and clear of every label placed before
// it and of every point; a label with no such place is left out (the
// point's neighbours carry the curve's reading, and the CSV and the
// workbook have every value). Labels are placed in the order added.
type labelLayer struct {
	items []labelItem
	style text.Style
}

type labelItem struct {
	x, y float64
	text string
	c    color.Color
}

func newLabelLayer() *labelLayer {
	lb, _ := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{}}, Labels: []string{""}}) // plot's default text style
	st := lb.TextStyle[0]
	st.Font.Size = vg.Points(8)
	return &labelLayer{style: st}
}

func (l *labelLayer) add(pts plotter.XYs, labels []string, c color.Color) {
	for i, p := range pts {
		l.items = append(l.items, labelItem{x: p.X, y: p.Y, text: labels[i], c: c})
	}
}

// Plot implements plot.Plotter.
func (l *labelLayer) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	at := make([]vg.Point, len(l.items))
	size := make([]vg.Point, len(l.items))
	for i, it := range l.items {
		at[i] = vg.Point{X: trX(it.x), Y: trY(it.y)}
		size[i] = vg.Point{X: l.style.Width(it.text), Y: l.style.Height(it.text)}
	}
	for i, r := range placeLabels(at, size, c.Rectangle) {
		if r == (vg.Rectangle{}) {
			continue
		}
		st := l.style
		st.Color = l.items[i].c
		c.FillText(st, r.Min, l.items[i].text)
	}
}

// labelGap is the distance of a label from its point.
var labelGap = vg.Points(4)

// placeLabels returns, for each point at[i] with a label of size[i], the
// rectangle its label takes, or the zero rectangle when it has no place
// (labelLayer). Every point is an obstacle of the size of its glyph.
func placeLabels(at, size []vg.Point, area vg.Rectangle) []vg.Rectangle {
	var taken []vg.Rectangle
	glyph := vg.Points(3)
	for _, p := range at {
		taken = append(taken, vg.Rectangle{Min: vg.Point{X: p.X - glyph, Y: p.Y - glyph}, Max: vg.Point{X: p.X + glyph, Y: p.Y + glyph}})
	}
	out := make([]vg.Rectangle, len(at))
	for i, p := range at {
		w, h := size[i].X, size[i].Y
		for _, off := range []vg.Point{{X: labelGap, Y: labelGap}, {X: -w - labelGap, Y: labelGap}, {X: labelGap, Y: -h - labelGap}, {X: -w - labelGap, Y: -h - labelGap}} {
			r := vg.Rectangle{Min: vg.Point{X: p.X + off.X, Y: p.Y + off.Y}}
			r.Max = vg.Point{X: r.Min.X + w, Y: r.Min.Y + h}
			if within(r, area) && !overlapsAny(r, taken) {
				out[i] = r
				taken = append(taken, r)
				break
			}
		}
	}
	return out
}

func within(r, area vg.Rectangle) bool {
	return r.Min.X >= area.Min.X && r.Min.Y >= area.Min.Y && r.Max.X <= area.Max.X && r.Max.Y <= area.Max.Y
}

func overlapsAny(r vg.Rectangle, rs []vg.Rectangle) bool {
	for _, o := range rs {
		if r.Min.X < o.Max.X && o.Min.X < r.Max.X && r.Min.Y < o.Max.Y && o.Min.Y < r.Max.Y {
			return true
		}
	}
	return false
}
