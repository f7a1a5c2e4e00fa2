package plots

import (
	"slices"
	"testing"

	"github.com/servecmp/servecmp/internal/testkit/fixture"
)

// TestEnergyFigure: a report with GPU energy gets the energy-per-token
// figure, drawn from each side's complete runs only (A's incomplete third
// run is left out, as it is from the energy rows), on a y axis from 0
// that holds every point; a report without energy gets none.
func TestEnergyFigure(t *testing.T) {
	rep := fixture.Report()
	rep.Energy = fixture.EnergyReport(10)
	pts := energyPoints(rep.Energy)
	if !slices.Equal(pts["a"], []float64{0.40, 0.41}) || !slices.Equal(pts["b"], []float64{0.30, 0.31, 0.29}) {
		t.Fatalf("points %v", pts)
	}
	figs := figures(t, rep, Options{})
	f, ok := figs["energy_per_output_token_j"]
	if !ok {
		t.Fatalf("no energy figure among %d", len(figs))
	}
	p := f.Panels[0][0]
	if p.Y.Min != 0 || p.Y.Max < 0.41 || p.Y.Label.Text != "energy per output token (J)" {
		t.Errorf("y axis [%g, %g] %q", p.Y.Min, p.Y.Max, p.Y.Label.Text)
	}
	drawPNG(t, f)
	if _, ok := figures(t, fixture.Report(), Options{})["energy_per_output_token_j"]; ok {
		t.Error("an energy figure without energy")
	}
}
