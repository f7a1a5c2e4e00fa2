package plots

import (
	"bytes"
	"encoding/xml"
	"image"
	_ "image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/compare/internal/fixture"
)

func TestPlotsValid(t *testing.T) {
	dir := t.TempDir()
	files, err := Write(dir, fixture.Report())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"cdf_ttft_ms.png", "cdf_e2e_ms.svg", "sweep_output_throughput.png", "sweep_ttft_p50.svg", "regions_per_rank.png", "regions_per_rank.svg"}
	for _, w := range want {
		if _, err := os.Stat(filepath.Join(dir, w)); err != nil {
			t.Errorf("missing %s", w)
		}
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case strings.HasSuffix(f, ".png"):
			cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
			if err != nil || format != "png" || cfg.Width < 100 || cfg.Height < 100 {
				t.Errorf("%s: not a valid PNG (%v, %s, %dx%d)", f, err, format, cfg.Width, cfg.Height)
			}
		case strings.HasSuffix(f, ".svg"):
			d := xml.NewDecoder(bytes.NewReader(data))
			root := ""
			for {
				tok, err := d.Token()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Errorf("%s: malformed XML: %v", f, err)
					break
				}
				if se, ok := tok.(xml.StartElement); ok && root == "" {
					root = se.Name.Local
				}
			}
			if root != "svg" {
				t.Errorf("%s: root element %q, want svg", f, root)
			}
		default:
			t.Errorf("unexpected file %s", f)
		}
	}
}
