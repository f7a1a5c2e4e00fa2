package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/servecmp/servecmp/cmd/servecmp/internal/cli"

	"github.com/servecmp/servecmp/servesim"
)

// flakyServer is a simulated engine that answers every second generation
// request with HTTP 500.
func flakyServer(t *testing.T) *httptest.Server {
	t.Helper()
	sim := servesim.New(servesim.Config{EOSProb: -1})
	var n atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/v1/") && r.URL.Path != "/v1/models" && n.Add(1)%2 == 0 {
			http.Error(w, `{"error":{"message":"overloaded"}}`, 500)
			return
		}
		sim.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { s.Close(); sim.Close() })
	return s
}

func TestBenchmarkFailedShareGate(t *testing.T) {
	srv := flakyServer(t)
	for _, tc := range []struct {
		args []string
		code int
	}{
		{nil, cli.ExitTooManyFailures},
		{[]string{"--max-failed-share", "0.6"}, 0},
		{[]string{"--max-failed-share", "1.5"}, 2},
	} {
		out := filepath.Join(t.TempDir(), "r.json")
		var stdout, stderr bytes.Buffer
		args := append([]string{"benchmark", "--url", srv.URL, "--workload", benchWorkload(t, 8, 2), "--concurrency", "1",
			"--out", out, "--metrics-url", "none"}, tc.args...)
		if code := run(context.Background(), args, &stdout, &stderr); code != tc.code {
			t.Fatalf("%v: exit %d, want %d: %s", tc.args, code, tc.code, stderr.String())
		}
		if tc.code == cli.ExitTooManyFailures {
			if !strings.Contains(stderr.String(), "50.0% of the requests failed") {
				t.Errorf("stderr %s", stderr.String())
			}
			if r := readResult(t, out); r.Summary.RequestsFailed != 4 {
				t.Errorf("result not written whole: %+v", r.Summary)
			}
		}
	}
}

// TestBenchmarkRecordsWriteFailure: records that cannot be written (a
// full disk) fail the invocation; the result is still written.
func TestBenchmarkRecordsWriteFailure(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	srv, _ := benchServer(t, servesim.Config{EOSProb: -1})
	out := filepath.Join(t.TempDir(), "r.json")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"benchmark", "--url", srv.URL, "--workload", benchWorkload(t, 4, 2), "--concurrency", "2",
		"--out", out, "--records", "/dev/full", "--metrics-url", "none"}, &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "/dev/full") || !strings.Contains(stderr.String(), "no space left") {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if r := readResult(t, out); r.Summary.RequestsOK != 4 {
		t.Fatalf("result %+v", r.Summary)
	}
}

// TestURLCredentialsNeverShown runs benchmark and check with credentials
// in every URL flag and looks for them in every output: the result
// (manifest, server-metrics URL, warnings), the report, stdout and
// stderr, for a reachable and an unreachable server.
func TestURLCredentialsNeverShown(t *testing.T) {
	const user, pass = "alice-user", "hunter2-pass"
	srv, _ := benchServer(t, servesim.Config{EOSProb: -1})
	withCreds := strings.Replace(srv.URL, "http://", "http://"+user+":"+pass+"@", 1)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + user + ":" + pass + "@" + l.Addr().String()
	l.Close()
	dir := t.TempDir()
	wl := benchWorkload(t, 3, 2)
	runs := [][]string{
		{"benchmark", "--url", withCreds, "--workload", wl, "--concurrency", "1", "--out", filepath.Join(dir, "b.json"), "--records", filepath.Join(dir, "b.jsonl")},
		{"benchmark", "--url", withCreds, "--workload", wl, "--concurrency", "1", "--metrics-url", withCreds + "/nometrics", "--out", "-"},
		{"benchmark", "--url", dead, "--workload", wl, "--concurrency", "1"},
		{"benchmark", "--url", "http://" + user + ":" + pass + "@[::1", "--workload", wl, "--concurrency", "1"},
		{"benchmark", "--url", user + ":" + pass + "@127.0.0.1:1", "--workload", wl, "--concurrency", "1"},
		{"check", "--a", user + ":" + pass + "@127.0.0.1:1", "--b", withCreds, "--model", "sim-model", "--workload", wl},
		{"check", "--a", withCreds, "--b", withCreds, "--model", "sim-model", "--workload", wl, "--out", filepath.Join(dir, "c.json")},
		{"check", "--a", withCreds, "--b", dead, "--model", "sim-model", "--workload", wl, "--format", "json"},
	}
	for i, args := range runs {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), args, &stdout, &stderr)
		outputs := map[string]string{"stdout": stdout.String(), "stderr": stderr.String()}
		files, _ := filepath.Glob(filepath.Join(dir, "*"))
		for _, f := range files {
			b, _ := os.ReadFile(f)
			outputs[f] = string(b)
		}
		for name, text := range outputs {
			if strings.Contains(text, pass) || strings.Contains(text, user) {
				t.Errorf("run %d (%s, exit %d): %s shows the URL credentials:\n%s", i, args[0], code, name, text)
			}
		}
		if i == 0 && (code != 0 || !strings.Contains(outputs[filepath.Join(dir, "b.json")], "[redacted]@127.0.0.1")) {
			t.Errorf("run 0: exit %d, result %s", code, outputs[filepath.Join(dir, "b.json")])
		}
	}
}

// TestCheckSendsTheAPIKey: check honours OPENAI_API_KEY like benchmark.
func TestCheckSendsTheAPIKey(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", testAPIKey)
	srv, auths := benchServer(t, servesim.Config{EOSProb: -1})
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"check", "--a", srv.URL, "--b", srv.URL, "--model", "sim-model",
		"--workload", benchWorkload(t, 2, 2)}, &stdout, &stderr)
	got := auths()
	if code != 0 || len(got) == 0 {
		t.Fatalf("exit %d, %d requests: %s", code, len(got), stderr.String())
	}
	for _, a := range got {
		if a != "Bearer "+testAPIKey {
			t.Fatalf("Authorization %q", a)
		}
	}
	if strings.Contains(stdout.String()+stderr.String(), testAPIKey) {
		t.Fatal("the key was printed")
	}
	_ = fmt.Sprint()
}
