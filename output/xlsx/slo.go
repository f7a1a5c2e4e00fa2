package xlsx

import (
	"github.com/servecmp/servecmp/output/present"

	"github.com/xuri/excelize/v2"
)

// sloBlock writes the objectives below the sweep table from row n on: a
// header, then two rows per objective holding the ends of its vertical
// line, from 0 to ymax. It returns the first row of each objective.
func (b *book) sloBlock(s string, n int, ymax float64) []int {
	if len(b.slo) == 0 {
		return nil
	}
	b.row(s, n, "SLO line", "x (ms)", "y (output tok/s)")
	b.f.SetCellStyle(s, cell(1, n), cell(3, n), b.head)
	var rows []int
	for i, o := range b.slo {
		r := n + 1 + 2*i
		b.row(s, r, o.Label(), o.Ms, 0.0)
		b.row(s, r+1, nil, o.Ms, ymax)
		rows = append(rows, r)
	}
	return rows
}

// sloSeries is the vertical line of objective o, whose ends sloBlock
// wrote from row r.
func (b *book) sloSeries(s string, r int, o present.SLOLine) excelize.ChartSeries {
	return excelize.ChartSeries{
		Name:       ref(s, 1, r, 1, r),
		Categories: ref(s, 2, r, 2, r+1),
		Values:     ref(s, 3, r, 3, r+1),
		Fill:       solid(sloColor),
		Line:       excelize.LineOptions{Type: excelize.LineSolid, Width: 1.25, Dash: excelize.LineDashDash},
		Marker:     excelize.ChartMarker{Symbol: "none"},
	}
}

// sloColor draws the objectives.
const sloColor = "5A5A5A"
