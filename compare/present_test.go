package compare_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/compare"
	"github.com/servecmp/servecmp/internal/testkit/golden"
	"github.com/servecmp/servecmp/output/present"
)

// TestGolden writes the golden report in every format through the
// presentation layer, as the compare command does.
func TestGolden(t *testing.T) {
	rep := compare.GoldenReport(t)
	out := map[string]string{}
	for _, f := range []string{"text", "markdown", "csv", "json"} {
		t.Run(f, func(t *testing.T) {
			var buf bytes.Buffer
			if err := present.WriteComparison(&buf, rep, f); err != nil {
				t.Fatal(err)
			}
			out[f] = buf.String()
			golden.Match(t, filepath.Join("testdata", "report."+f+".golden"), buf.String())
		})
	}
	for _, want := range []string{"COMPARABLE", compare.CausalNote, "Layer 2", "correctness: PASSED", "intentional differences: manifest.quantization"} {
		// Text wraps its long lines: read it as words.
		if !strings.Contains(strings.Join(strings.Fields(out["text"]), " "), want) {
			t.Errorf("text lacks %q", want)
		}
	}
	var js map[string]any
	if err := json.Unmarshal([]byte(out["json"]), &js); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"schema", "comparable", "differences", "metrics", "gpu_time"} {
		if _, ok := js[k]; !ok {
			t.Errorf("json lacks %s", k)
		}
	}
	if js["schema"] != compare.Schema {
		t.Errorf("json schema %v, want %s", js["schema"], compare.Schema)
	}
}
