package servesim

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestServe(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	urls := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, DefaultConfig(), "127.0.0.1:0", func(url string, c Config) error {
			if c.ModelName == "" {
				t.Errorf("ready got no effective configuration: %+v", c)
			}
			urls <- url
			return nil
		})
	}()
	var url string
	select {
	case url = <-urls:
	case err := <-done:
		t.Fatalf("Serve returned before listening: %v", err)
	}
	resp, err := http.Get(url + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /v1/models: %s", resp.Status)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve after cancel: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not stop")
	}
}

func TestServeRefuses(t *testing.T) {
	stop := errors.New("stop")
	called := false
	if err := Serve(context.Background(), DefaultConfig(), "127.0.0.1:0", func(string, Config) error { called = true; return stop }); !errors.Is(err, stop) || !called {
		t.Errorf("ready's error: got %v", err)
	}
	bad := DefaultConfig()
	bad.ErrorRate = 2
	if err := Serve(context.Background(), bad, "127.0.0.1:0", func(string, Config) error { t.Error("ready called"); return nil }); err == nil {
		t.Error("an invalid configuration was served")
	}
}

func TestAnnounce(t *testing.T) {
	var log strings.Builder
	port := filepath.Join(t.TempDir(), "url")
	if err := Announce(&log, port)("http://127.0.0.1:5", DefaultConfig()); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(port)
	if err != nil || string(b) != "http://127.0.0.1:5\n" || !strings.HasPrefix(log.String(), "serve-sim listening on http://127.0.0.1:5 (model ") {
		t.Errorf("port file %q (%v), log %q", b, err, log.String())
	}
	if err := Announce(&log, filepath.Join(t.TempDir(), "no", "url"))("http://x", DefaultConfig()); err == nil {
		t.Error("an unwritable port file was not reported")
	}
}
