package emit

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/classify"
	"github.com/servecmp/servecmp/output/table"
)

func TestAnalysis(t *testing.T) {
	rank := &classify.RankSummary{Rank: "0", Regions: []classify.RegionSummary{{Region: "ffn", SumNs: 10, BusyNs: 10}}}
	rep, err := classify.NewReport("d", []*classify.RankSummary{rank})
	if err != nil {
		t.Fatal(err)
	}
	rep.Warnings = []string{"w1"}
	save := filepath.Join(t.TempDir(), "s.json")
	var out, log bytes.Buffer
	if err := Analysis(&out, &log, rep, save, nil, 0); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(save); err != nil || !strings.Contains(string(b), classify.SummarySchema) {
		t.Errorf("summary file: %v %q", err, b)
	}
	if !strings.HasPrefix(out.String(), "{") || log.String() != "servecmp: warning: w1\n" {
		t.Errorf("JSON: stdout %q, stderr %q", out.String(), log.String())
	}
	_, csv, err := table.Lookup("csv")
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := Analysis(&out, &log, rep, "", csv, 0); err != nil || !strings.Contains(out.String(), "ffn") || strings.HasPrefix(out.String(), "{") {
		t.Errorf("CSV: %v, stdout %q", err, out.String())
	}
	if err := Analysis(&out, &log, rep, filepath.Join(t.TempDir(), "none", "s.json"), nil, 0); err == nil || !strings.HasPrefix(err.Error(), "--save ") {
		t.Errorf("unwritable --save: %v", err)
	}
}
