package servesim

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	capture "github.com/servecmp/servecmp/event"
	"github.com/servecmp/servecmp/kineto"
)

func postProfile(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestProfilerEndpointsNeedProfileDir(t *testing.T) {
	_, url := newTest(t, Config{})
	if code, _ := postProfile(t, url+"/start_profile", ""); code != http.StatusNotFound {
		t.Errorf("start without --profile-dir: HTTP %d, want 404 (vLLM without a profiler config)", code)
	}
}

// TestProfilerVLLM: empty answers, 400 on a second start and on a stop
// while idle, and a trace whose truth matches the tokens served.
func TestProfilerVLLM(t *testing.T) {
	dir := t.TempDir()
	_, url := newTest(t, Config{ProfileDir: dir, DecodeBase: time.Millisecond})
	if code, ans := postProfile(t, url+"/start_profile", ""); code != 200 || ans != "" {
		t.Fatalf("start: %d %q", code, ans)
	}
	if code, _ := postProfile(t, url+"/start_profile", ""); code != http.StatusBadRequest {
		t.Errorf("second start: %d, want 400", code)
	}
	r := post(t, context.Background(), url+"/v1/completions", completion([]int{5, 6, 7}, 20, nil))
	ids, _, _ := r.tokens()
	if code, ans := postProfile(t, url+"/stop_profile", ""); code != 200 || ans != "" {
		t.Fatalf("stop: %d %q", code, ans)
	}
	if code, _ := postProfile(t, url+"/stop_profile", ""); code != http.StatusBadRequest {
		t.Errorf("stop while idle: %d, want 400", code)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "serve-sim_*.pt.trace.json.gz"))
	if len(files) != 1 {
		t.Fatalf("trace files %v", files)
	}
	tokens, busy, steps := readTruth(t, files[0])
	if tokens != int64(len(ids)) || steps != len(ids) || busy != int64(len(ids))*int64(time.Millisecond) {
		t.Errorf("truth: %d tokens, %d steps, busy %d ns; served %d tokens", tokens, steps, busy, len(ids))
	}
}

// TestProfilerSGLang: the answers' text, output_dir from the body and
// num_steps stopping the profiler by itself.
func TestProfilerSGLang(t *testing.T) {
	def, other := t.TempDir(), t.TempDir()
	_, url := newTest(t, Config{ProfileDir: def, EngineName: "sglang", DecodeBase: time.Millisecond})
	body := `{"output_dir":"` + other + `","num_steps":3,"activities":["CPU","GPU"]}`
	if code, ans := postProfile(t, url+"/start_profile", body); code != 200 || ans != "Start profiling.\n" {
		t.Fatalf("start: %d %q", code, ans)
	}
	post(t, context.Background(), url+"/v1/completions", completion([]int{5, 6, 7}, 10, nil))
	var files []string
	for range 100 {
		if files, _ = filepath.Glob(filepath.Join(other, "*-TP-0.trace.json.gz")); len(files) == 1 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if len(files) != 1 {
		t.Fatalf("no trace in output_dir after num_steps")
	}
	if _, _, steps := readTruth(t, files[0]); steps != 3 {
		t.Errorf("%d steps recorded, want num_steps 3", steps)
	}
	if code, _ := postProfile(t, url+"/stop_profile", ""); code != http.StatusBadRequest {
		t.Errorf("stop after num_steps: %d, want 400 (not in progress)", code)
	}
	if code, ans := postProfile(t, url+"/start_profile", ""); code != 200 || ans != "Start profiling.\n" {
		t.Fatalf("start without a body: %d %q", code, ans)
	}
	if code, ans := postProfile(t, url+"/stop_profile", ""); code != 200 || ans != "Stop profiling. This will take some time.\n" {
		t.Fatalf("stop: %d %q", code, ans)
	}
	if files, _ := filepath.Glob(filepath.Join(def, "*.trace.json.gz")); len(files) != 1 {
		t.Errorf("trace in the default directory: %v", files)
	}
}

func readTruth(t *testing.T, path string) (tokens, busy int64, steps int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Sim struct {
			Steps  int   `json:"steps"`
			Tokens int64 `json:"window_output_tokens"`
			Busy   int64 `json:"busy_ns"`
		} `json:"serve_sim"`
	}
	if err := json.NewDecoder(zr).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	return doc.Sim.Tokens, doc.Sim.Busy, doc.Sim.Steps
}

// TestTraceKernels: the kineto reader reads the trace; the kernels are
// back to back, add up to each step's cost exactly and carry the
// engine's kernel names.
func TestTraceKernels(t *testing.T) {
	steps := []simStep{
		{Start: 1_700_000_000_000_000_123, Prefill: 333_333, Decode: 1_000_001, Tokens: 4},
		{Start: 1_700_000_000_002_000_000, Prefill: 0, Decode: 999, Tokens: 5},
		{Start: 1_700_000_000_003_000_000, Prefill: 0, Decode: 7, Tokens: 5}, // shorter than one ns per kernel
	}
	for _, engine := range []string{"vllm", "sglang"} {
		t.Run(engine, func(t *testing.T) {
			var buf bytes.Buffer
			if err := encodeTrace(&buf, engine, steps); err != nil {
				t.Fatal(err)
			}
			capt, err := kineto.Read(context.Background(), &buf, "sim.json", capture.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(capt.Ranks) != 1 {
				t.Fatalf("%d ranks", len(capt.Ranks))
			}
			var sum int64
			names := map[string]bool{}
			for _, w := range capt.Ranks[0].Work {
				sum += w.End - w.Start
				names[capt.Names.Name(w.Name)] = true
			}
			if want := int64(333_333 + 1_000_001 + 999 + 7); sum != want {
				t.Errorf("kernels add up to %d ns, want %d", sum, want)
			}
			for _, k := range simKernels[engine][1] {
				if !names[k.name] {
					t.Errorf("kernel %q missing", k.name)
				}
			}
			if r := capt.Ranks[0]; r.SpanStart != steps[0].Start || r.SpanEnd != steps[2].Start+7 {
				t.Errorf("span %d..%d", r.SpanStart, r.SpanEnd)
			}
		})
	}
}
