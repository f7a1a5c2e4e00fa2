package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/cmd/servecmp/internal/cli"
)

// panicWriter panics on every write: it stands for a bug deep inside a
// command.
type panicWriter struct{}

func (panicWriter) Write([]byte) (int, error) { panic("boom\nat line two") }

// TestRunRecoversPanic checks that a panic anywhere below run becomes
// one line on stderr and exit code 1, without a stack trace.
func TestRunRecoversPanic(t *testing.T) {
	t.Setenv("SERVECMP_TRACEBACK", "")
	var errb bytes.Buffer
	code := run(context.Background(), []string{"--version"}, panicWriter{}, &errb)
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	got := errb.String()
	if strings.Count(got, "\n") != 1 || !strings.HasPrefix(got, "servecmp: internal error: boom at line two") {
		t.Errorf("stderr %q: want one line naming the panic", got)
	}
	if strings.Contains(got, "goroutine") || strings.Contains(got, ".go:") {
		t.Errorf("stderr holds a stack trace: %q", got)
	}
}

func TestProtectPassesExitCode(t *testing.T) {
	var errb bytes.Buffer
	if code := cli.Protect(&errb, func() int { return 2 }); code != 2 || errb.Len() != 0 {
		t.Errorf("protect = %d, stderr %q; want 2 and nothing", code, errb.String())
	}
}
