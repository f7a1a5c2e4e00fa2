package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// simStderrBuffer is a bytes.Buffer safe for a writer and a reader in two
// goroutines.
type simStderrBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *simStderrBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *simStderrBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestServeSimCLI(t *testing.T) {
	portFile := filepath.Join(t.TempDir(), "url")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr simStderrBuffer
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"serve-sim", "--addr", "127.0.0.1:0", "--port-file", portFile,
			"--decode-base", "1ms", "--engine", "sglang", "--model", "tiny"}, &stdout, &stderr)
	}()
	var url string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(portFile); err == nil && len(b) > 0 {
			url = strings.TrimSpace(string(b))
			break
		}
	}
	if url == "" {
		t.Fatalf("no port file; stderr %q", stderr.String())
	}
	if !strings.Contains(stderr.String(), "serve-sim listening on "+url) {
		t.Errorf("stderr %q lacks the listening line for %s", stderr.String(), url)
	}
	resp, err := http.Get(url + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `"owned_by":"sglang"`) || !strings.Contains(string(b), `"id":"tiny"`) {
		t.Errorf("models %s", b)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d, stderr %q", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve-sim did not stop on cancel")
	}
	if stdout.String() != "" {
		t.Errorf("stdout %q, want empty", stdout.String())
	}
}

func TestServeSimCLIBadConfig(t *testing.T) {
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"serve-sim", "--error-rate", "2"}, &out, &errb)
	if code != 2 || !strings.Contains(errb.String(), "error rate") {
		t.Errorf("exit %d %q", code, errb.String())
	}
}
