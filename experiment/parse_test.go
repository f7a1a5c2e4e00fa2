package experiment

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/benchmark/workload"
)

func mustSLO(t *testing.T, s string) result.SLO {
	t.Helper()
	slo, err := result.ParseSLO(s)
	if err != nil {
		t.Fatal(err)
	}
	return slo
}

// TestIssueExample parses the issue's minimal file as written.
func TestIssueExample(t *testing.T) {
	path := filepath.Join("testdata", "minimal.yaml")
	e, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	want := &Experiment{
		File: path, Dir: "testdata",
		A: Engine{URL: "http://127.0.0.1:8001", Model: "m", Engine: "vllm"},
		B: Engine{URL: "http://127.0.0.1:8002", Model: "m", Launch: &Launch{
			Command:  []string{"servecmp", "serve-sim", "--addr", "127.0.0.1:8002", "--model", "m", "--max-running", "32"},
			ReadyURL: "http://127.0.0.1:8002/v1/models", ReadyTimeout: DefaultReadyTimeout, Grace: DefaultGrace,
		}},
		Workload: Workload{Random: &Random{Num: 64, InputLen: "128", OutputLen: "32", Seed: 1, Vocab: 32000, Burstiness: 1,
			FixedLength: true, RequestSeeds: true}},
		Check: Preflight{Requests: 8, OnMismatch: OnMismatchStop},
		Sweep: &Sweep{Kind: LoadConcurrency, Values: []float64{1, 4, 16}},
		Runs:  Runs{Count: 3, Kind: LoadConcurrency, Value: 16, Order: OrderInterleaved},
		SLO:   mustSLO(t, "ttft_ms:p99<=500,tpot_ms:p99<=50"),
		Alpha: DefaultAlpha,
	}
	if !reflect.DeepEqual(e, want) {
		t.Errorf("got  %+v\nwant %+v", e, want)
		t.Errorf("random: got %+v, want %+v", e.Workload.Random, want.Workload.Random)
		t.Errorf("launch: got %+v, want %+v", e.B.Launch, want.B.Launch)
	}
	spec, err := e.Workload.Random.Spec()
	if err != nil || spec.Num != 64 || spec.InputLen.String() != "128" || spec.OutputLen.String() != "32" || spec.Seed != 1 ||
		!spec.FixedLength || !spec.RequestSeeds || *spec.Sampling.Temperature != 0 || spec.Sampling.TopP != nil {
		t.Errorf("Spec() = %+v, %v", spec, err)
	}
	if reqs, err := workload.Random(spec); err != nil || len(reqs) != 64 || reqs[0].MaxTokens != 32 || !reqs[0].FixedLength {
		t.Errorf("materialised %d requests, %v", len(reqs), err)
	}
}

func TestRandomSampling(t *testing.T) {
	src := strings.Replace(base, "output_len: 4}", "output_len: 4, temperature: 0.7, top_p: 0.9, top_k: 40, request_seeds: false, fixed_length: false}", 1)
	e, err := Parse("x.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	spec, err := e.Workload.Random.Spec()
	if err != nil || *spec.Sampling.Temperature != 0.7 || *spec.Sampling.TopP != 0.9 || *spec.Sampling.TopK != 40 ||
		spec.RequestSeeds || spec.FixedLength {
		t.Errorf("Spec() = %+v, %v", spec, err)
	}
	for _, bad := range []string{"top_p: 1.5", "top_k: -2", "temperature: -1"} {
		src := strings.Replace(base, "output_len: 4}", "output_len: 4, "+bad+"}", 1)
		if _, err := Parse("x.yaml", []byte(src)); err == nil || !strings.HasPrefix(err.Error(), "x.yaml:3: workload.random.") {
			t.Errorf("%s: error %v", bad, err)
		}
	}
}

func TestFullGrammar(t *testing.T) {
	e, err := Load(filepath.Join("testdata", "full.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	wantA := Engine{
		URL: "http://127.0.0.1:8001/", Model: "llama-3-8b", Engine: "vllm",
		Manifest: map[string]string{
			"engine_version": "0.6.3", "checkpoint_revision": "abc123", "tokenizer": "llama-3-8b", "gpu_type": "H100",
			"gpu_count": "1", "topology": "tp1", "memory_limit": "0.9", "compute_precision": "bf16",
			"weight_precision": "bf16", "kv_precision": "auto", "quantization": "none",
			"attention_backend": "flashinfer", "graph_mode": "cuda-graphs", "cache_policy": "prefix-cache",
		},
		Extra: map[string]string{"driver": "550.54", "note": "first side"},
		Launch: &Launch{Command: []string{"vllm", "serve", "llama-3-8b", "--port", "8001"},
			ReadyURL: "http://127.0.0.1:8001/health", ReadyTimeout: 10 * time.Minute, Grace: 30 * time.Second},
		TraceDir: filepath.Join("testdata", "traces"),
	}
	if !reflect.DeepEqual(e.A, wantA) {
		t.Errorf("a:\ngot  %+v\nwant %+v", e.A, wantA)
	}
	if got := e.B.Launch.Command; !slices.Equal(got, []string{"python", "-m", "sglang.launch_server", "--model-path", "llama 3", "--port", "8002"}) {
		t.Errorf("b command %q", got)
	}
	if e.B.Launch.ReadyURL != "http://127.0.0.1:8002/v1/models" {
		t.Errorf("b ready_url %q", e.B.Launch.ReadyURL)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"intentional", e.Intentional, []string{"engine", "kv_precision"}},
		{"workload", e.Workload, Workload{File: filepath.Join("testdata", "workload.jsonl")}},
		{"check", e.Check, Preflight{Requests: 4, OnMismatch: OnMismatchContinue}},
		{"sweep", *e.Sweep, Sweep{Kind: LoadRate, Values: []float64{0.5, 1, 2.5}, Warmup: 2, ResetPrefixCache: true}},
		{"runs", e.Runs, Runs{Count: 5, Kind: LoadRate, Value: 2, Order: OrderBlocked, Warmup: 4, ResetPrefixCache: true}},
		{"profile", *e.Profile, Profile{After: 10 * time.Second, Steps: 50, Activities: []string{"CUDA_PROFILER"}}},
		{"slo", e.SLO.String(), "ttft_ms:p50<=200,ttft_ms:p99<=500,tpot_ms:mean<40,e2e_ms<=2000"},
		{"alpha", e.Alpha, 0.01},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: got %+v, want %+v", c.name, c.got, c.want)
		}
	}
	wantArgs := []string{"kv_precision=fp8_e5m2", "launch=python -m sglang.launch_server --model-path 'llama 3' --port 8002"}
	if got := e.B.ManifestArgs(); !slices.Equal(got, wantArgs) {
		t.Errorf("b manifest args %q", got)
	}
}

// TestContractFieldsAreManifestKeys keeps the grammar's contract fields in
// step with the manifest that benchmark writes.
func TestContractFieldsAreManifestKeys(t *testing.T) {
	keys := result.ManifestKeys()
	for _, k := range ContractFields {
		if !slices.Contains(keys, k) {
			t.Errorf("contract field %q is not a manifest key", k)
		}
	}
}

const base = `a: {url: "http://127.0.0.1:8001", model: m}
b: {url: "http://127.0.0.1:8002", model: m}
workload: {random: {num: 4, input_len: 8, output_len: 4}}
runs: {concurrency: 2}
`

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string // each a line of the error
	}{
		{"unknown top-level key", base + "sweeps: {concurrency: [1]}\n",
			[]string{`x.yaml:5: experiment: unknown key "sweeps" (want a, alpha, b, check, intentional, profile, runs, slo, sweep, workload)`}},
		{"unknown engine key", "a: {url: \"http://h:1\", model: m, gpu: H100}\nb: {url: \"http://h:2\", model: m}\n" + base[strings.Index(base, "workload"):],
			[]string{`x.yaml:1: a: unknown key "gpu"`}},
		{"missing engines", "workload: {file: x}\n",
			[]string{`x.yaml:1: workload.file:`, `x.yaml:1: missing engine "a"`, `x.yaml:1: missing engine "b"`, `x.yaml:1: experiment: missing "runs"`}},
		{"missing url and model", strings.Replace(base, `{url: "http://127.0.0.1:8002", model: m}`, "{engine: vllm}", 1),
			[]string{`x.yaml:2: b: missing "url"`, `x.yaml:2: b: missing "model"`}},
		{"bad url", strings.Replace(base, `"http://127.0.0.1:8001"`, "127.0.0.1:8001", 1),
			[]string{`x.yaml:1: a.url: want an http:// or https:// URL, got "127.0.0.1:8001"`}},
		{"negative count", strings.Replace(base, "{concurrency: 2}", "{count: -1, concurrency: 2}", 1),
			[]string{`x.yaml:4: runs.count: must be >= 1, got -1`}},
		{"unknown order", strings.Replace(base, "{concurrency: 2}", "{concurrency: 2, order: random}", 1),
			[]string{`x.yaml:4: runs.order: unknown value "random" (want interleaved or blocked)`}},
		{"concurrency and rate", strings.Replace(base, "{concurrency: 2}", "{concurrency: 2, rate: 1}", 1),
			[]string{`x.yaml:4: runs: give only one of concurrency and rate`}},
		{"no load", strings.Replace(base, "{concurrency: 2}", "{count: 2}", 1),
			[]string{`x.yaml:4: runs: want one of concurrency, rate`}},
		{"fractional concurrency", strings.Replace(base, "{concurrency: 2}", "{concurrency: 2.5}", 1),
			[]string{`x.yaml:4: runs.concurrency: want an integer, got "2.5"`}},
		{"quoted number", strings.Replace(base, "{concurrency: 2}", `{concurrency: "2"}`, 1),
			[]string{`x.yaml:4: runs.concurrency: want an integer, got "2"`}},
		{"sweep not increasing", base + "sweep: {concurrency: [1, 8, 4]}\n",
			[]string{`x.yaml:5: sweep.concurrency: values must increase (4 after 8)`}},
		{"sweep empty", base + "sweep: {rate: []}\n", []string{`x.yaml:5: sweep.rate: empty list`}},
		{"workload both", strings.Replace(base, "{random:", "{file: w.jsonl, random:", 1),
			[]string{`x.yaml:3: workload.file: w.jsonl is not a readable file`, `x.yaml:3: workload: give only one of file and random`}},
		{"bad length", strings.Replace(base, "input_len: 8", "input_len: 0", 1),
			[]string{`x.yaml:3: workload.random.input_len: length "0": must be >= 1`}},
		{"missing num", strings.Replace(base, "num: 4, ", "", 1),
			[]string{`x.yaml:3: workload.random: missing "num"`}},
		{"check", base + "check: {requests: 0, on_mismatch: ignore}\n",
			[]string{`x.yaml:5: check.requests: must be >= 1, got 0`, `x.yaml:5: check.on_mismatch: unknown value "ignore" (want stop or continue)`}},
		{"slo", base + "slo:\n  ttft_ms: p99<=abc\n  latency_ms: \"<=5\"\n  e2e_ms: [\"<=1\", \"<2\"]\n",
			[]string{`x.yaml:6: slo.ttft_ms: slo term "ttft_ms:p99<=abc": limit "abc" is not a number >= 0`,
				`x.yaml:7: slo.latency_ms: slo term "latency_ms<=5": unknown metric "latency_ms"`,
				`x.yaml:8: slo.e2e_ms: a second e2e_ms: threshold (first on line 8)`}},
		{"alpha", base + "alpha: 1\n", []string{`x.yaml:5: alpha: must be < 1, got 1`}},
		{"profile", base + "profile: {after: -1s, for: 5s, steps: 3}\n",
			[]string{`x.yaml:5: profile.after: must be >= 0, got -1s`, `x.yaml:5: profile: give only one of for and steps`}},
		{"profile activities and trace_dir", strings.Replace(base, "model: m}", `model: m, trace_dir: ""}`, 1) + "profile: {for: 1s, activities: []}\n",
			[]string{`x.yaml:1: a.trace_dir: must not be empty`, `x.yaml:5: profile.activities: empty list`}},
		{"duplicate key", base + "alpha: 0.1\nalpha: 0.2\n", []string{`x.yaml:6: experiment: key "alpha" given twice (first on line 5)`}},
		{"launch errors", strings.Replace(base, "model: m}", `model: m, launch: {command: "run 'x", grace: soon, retries: 3}}`, 1),
			[]string{`x.yaml:1: a.launch: unknown key "retries" (want command, grace, ready_timeout, ready_url)`,
				`x.yaml:1: a.launch.command: unterminated ' quote`,
				`x.yaml:1: a.launch.grace: want a duration such as 90s or 5m, got "soon"`}},
		{"launch mapping without command", strings.Replace(base, "model: m}", `model: m, launch: {grace: 1s}}`, 1),
			[]string{`x.yaml:1: a.launch: missing "command"`}},
		{"extra shadows a field", strings.Replace(base, "model: m}", `model: m, extra: {gpu_type: x}}`, 1),
			[]string{`x.yaml:1: a.extra: "gpu_type" is not free-form (write it as a.gpu_type)`}},
		{"gpu_count", strings.Replace(base, "model: m}", `model: m, gpu_count: two}`, 1),
			[]string{`x.yaml:1: a.gpu_count: want an integer, got "two"`}},
		{"engine not a mapping", strings.Replace(base, `{url: "http://127.0.0.1:8001", model: m}`, "vllm", 1),
			[]string{`x.yaml:1: a: want a mapping (key: value), got "vllm"`}},
		{"intentional", base + "intentional: [engine, engine, 'a b']\n",
			[]string{`x.yaml:5: intentional: "engine" given twice`, `x.yaml:5: intentional[2]: "a b" is not a plain name`}},
		{"metrics_url", strings.Replace(base, "model: m}", `model: m, metrics_url: off}`, 1),
			[]string{`x.yaml:1: a.metrics_url: want an http:// or https:// URL, got "off"`}},
		{"prompt without tokenizer", strings.Replace(base, "num: 4, ", "num: 4, prompt: text, ", 1),
			[]string{`x.yaml:3: workload.random.prompt: text prompts need workload.random.tokenizer`}},
		{"prompt form", strings.Replace(base, "num: 4, ", "num: 4, prompt: words, tokenizer: none.gguf, ", 1),
			[]string{`x.yaml:3: workload.random.prompt: unknown value "words" (want ids or text or chat)`, `x.yaml:3: workload.random.tokenizer: none.gguf is not a readable file`}},
		{"YAML syntax", "a: {url: x\nb: [\n", []string{`x.yaml:1: YAML: did not find expected ',' or '}'`}},
		{"empty", "", []string{`x.yaml: empty experiment file`}},
		{"not a mapping", "- a\n- b\n", []string{`x.yaml:1: experiment: want a mapping (key: value), got a list`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("x.yaml", []byte(tc.src))
			if err == nil {
				t.Fatal("accepted")
			}
			lines := strings.Split(err.Error(), "\n")
			for _, w := range tc.want {
				if !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, w) }) {
					t.Errorf("no line starting %q in:\n%s", w, err)
				}
			}
			if len(lines) != len(tc.want) {
				t.Errorf("%d errors, want %d:\n%s", len(lines), len(tc.want), err)
			}
			var se *SyntaxError
			if !errors.As(err, &se) || se.File != "x.yaml" {
				t.Errorf("not a *SyntaxError naming the file: %T", err)
			}
		})
	}
}

// TestMetricsURLAndPromptForm: metrics_url takes a URL or none, and a
// random workload's prompt form goes with its tokenizer, whose path is
// resolved against the file's directory.
func TestMetricsURLAndPromptForm(t *testing.T) {
	dir := t.TempDir()
	tok := filepath.Join(dir, "tok.gguf")
	if err := os.WriteFile(tok, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(base, "model: m}", `model: m, metrics_url: none}`, 1)
	src = strings.Replace(src, `{url: "http://127.0.0.1:8002", model: m}`, `{url: "http://127.0.0.1:8002", model: m, metrics_url: "http://127.0.0.1:9400/metrics"}`, 1)
	src = strings.Replace(src, "num: 4, ", "num: 4, tokenizer: tok.gguf, prompt: text, ", 1)
	e, err := Parse(filepath.Join(dir, "x.yaml"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if e.A.MetricsURL != MetricsNone || e.B.MetricsURL != "http://127.0.0.1:9400/metrics" || e.Workload.Random.Tokenizer != tok || e.Workload.Random.Prompt != PromptText {
		t.Errorf("%+v %+v %+v", e.A, e.B, e.Workload.Random)
	}
	ka, kb := Plan(e, "w")[0].Key, Plan(e, "w")[0].Key
	e.A.MetricsURL = ""
	if k := Plan(e, "w")[0].Key; k == ka || ka != kb {
		t.Error("metrics_url does not enter the check's key")
	}
}

func TestParseBaseIsValid(t *testing.T) {
	e, err := Parse("x.yaml", []byte(base))
	if err != nil {
		t.Fatal(err)
	}
	if e.Sweep != nil || e.Profile != nil || e.SLO != nil || e.Runs.Count != DefaultRunCount {
		t.Errorf("defaults: %+v", e)
	}
}

// TestParseBoundsWholeFile: values that would crash or overflow later are
// refused when the file is read, each on its line, before any step: a
// billion runs, a duration that overflows (not ready after -2562047h), a
// rate of one request in 10^300 s, a random workload beyond the
// generator's bounds.
func TestParseBoundsWholeFile(t *testing.T) {
	base := "a: {url: \"http://127.0.0.1:1\", model: m, launch: {command: x, ready_timeout: %s}}\nb: {url: \"http://127.0.0.1:2\", model: m}\n" +
		"workload: {random: {num: %s, input_len: 8, output_len: 4}}\nruns: {count: %s, %s}\nprofile: {after: %s, for: 5s}\n"
	for _, tc := range []struct {
		name                           string
		ready, num, count, load, after string
		want                           string
	}{
		{"ok", "5m", "4", "3", "concurrency: 2", "5s", ""},
		{"runs.count", "5m", "4", "1000000000", "concurrency: 2", "5s", "exp.yaml:4: runs.count: must be <= 1000"},
		{"seconds overflow", "9223372037", "4", "3", "concurrency: 2", "5s", "ready_timeout: must be at most 24h0m0s"},
		{"duration overflow", "5m", "4", "3", "concurrency: 2", "2562047h", "profile.after: must be at most 24h0m0s"},
		{"rate 1e-300", "5m", "4", "3", "rate: 1e-300", "5s", "runs.rate: 1e-300 requests/s is outside"},
		{"concurrency", "5m", "4", "3", "concurrency: 1000000", "5s", "runs.concurrency: must be <= 100000"},
		{"random num", "5m", "100000000", "3", "concurrency: 2", "5s", "workload.random: --num must be in"},
	} {
		src := fmt.Sprintf(base, tc.ready, tc.num, tc.count, tc.load, tc.after)
		_, err := Parse("exp.yaml", []byte(src))
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}
