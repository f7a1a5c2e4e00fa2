package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestGPUFlagsCheckedBeforeWork: a bad --gpu-metrics-url or --gpus is a
// usage error (exit 2, one line and the usage hint, credentials masked) before any request
// reaches the engine or an exporter, and nothing is written.
func TestGPUFlagsCheckedBeforeWork(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { hits.Add(1) }))
	defer srv.Close()
	wl := benchWorkload(t, 4, 4)
	good := srv.URL + "/metrics"
	many := []string{}
	for i := range 65 {
		many = append(many, "--gpu-metrics-url", fmt.Sprintf("%s/m%d", srv.URL, i))
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"not http", []string{"--gpu-metrics-url", "ftp://user:hunter2@h/metrics"}, "not an http(s) URL"},
		{"no host", []string{"--gpu-metrics-url", "http:///metrics"}, "not an http(s) URL"},
		{"given twice", []string{"--gpu-metrics-url", good, "--gpu-metrics-url", good}, "given twice"},
		{"none beside a URL", []string{"--gpu-metrics-url", "none", "--gpu-metrics-url", good}, `"none"`},
		{"selection without a URL", []string{"--gpus", "0"}, "needs a GPU exporter URL"},
		{"selection not a GPU", []string{"--gpu-metrics-url", good, "--gpus", "0,$(rm -rf ~)"}, "neither an index nor a GPU UUID"},
		{"selection too long", []string{"--gpu-metrics-url", good, "--gpus", strings.Repeat("1,", 300) + "1"}, "at most"},
		{"too many exporters", many, "at most 64"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "r.json")
			var o, e bytes.Buffer
			args := append([]string{"benchmark", "--url", srv.URL, "--workload", wl, "--concurrency", "1", "--out", out, "--progress", "off"}, tc.args...)
			code := run(t.Context(), args, &o, &e)
			msg, _, _ := strings.Cut(strings.TrimSpace(e.String()), "\nRun 'servecmp ") // the line naming the help
			if code != 2 || !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") || strings.Contains(e.String(), "hunter2") {
				t.Errorf("exit %d, stderr %q", code, msg)
			}
			if n := hits.Load(); n != 0 {
				t.Errorf("%d requests sent before the flags were checked", n)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("a result was written")
			}
		})
	}
}

// TestRedirectNeverForwardsTheKey is the case for every command
// that sends the API key: an engine URL that answers 307 to another port.
// The other server is never asked (so neither gets the key nor is
// measured), the command fails naming the redirect, and the key reaches
// no output.
func TestRedirectNeverForwardsTheKey(t *testing.T) {
	const key = "sk-redirect-test-0123456789abcdef"
	t.Setenv("OPENAI_API_KEY", key)
	var otherHits atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { otherHits.Add(1) }))
	defer other.Close()
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer first.Close()
	wl := benchWorkload(t, 4, 4)
	dir := t.TempDir()
	for _, args := range [][]string{
		{"benchmark", "--url", first.URL, "--workload", wl, "--concurrency", "1", "--out", filepath.Join(dir, "r.json"),
			"--records", filepath.Join(dir, "r.jsonl"), "--progress", "off", "--metrics-url", "none"},
		{"benchmark", "--url", first.URL, "--model", "m", "--engine", "vllm", "--workload", wl, "--concurrency", "1",
			"--out", filepath.Join(dir, "r2.json"), "--progress", "off", "--metrics-url", "none"},
		{"check", "--a", first.URL, "--b", first.URL, "--model", "m", "--engine-a", "vllm", "--engine-b", "vllm", "--workload", wl,
			"--out", filepath.Join(dir, "c.json")},
	} {
		var o, e bytes.Buffer
		code := run(t.Context(), args, &o, &e)
		outs := o.String() + e.String()
		for _, name := range []string{"r.json", "r.jsonl", "r2.json", "c.json"} {
			b, _ := os.ReadFile(filepath.Join(dir, name))
			outs += string(b)
		}
		if code == 0 || !strings.Contains(outs, "redirect") || strings.Contains(outs, key) {
			t.Errorf("%s: exit %d; outputs %q", args[0], code, outs)
		}
	}
	if n := otherHits.Load(); n != 0 {
		t.Fatalf("the redirect's target got %d requests", n)
	}
}
