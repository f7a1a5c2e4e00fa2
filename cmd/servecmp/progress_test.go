package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/servesim"
)

// TestBenchmarkProgressOn: --progress on with stderr not a terminal gives
// plain progress lines on stderr, ended by a newline, without carriage
// returns or escapes, and leaves stdout to the result text alone.
func TestBenchmarkProgressOn(t *testing.T) {
	srv, _ := benchServer(t, servesim.Config{EOSProb: -1})
	wl := benchWorkload(t, 16, 4)
	var stdout, stderr bytes.Buffer
	args := []string{"benchmark", "--url", srv.URL, "--workload", wl, "--sweep-concurrency", "2,4",
		"--warmup", "2", "--metrics-url", "none", "--progress", "on"}
	if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	errs, outs := stderr.String(), stdout.String()
	if strings.ContainsAny(errs, "\r\x1b") {
		t.Errorf("stderr holds a carriage return or an escape:\n%q", errs)
	}
	if !strings.Contains(errs, "step 2/2 concurrency 4  16/16 done  0 in flight  0 failed  elapsed ") {
		t.Errorf("stderr lacks the final progress line:\n%s", errs)
	}
	if i := strings.Index(errs, "step 2/2"); i < 0 || !strings.Contains(errs[i:], " tok/s\n") {
		t.Errorf("the final progress line does not end with a newline:\n%q", errs)
	}
	if !strings.HasPrefix(outs, "engine ") {
		t.Errorf("stdout does not start with the result text:\n%s", outs)
	}
	for _, s := range []string{"in flight", "ETA", "warmup concurrency", "\r"} {
		if strings.Contains(outs, s) {
			t.Errorf("stdout holds progress (%q):\n%s", s, outs)
		}
	}
}
