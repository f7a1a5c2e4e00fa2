package xlsx

import (
	"archive/zip"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"

	"github.com/servecmp/servecmp/compare"
	"github.com/servecmp/servecmp/internal/testkit/fixture"
)

// chartXML is the part of a chart part the tests read.
type chartXML struct {
	Title    []string `xml:"chart>title>tx>rich>p>r>t"`
	PlotArea struct {
		Scatter []chartGroup `xml:"scatterChart"`
		Bar     []chartGroup `xml:"barChart"`
	} `xml:"chart>plotArea"`
}

type chartGroup struct {
	Ser []serXML `xml:"ser"`
}

type serXML struct {
	Name       string    `xml:"tx>strRef>f"`
	Cat        string    `xml:"cat>strRef>f"`
	Val        string    `xml:"val>numRef>f"`
	XVal       string    `xml:"xVal>strRef>f"`
	YVal       string    `xml:"yVal>numRef>f"`
	LineNoFill *struct{} `xml:"spPr>ln>noFill"`
	Marker     struct {
		Fill struct {
			Val string `xml:"val,attr"`
		} `xml:"spPr>solidFill>srgbClr"`
	} `xml:"marker"`
}

// writeFixture writes the fixture's workbook and returns its path and the
// reopened file.
func writeFixture(t *testing.T) (string, *excelize.File) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "review.xlsx")
	if err := WriteFile(path, fixture.Report(), Options{}); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return path, f
}

// readCharts returns the workbook's charts by title.
func readCharts(t *testing.T, path string) map[string]chartXML {
	t.Helper()
	z, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	out := map[string]chartXML{}
	for _, zf := range z.File {
		if !strings.HasPrefix(zf.Name, "xl/charts/chart") {
			continue
		}
		rc, err := zf.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		var c chartXML
		if err := xml.Unmarshal(data, &c); err != nil {
			t.Fatalf("%s: %v", zf.Name, err)
		}
		out[strings.Join(c.Title, "")] = c
	}
	return out
}

var refRE = regexp.MustCompile(`^'((?:[^']|'')+)'!\$([A-Z]+)\$(\d+)(?::\$([A-Z]+)\$(\d+))?$`)

// cells expands a quoted absolute reference into its sheet and cell names.
func cells(t *testing.T, ref string) (string, []string) {
	t.Helper()
	m := refRE.FindStringSubmatch(ref)
	if m == nil {
		t.Errorf("reference %q is not 'Sheet'!$A$1 or 'Sheet'!$A$1:$B$2", ref)
		return "", nil
	}
	sheet := strings.ReplaceAll(m[1], "''", "'")
	c1, _ := excelize.ColumnNameToNumber(m[2])
	r1, _ := strconv.Atoi(m[3])
	c2, r2 := c1, r1
	if m[4] != "" {
		c2, _ = excelize.ColumnNameToNumber(m[4])
		r2, _ = strconv.Atoi(m[5])
	}
	var out []string
	for c := c1; c <= c2; c++ {
		for r := r1; r <= r2; r++ {
			out = append(out, cell(c, r))
		}
	}
	return sheet, out
}

// numeric checks that every cell of ref holds a number, not text.
func numeric(t *testing.T, f *excelize.File, ref string) {
	t.Helper()
	sheet, cs := cells(t, ref)
	if len(cs) == 0 {
		return
	}
	for _, c := range cs {
		typ, err := f.GetCellType(sheet, c)
		raw, _ := f.GetCellValue(sheet, c, excelize.Options{RawCellValue: true})
		if _, perr := strconv.ParseFloat(raw, 64); err != nil || perr != nil || typ == excelize.CellTypeSharedString || typ == excelize.CellTypeInlineString {
			t.Errorf("%s: %s!%s = %q (type %v), want a number", ref, sheet, c, raw, typ)
		}
	}
}

// TestSweepChartRenders: every scatter series names a quoted range of
// numeric cells, draws a line and fills its markers (LibreOffice 7.4 drew
// no point for markers without a fill on a series without a line).
func TestSweepChartRenders(t *testing.T) {
	path, f := writeFixture(t)
	charts := readCharts(t, path)
	for _, name := range []string{"Output throughput vs offered load", "Output throughput vs TPOT p50 across the sweep", "Output throughput vs TTFT p99 across the sweep"} {
		c, ok := charts[name]
		if !ok || len(c.PlotArea.Scatter) != 1 {
			t.Errorf("no scatter chart %q", name)
			continue
		}
		ser := c.PlotArea.Scatter[0].Ser
		if len(ser) != 2 {
			t.Errorf("%s: %d series, want 2 (A and B)", name, len(ser))
		}
		for _, s := range ser {
			numeric(t, f, s.XVal)
			numeric(t, f, s.YVal)
			sheet, nc := cells(t, s.Name)
			if v, _ := f.GetCellValue(sheet, nc[0]); !strings.HasPrefix(v, "A sweep-") && !strings.HasPrefix(v, "B sweep-") {
				t.Errorf("%s: series name %s = %q", name, s.Name, v)
			}
			if _, xs := cells(t, s.XVal); len(xs) != 4 {
				t.Errorf("%s: x range %s has %d cells, want 4 steps", name, s.XVal, len(xs))
			}
			if s.LineNoFill != nil || s.Marker.Fill.Val == "" {
				t.Errorf("%s: series %s drawn without line (%v) or marker fill %q", name, s.Name, s.LineNoFill != nil, s.Marker.Fill.Val)
			}
		}
	}
}

// TestLatencyChartsByScale: one chart holds the TTFT and E2E rows, the
// other the TPOT and ITL rows, each as one contiguous numeric block.
func TestLatencyChartsByScale(t *testing.T) {
	path, f := writeFixture(t)
	charts := readCharts(t, path)
	for title, kinds := range map[string][]string{
		"TTFT and E2E latency, A vs B (ms)": {"ttft_ms", "e2e_ms"},
		"TPOT and ITL, A vs B (ms)":         {"tpot_ms", "itl_ms", "itl_per_token_ms"},
	} {
		c, ok := charts[title]
		if !ok || len(c.PlotArea.Bar) != 1 || len(c.PlotArea.Bar[0].Ser) != 2 {
			t.Errorf("no column chart %q with A and B", title)
			continue
		}
		seen := map[string]bool{}
		for _, s := range c.PlotArea.Bar[0].Ser {
			numeric(t, f, s.Val)
			sheet, cats := cells(t, s.Cat)
			for _, cl := range cats {
				v, _ := f.GetCellValue(sheet, cl)
				k, _ := compare.SplitMetric(v)
				if !slices.Contains(kinds, k) {
					t.Errorf("%s: category %s = %q, want one of %v", title, cl, v, kinds)
				}
				seen[k] = true
			}
		}
		if len(seen) != len(kinds) {
			t.Errorf("%s: kinds %v, want %v", title, seen, kinds)
		}
	}
}

func TestPValuesScientific(t *testing.T) {
	_, f := writeFixture(t)
	for _, s := range []string{"Latency", "Throughput"} {
		if h, _ := f.GetCellValue(s, "G1"); h != "p_value" {
			t.Fatalf("%s!G1 = %q, want p_value", s, h)
		}
		id, err := f.GetCellStyle(s, "G2")
		if err != nil {
			t.Fatal(err)
		}
		st, err := f.GetStyle(id)
		if err != nil || st.CustomNumFmt == nil || *st.CustomNumFmt != fmtPValue {
			t.Errorf("%s!G2: number format %v, want %s", s, st.CustomNumFmt, fmtPValue)
		}
	}
	// A small p-value reads as such, not as 0.000.
	if err := f.SetCellFloat("Throughput", "G2", 3.2e-12, -1, 64); err != nil {
		t.Fatal(err)
	}
	if v, _ := f.GetCellValue("Throughput", "G2"); v != "3.20E-12" {
		t.Errorf("p = 3.2e-12 displays as %q", v)
	}
}

// TestColumnWidths: every column is at least as wide as its longest
// displayed cell (up to the cap, past which the cell wraps).
func TestColumnWidths(t *testing.T) {
	_, f := writeFixture(t)
	for _, s := range Sheets {
		rows, err := f.GetRows(s)
		if err != nil {
			t.Fatal(err)
		}
		longest := map[int]int{}
		for r, row := range rows {
			for c, v := range row {
				n := utf8.RuneCountInString(v)
				longest[c] = max(longest[c], n)
				if n > maxWidth {
					id, _ := f.GetCellStyle(s, cell(c+1, r+1))
					if st, _ := f.GetStyle(id); st == nil || st.Alignment == nil || !st.Alignment.WrapText {
						t.Errorf("%s!%s: %d characters past the %d cap, not wrapped", s, cell(c+1, r+1), n, maxWidth)
					}
				}
			}
		}
		for c, n := range longest {
			w, err := f.GetColWidth(s, colName(c+1))
			if err != nil {
				t.Fatal(err)
			}
			if w < float64(min(n, maxWidth)) || w > maxWidth {
				t.Errorf("%s column %s: width %g for %d characters", s, colName(c+1), w, n)
			}
		}
	}
	// The Summary's values are sentences: wider than the old fixed 60.
	if w, _ := f.GetColWidth("Summary", "B"); w <= 20 {
		t.Errorf("Summary column B width %g", w)
	}
}

func TestFileMode(t *testing.T) {
	path, _ := writeFixture(t)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o644 {
		t.Errorf("workbook mode %v, want 0644", st.Mode().Perm())
	}
	// Writing again replaces the file, keeping the mode.
	if err := WriteFile(path, fixture.Report(), Options{}); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("rewritten workbook mode %v, want 0644", st.Mode().Perm())
	}
}

// TestMinimalReport: a report without records, sweeps or profiles still
// makes a workbook, with no chart that would point at empty ranges.
func TestMinimalReport(t *testing.T) {
	path := filepath.Join(t.TempDir(), "min.xlsx")
	if err := WriteFile(path, &compare.Report{Comparable: true}, Options{}); err != nil {
		t.Fatal(err)
	}
	if n := len(readCharts(t, path)); n != 0 {
		t.Errorf("%d charts in a workbook without data", n)
	}
}

// TestSLOLines: each objective is listed under the sweep table and drawn
// as a vertical line from 0 to above the highest throughput on the chart
// whose x axis it bounds, and on no other.
func TestSLOLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "slo.xlsx")
	o := Options{SLO: map[string]float64{"tpot_ms": 15, "ttft_ms_p99": 150, "ttft_ms_p50": 30}}
	if err := WriteFile(path, fixture.Report(), o); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	charts := readCharts(t, path)
	for title, want := range map[string][]string{
		"Output throughput vs offered load":              nil,
		"Output throughput vs TPOT p50 across the sweep": {"SLO TPOT ≤ 15 ms"},
		"Output throughput vs TTFT p99 across the sweep": {"SLO TTFT p99 ≤ 150 ms"},
	} {
		ser := charts[title].PlotArea.Scatter[0].Ser
		if len(ser) != 2+len(want) {
			t.Errorf("%s: %d series, want %d", title, len(ser), 2+len(want))
			continue
		}
		for k, name := range want {
			s := ser[2+k]
			sheet, nc := cells(t, s.Name)
			if v, _ := f.GetCellValue(sheet, nc[0]); v != name {
				t.Errorf("%s: SLO series named %q, want %q", title, v, name)
			}
			numeric(t, f, s.XVal)
			numeric(t, f, s.YVal)
			_, xs := cells(t, s.XVal)
			_, ys := cells(t, s.YVal)
			x0, _ := f.GetCellValue(sheet, xs[0], excelize.Options{RawCellValue: true})
			x1, _ := f.GetCellValue(sheet, xs[1], excelize.Options{RawCellValue: true})
			y0, _ := f.GetCellValue(sheet, ys[0], excelize.Options{RawCellValue: true})
			y1, _ := f.GetCellValue(sheet, ys[1], excelize.Options{RawCellValue: true})
			if top, _ := strconv.ParseFloat(y1, 64); x0 != x1 || y0 != "0" || top < 520 {
				t.Errorf("%s: line from (%s, %s) to (%s, %s), want vertical from 0 to above 520 tok/s", title, x0, y0, x1, y1)
			}
		}
	}
	for _, bad := range []map[string]float64{{"tpot_ms_p99": 1}, {"e2e_ms": 1}, {"ttft_ms": 0}} {
		if _, err := BuildWith(fixture.Report(), Options{SLO: bad}); err == nil {
			t.Errorf("SLO %v accepted", bad)
		}
	}
}
