package xlsx

import (
	"path/filepath"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/servecmp/servecmp/internal/testkit/fixture"
)

// TestEnergySheet: the Energy sheet lists every run's energy and charts
// each run's power over time as its own series, on numeric cells that
// hold the run's samples; a report without energy keeps the sheet with
// its header only and no power chart.
func TestEnergySheet(t *testing.T) {
	rep := fixture.Report()
	rep.Energy = fixture.EnergyReport(12)
	path := filepath.Join(t.TempDir(), "review.xlsx")
	if err := WriteFile(path, rep, Options{}); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, _ := f.GetRows("Energy")
	if len(rows) < 7 || rows[1][0] != "A" || rows[4][0] != "B" || rows[3][9] != "no" || rows[5][10] != "sw_power_cap" {
		t.Fatalf("Energy rows %q", rows[:min(len(rows), 7)])
	}
	if v, _ := f.GetCellValue("Energy", "D5", excelize.Options{RawCellValue: true}); v != "0.3" {
		t.Errorf("Energy!D5 = %q, want B's first run's 0.3 J per token", v)
	}
	c, ok := readCharts(t, path)["GPU power over time, per run (W; warmup and drain included)"]
	if !ok || len(c.PlotArea.Scatter) != 1 || len(c.PlotArea.Scatter[0].Ser) != 6 {
		t.Fatalf("power chart %+v", c)
	}
	for i, s := range c.PlotArea.Scatter[0].Ser {
		sheet, xs := cells(t, s.XVal)
		_, ys := cells(t, s.YVal)
		if sheet != "Energy" || len(xs) != 12 || len(ys) != 12 {
			t.Errorf("series %d: x %s, y %s", i, s.XVal, s.YVal)
		}
		numeric(t, f, s.YVal)
		numeric(t, f, s.XVal)
	}
	// B's first run: watts 300 × 0.9 at its first sample.
	if _, ys := cells(t, c.PlotArea.Scatter[0].Ser[3].YVal); len(ys) > 0 {
		if v, _ := f.GetCellValue("Energy", ys[0], excelize.Options{RawCellValue: true}); v != "270" {
			t.Errorf("B's first power sample %q, want 270", v)
		}
	}
	path2, _ := writeFixture(t)
	if _, ok := readCharts(t, path2)["GPU power over time, per run (W; warmup and drain included)"]; ok {
		t.Error("a power chart without energy")
	}
}
