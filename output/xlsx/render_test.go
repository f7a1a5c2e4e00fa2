package xlsx

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/servecmp/servecmp/internal/testkit/fixture"
)

// TestRendersInLibreOffice converts the workbook to PDF with headless
// LibreOffice, rasterises the Sweep sheet's page with pdftoppm and counts
// the pixels in A's and B's colours: the charts must draw their points.
// It skips without soffice and pdftoppm (Debian: libreoffice-calc-nogui,
// poppler-utils). XLSX_RENDER_OUT=DIR keeps the page image there.
func TestRendersInLibreOffice(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with LibreOffice")
	}
	for _, tool := range []string{"soffice", "pdftotext", "pdftoppm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	dir := t.TempDir()
	book := filepath.Join(dir, "review.xlsx")
	if err := WriteFile(book, fixture.Report(), Options{}); err != nil {
		t.Fatal(err)
	}
	run(t, dir, "soffice", "--headless", "-env:UserInstallation=file://"+filepath.Join(dir, "profile"),
		"--convert-to", "pdf", "--outdir", dir, book)
	pdf := filepath.Join(dir, "review.pdf")
	pages := strings.Split(run(t, dir, "pdftotext", "-layout", pdf, "-"), "\f")
	page := 0
	for i, p := range pages {
		if strings.Contains(p, "Output throughput vs offered load") {
			page = i + 1
			break
		}
	}
	if page == 0 {
		t.Fatalf("no page of %s shows the sweep chart title", pdf)
	}
	n := strconv.Itoa(page)
	run(t, dir, "pdftoppm", "-png", "-r", "150", "-f", n, "-l", n, "-singlefile", pdf, filepath.Join(dir, "sweep"))
	data, err := os.ReadFile(filepath.Join(dir, "sweep.png"))
	if err != nil {
		t.Fatal(err)
	}
	if out := os.Getenv("XLSX_RENDER_OUT"); out != "" {
		if err := os.WriteFile(filepath.Join(out, "sweep-page.png"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	for i, rgb := range sideColors {
		if got := countColor(img, rgb); got < 150 {
			t.Errorf("side %c: %d pixels of #%s on the Sweep page, want the chart's points and lines", 'A'+i, got, rgb)
		}
	}
}

func run(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v: %s", name, err, errb.String())
	}
	return out.String()
}

// countColor counts the pixels of img within a small distance of the
// RRGGBB colour.
func countColor(img image.Image, rgb string) int {
	v, _ := strconv.ParseUint(rgb, 16, 32)
	want := [3]int{int(v >> 16 & 0xff), int(v >> 8 & 0xff), int(v & 0xff)}
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			got := [3]int{int(r >> 8), int(g >> 8), int(bl >> 8)}
			d := 0
			for k := range got {
				d += (got[k] - want[k]) * (got[k] - want[k])
			}
			if d < 40*40 {
				n++
			}
		}
	}
	return n
}
