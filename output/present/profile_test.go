package present

import (
	"bytes"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/compare"
	"github.com/servecmp/servecmp/profile"
)

func TestDeltasTableSaysWorkFrom(t *testing.T) {
	g := &compare.GPUTime{Basis: "output_token", WorkFrom: "A: a.json, B: b.json"}
	if n := deltasTable(g).Notes; len(n) != 1 || !strings.Contains(n[0], "profile window") || !strings.Contains(n[0], "A: a.json, B: b.json") {
		t.Errorf("notes %q", n)
	}
	g.WorkFrom = ""
	if n := deltasTable(g).Notes; len(n) != 0 {
		t.Errorf("notes %q without work_from", n)
	}
}

func TestWriteProfileText(t *testing.T) {
	ack := 3.25
	b := &profile.Block{API: "sglang", StartS: 1.25, StopS: 3.25, TraceDir: "/t", Files: []string{"/t/x.trace.json.gz"},
		Start: profile.Call{RequestedS: 1.2, Answer: "Start profiling."}, Stop: &profile.Call{RequestedS: 3.25, AcknowledgedS: &ack},
		WindowWork: profile.Work{Requests: 3, InputTokens: 30, OutputTokens: 300}}
	var buf bytes.Buffer
	if err := writeProfileBlock(&buf, b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"sglang profiler API", "1.250 s .. 3.250 s (2.000 s", "3 requests, 30 input tokens, 300 output tokens", "/t/x.trace.json.gz", `start "Start profiling."`} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, buf.String())
		}
	}
	buf.Reset()
	_ = writeProfileBlock(&buf, &profile.Block{API: "vllm"})
	if !strings.Contains(buf.String(), "the profiler did not run") {
		t.Errorf("no-window text:\n%s", buf.String())
	}
}
