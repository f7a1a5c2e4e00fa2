package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServeSimGPUs: --gpus serves the GPU page with the flags' power and
// clock events; an out-of-range count is a usage error.
func TestServeSimGPUs(t *testing.T) {
	portFile := filepath.Join(t.TempDir(), "url")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr simStderrBuffer
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"serve-sim", "--addr", "127.0.0.1:0", "--port-file", portFile,
			"--gpus", "2", "--gpu-idle-watts", "55", "--gpu-clock-events", "0x40"}, &stdout, &stderr)
	}()
	var url string
	for deadline := time.Now().Add(5 * time.Second); url == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(portFile); err == nil && len(b) > 0 {
			url = strings.TrimSpace(string(b))
		}
	}
	if url == "" {
		t.Fatalf("no port file; stderr %q", stderr.String())
	}
	resp, err := http.Get(url + "/dcgm/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	page := string(b)
	for _, want := range []string{`DCGM_FI_DEV_POWER_USAGE{gpu="1",`, `} 55` + "\n", `DCGM_FI_DEV_CLOCKS_EVENT_REASONS{gpu="0",`, `} 65` + "\n"} {
		if !strings.Contains(page, want) {
			t.Errorf("GPU page lacks %q:\n%s", want, page)
		}
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"serve-sim", "--gpus", "100"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "GPU count") {
		t.Errorf("--gpus 100: exit %d %q", code, errb.String())
	}
}
