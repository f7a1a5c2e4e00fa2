package xlsx

import (
	"bytes"
	"image/png"
	"path/filepath"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/servecmp/servecmp/internal/testkit/fixture"
)

// TestSummaryOpensWithForest: the workbook's first sheet carries the
// forest of every metric as a picture beside the conclusion, with
// records or without.
func TestSummaryOpensWithForest(t *testing.T) {
	for _, records := range []bool{true, false} {
		rep := fixture.Report()
		if !records {
			rep.Latency, rep.RequestsA, rep.RequestsB = nil, nil, nil
		}
		path := filepath.Join(t.TempDir(), "r.xlsx")
		if err := WriteFile(path, rep, Options{}); err != nil {
			t.Fatal(err)
		}
		f, err := excelize.OpenFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if f.GetSheetName(0) != "Summary" {
			t.Errorf("first sheet %q", f.GetSheetName(0))
		}
		pics, err := f.GetPictures("Summary", ForestCell)
		if err != nil || len(pics) != 1 {
			t.Fatalf("records %v: %d pictures at Summary!%s (%v)", records, len(pics), ForestCell, err)
		}
		img, err := png.Decode(bytes.NewReader(pics[0].File))
		if err != nil || img.Bounds().Dx() < 400 {
			t.Errorf("records %v: the forest is no PNG of a figure: %v", records, err)
		}
		if pics[0].Format == nil || pics[0].Format.AltText == "" {
			t.Errorf("records %v: the picture says nothing to a screen reader", records)
		}
		f.Close()
	}
}
