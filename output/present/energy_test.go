package present

import (
	"strings"
	"testing"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/internal/testkit/fixture"
)

// TestEnergyOutputs: the comparison's layer 1 gains the per-run energy
// table in every reading (text, markdown, tables), and a benchmark
// summary its energy lines.
func TestEnergyOutputs(t *testing.T) {
	rep := fixture.Report()
	rep.Energy = fixture.EnergyReport(3)
	at := -1
	for i, tb := range Comparison(rep) {
		if tb.Name == "energy" {
			at = i
		}
	}
	if at < 0 || at >= layer1Count(rep) {
		t.Errorf("energy table at %d, layer 1 has %d tables", at, layer1Count(rep))
	}
	for _, format := range []string{"text", "markdown"} {
		var b strings.Builder
		if err := WriteComparison(&b, rep, format); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if !strings.Contains(out, "GPU energy per run") || !strings.Contains(out, "sw_power_cap") || !strings.Contains(out, "b2.json") {
			t.Errorf("%s reading lacks the energy table:\n%s", format, out)
		}
		if i, j := strings.Index(out, "GPU energy per run"), strings.Index(out, "Layer 2"); j >= 0 && i > j {
			t.Errorf("%s: energy table in layer 2", format)
		}
	}
	j, tok, req := 480.0, 0.2344, 7.5
	res := &result.Result{Summary: result.Summary{Energy: &result.Energy{Joules: j, GPUs: 2, Source: "counter", MeanPowerW: 197.2,
		PerOutputTokenJ: &tok, PerRequestJ: &req, TokensPerSPerGPU: &j, TokensPerSPerW: &tok, Complete: true, Throttled: true,
		ThrottleReasons: []string{"hw_thermal_slowdown"}}}}
	var b strings.Builder
	if err := WriteBenchmarkText(&b, res); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"480.0 J on 2 GPU(s) (counter", "mean power 197.2 W", "0.2344 J/output token", "throttled", "hw_thermal_slowdown"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("benchmark text lacks %q:\n%s", want, b.String())
		}
	}
}
