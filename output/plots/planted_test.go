package plots

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/servecmp/servecmp/internal/testkit/fixture"
)

// TestWritePlantedLinks: in the directory of --plots, a link planted
// under a figure's name (the energy figure's included) is replaced by the
// figure, never written through: the file it points to stays as it was.
func TestWritePlantedLinks(t *testing.T) {
	rep := fixture.Report()
	rep.Energy = fixture.EnergyReport(10)
	dir := t.TempDir()
	victims := map[string]string{}
	for _, name := range []string{"energy_per_output_token_j.png", "cdf_ttft_ms.svg"} {
		v := filepath.Join(t.TempDir(), "victim")
		if err := os.WriteFile(v, []byte("precious"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(v, filepath.Join(dir, name)); err != nil {
			t.Skip(err)
		}
		victims[name] = v
	}
	files, err := Write(dir, rep, Options{})
	if err != nil {
		t.Fatal(err)
	}
	written := map[string]bool{}
	for _, f := range files {
		written[filepath.Base(f)] = true
	}
	for name, v := range victims {
		if b, _ := os.ReadFile(v); string(b) != "precious" {
			t.Errorf("%s: the figure followed the planted link", name)
		}
		fi, err := os.Lstat(filepath.Join(dir, name))
		if !written[name] || err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s: written %v, now %v (%v)", name, written[name], fi, err)
		}
	}
}
