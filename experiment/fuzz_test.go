package experiment

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary bytes to the experiment-file parser: it never
// panics and every error line names the file.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"minimal.yaml", "full.yaml"} {
		if b, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("engines: [a, a]\nruns: -1\n"))
	f.Add([]byte("{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := Parse("exp.yaml", data)
		if err == nil {
			return
		}
		for l := range strings.Lines(err.Error()) {
			if !strings.HasPrefix(l, "exp.yaml") {
				t.Fatalf("error line %q does not name the file", l)
			}
		}
	})
}
