package xlsx

import (
	"unicode/utf8"

	"github.com/xuri/excelize/v2"
)

// Column widths in characters: every column is as wide as its longest
// displayed cell plus a margin, at least minWidth and at most maxWidth;
// longer text wraps.
const (
	minWidth = 6
	maxWidth = 80
	margin   = 2
)

// fitColumns sizes the columns of sheet to their content, as displayed
// with its number format, wraps the cells too long for maxWidth and makes
// their rows tall enough for the wrapped lines.
func (b *book) fitColumns(sheet string) error {
	rows, err := b.f.GetRows(sheet)
	if err != nil {
		return err
	}
	var widest []int
	for r, row := range rows {
		lines := 1
		for c, v := range row {
			if c >= len(widest) {
				widest = append(widest, make([]int, c+1-len(widest))...)
			}
			n := displayWidth(v)
			if r == 0 {
				n += n / 8 // the header row is bold
			}
			widest[c] = max(widest[c], n)
			if n > maxWidth {
				if err := b.f.SetCellStyle(sheet, cell(c+1, r+1), cell(c+1, r+1), b.wrap); err != nil {
					return err
				}
				lines = max(lines, wrappedLines(n))
			}
		}
		if lines > 1 {
			if err := b.tallRow(sheet, r+1, len(row), lines); err != nil {
				return err
			}
		}
	}
	for c, n := range widest {
		w := float64(min(max(n+margin, minWidth), maxWidth))
		if err := b.f.SetColWidth(sheet, colName(c+1), colName(c+1), w); err != nil {
			return err
		}
	}
	return nil
}

// tallRow makes row tall enough for lines of text and aligns its plain
// cells to the top, next to the wrapped text.
func (b *book) tallRow(sheet string, row, cols, lines int) error {
	if err := b.f.SetRowHeight(sheet, row, rowHeight*float64(lines)); err != nil {
		return err
	}
	for c := 1; c <= cols; c++ {
		if id, err := b.f.GetCellStyle(sheet, cell(c, row)); err != nil || id != 0 {
			continue
		}
		if err := b.f.SetCellStyle(sheet, cell(c, row), cell(c, row), b.top); err != nil {
			return err
		}
	}
	return nil
}

// rowHeight is the height in points of one line of text.
const rowHeight = 15

// wrappedLines estimates the lines n characters take in a column of
// maxWidth, with a little more for the words that wrap early.
func wrappedLines(n int) int {
	return (n + n/16 + maxWidth - 1) / maxWidth
}

// displayWidth is the width of a displayed value in characters.
func displayWidth(v string) int {
	return utf8.RuneCountInString(v)
}

// pageSetup prints a sheet landscape, one page wide, so that a PDF or paper
// copy shows whole rows and whole charts.
func (b *book) pageSetup(sheet string) error {
	if err := b.f.SetSheetProps(sheet, &excelize.SheetPropsOptions{FitToPage: ptr(true)}); err != nil {
		return err
	}
	return b.f.SetPageLayout(sheet, &excelize.PageLayoutOptions{
		Orientation: ptr("landscape"), FitToWidth: ptr(1), FitToHeight: ptr(0),
	})
}
