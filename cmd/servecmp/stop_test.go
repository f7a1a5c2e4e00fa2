package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/servecmp/servecmp/internal/interrupt"
)

// slowServer is an engine whose streams send one chunk and then hang
// until the client goes away. It counts the generation requests it got.
func slowServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var sent atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/models":
			fmt.Fprint(w, `{"data":[{"id":"slow-model","owned_by":"vllm"}]}`)
			return
		case "/v1/completions", "/v1/chat/completions":
		default:
			http.NotFound(w, r)
			return
		}
		sent.Add(1)
		_, _ = io.Copy(io.Discard, r.Body) // then the server sees the client go
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"text\":\"a\"}]}\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(s.Close)
	return s, &sent
}

// TestBenchmarkSecondSignalCancelsAtOnce: the first signal stops sending
// and starts the drain (which would wait up to 30 s for the hanging
// streams); the second cancels them, and the incomplete result is
// written at once.
func TestBenchmarkSecondSignalCancelsAtOnce(t *testing.T) {
	srv, sent := slowServer(t)
	out := filepath.Join(t.TempDir(), "res.json")
	sigs := make(chan os.Signal, 2)
	ctx, stop := interrupt.Watch(context.Background(), sigs, nil)
	defer stop()
	var stdout, stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"benchmark", "--url", srv.URL, "--workload", benchWorkload(t, 8, 4), "--concurrency", "2",
			"--metrics-url", "none", "--progress", "off", "--out", out}, &stdout, &stderr)
	}()
	for deadline := time.Now().Add(5 * time.Second); sent.Load() < 2; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the requests never reached the server")
		}
	}
	sigs <- os.Interrupt
	select {
	case code := <-done:
		t.Fatalf("returned %d after the first signal, before the drain (stderr %s)", code, stderr.String())
	case <-time.After(300 * time.Millisecond):
	}
	t0 := time.Now()
	sigs <- syscall.SIGTERM
	var code int
	select {
	case code = <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the second signal did not end the run within 5 s")
	}
	if el := time.Since(t0); el > 3*time.Second {
		t.Errorf("the result took %v after the second signal", el)
	}
	res := readResult(t, out)
	if code != 1 || !res.Incomplete || res.Summary.RequestsCancelled != 2 || sent.Load() != 2 {
		t.Fatalf("code %d, incomplete %v, cancelled %d, sent %d; stderr %s", code, res.Incomplete, res.Summary.RequestsCancelled, sent.Load(), stderr.String())
	}
	if !strings.Contains(stderr.String(), "incomplete") {
		t.Errorf("stderr does not say the result is incomplete: %s", stderr.String())
	}
}

// TestEachLineStopsOnCancel: classify reading a standard input that
// never ends (a terminal, an idle pipe) returns at the interrupt.
