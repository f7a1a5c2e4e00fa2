package analysis

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/rules"
)

// writeResult writes a profile result whose window is [start, stop] s.
func writeResult(t *testing.T, dir string, start, stop float64) string {
	t.Helper()
	p := filepath.Join(dir, "result.json")
	doc := fmt.Sprintf(`{"schema":"servecmp.result/1","profile":{"api":"vllm","start_s":%g,"stop_s":%g,`+
		`"window_work":{"requests":10,"input_tokens":1000,"output_tokens":500}}}`, start, stop)
	if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// writeTrace writes a Kineto trace with kernels spanning spanS seconds.
func writeTrace(t *testing.T, dir string, spanS float64) string {
	t.Helper()
	p := filepath.Join(dir, "x.pt.trace.json")
	k := `{"ph":"X","cat":"kernel","name":"vllm::paged_attention_v2_kernel","pid":0,"tid":7,"ts":%g,"dur":1000,"args":{"device":0,"stream":7}}`
	doc := `{"traceEvents":[` + fmt.Sprintf(k, 1e9) + "," + fmt.Sprintf(k, 1e9+spanS*1e6-1000) + "]}"
	if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestWorkFrom(t *testing.T) {
	tests := []struct {
		name     string
		spanS    float64
		wantWarn bool
	}{
		{"matching span", 2.1, false},
		{"span 10% shorter is fine", 1.81, false},
		{"span much longer", 3, true},
		{"span much shorter", 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			res := writeResult(t, dir, 1, 3)
			opts, err := Flags{WorkFrom: res}.Options()
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Run(context.Background(), []Input{{Path: writeTrace(t, dir, tt.spanS)}}, rules.Default(), opts)
			if err != nil {
				t.Fatal(err)
			}
			w := rep.Ranks[0].Work
			if w == nil || w.Requests != 10 || w.InputTokens != 1000 || w.OutputTokens != 500 || w.From != res {
				t.Errorf("work %+v, want the window's counts from %s", w, res)
			}
			warned := strings.Contains(strings.Join(rep.Warnings, "\n"), "profile window recorded in "+res)
			if warned != tt.wantWarn {
				t.Errorf("span warning %v, want %v: %q", warned, tt.wantWarn, rep.Warnings)
			}
		})
	}
}

func TestWorkFromErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "bench.json")
	os.WriteFile(empty, []byte(`{"schema":"servecmp.result/1"}`), 0o644)
	tests := []struct {
		name string
		f    Flags
		want string
	}{
		{"missing file", Flags{WorkFrom: filepath.Join(dir, "none.json")}, "--work-from: open"},
		{"no profile block", Flags{WorkFrom: empty}, "--work-from: " + empty + ": no profile block"},
		{"empty window", Flags{WorkFrom: writeResult(t, dir, 0, 0)}, "the profile window is empty"},
		{"with --work", Flags{WorkFrom: empty, Work: "requests=1"}, "--work and --work-from exclude each other"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := tt.f.Options(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}
