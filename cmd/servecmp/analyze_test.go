package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/servecmp/servecmp/classify"
	"github.com/servecmp/servecmp/internal/testkit/golden"
	"github.com/servecmp/servecmp/internal/testkit/nsystest"
)

const ms = 1_000_000

// servingExport writes dir/name, a small export of one rank with two
// vLLM-style iterations of one decoder layer each: norm, QKV GEMM, attention,
// O GEMM, an all-reduce on a second stream overlapping the GEMM's tail, norm,
// gate-up GEMM, activation, down GEMM, all-reduce, and an unknown kernel;
// plus one host-to-device copy.
func servingExport(t *testing.T, dir, name string, pid int64, rank string, graphMode string) string {
	t.Helper()
	b := nsystest.New(nsystest.Schema2024)
	b.Process(pid, "python3")
	b.GPU(0, "NVIDIA H100 80GB HBM3")
	b.Host("node1")
	if rank != "" {
		b.Env("RANK", rank)
	}
	const us = 1000
	if graphMode != "" {
		b.GraphTraceMode(graphMode)
		// A graph launch whose kernels a whole-graph trace did not record.
		b.Launch(nsystest.L{PID: pid, TID: pid, Start: 600 * us, End: 610 * us, Corr: 999999, Name: "cudaGraphLaunch_v10000"})
	}
	type kern struct {
		name        string
		dur         int64 // us
		grid, block [3]int32
	}
	layer := []kern{
		{"void vllm::rms_norm_kernel<c10::BFloat16>", 20, [3]int32{16, 1, 1}, [3]int32{1024, 1, 1}},
		{"sm90_xmma_gemm_bf16bf16_bf16f32_qkv", 150, [3]int32{132, 1, 1}, [3]int32{384, 1, 1}},
		{"flash_fwd_splitkv_kernel", 300, [3]int32{64, 8, 1}, [3]int32{128, 1, 1}},
		{"sm90_xmma_gemm_bf16bf16_bf16f32_o", 100, [3]int32{132, 1, 1}, [3]int32{384, 1, 1}},
		{"void vllm::rms_norm_kernel<c10::BFloat16>", 20, [3]int32{16, 1, 1}, [3]int32{1024, 1, 1}},
		{"sm90_xmma_gemm_bf16bf16_bf16f32_gate_up", 400, [3]int32{132, 1, 1}, [3]int32{384, 1, 1}},
		{"void vllm::act_and_mul_kernel<silu>", 40, [3]int32{256, 1, 1}, [3]int32{256, 1, 1}},
		{"sm90_xmma_gemm_bf16bf16_bf16f32_down", 200, [3]int32{132, 1, 1}, [3]int32{384, 1, 1}},
		{"mystery_kernel", 30, [3]int32{1, 1, 1}, [3]int32{32, 1, 1}},
	}
	for it, off := range []int64{1000 * us, 3000 * us} {
		t0 := off + 50*us
		for _, k := range layer {
			b.Kernel(nsystest.K{PID: pid, Stream: 7, Start: t0, End: t0 + k.dur*us, Name: k.name, Grid: k.grid, Block: k.block})
			t0 += k.dur * us
			if strings.Contains(k.name, "_o") || strings.Contains(k.name, "_down") {
				// all-reduce on stream 8, starting 30 us before the GEMM ends
				b.Kernel(nsystest.K{PID: pid, Stream: 8, Start: t0 - 30*us, End: t0 + 70*us,
					Name: "ncclDevKernel_AllReduce_Sum_bf16_RING_LL", Grid: [3]int32{8, 1, 1}, Block: [3]int32{512, 1, 1}})
				t0 += 70 * us
			}
		}
		text := "execute_context_1(512)_generation_3(3)"
		if it == 1 {
			text = "execute_context_0(0)_generation_4(4)"
		}
		b.NVTX(pid, pid, off, off+1500*us, text)
	}
	b.Memcpy(nsystest.M{PID: pid, Stream: 7, Start: 900 * us, End: 950 * us, CopyKind: 1})
	// An outer range fixes the capture span to [0.5 ms, 5 ms).
	b.NVTX(pid, pid, 500*us, 5000*us, "benchmark")
	path := filepath.Join(dir, name)
	if err := b.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	return path
}

var digestRE = regexp.MustCompile(`"rules_digest": "[0-9a-f]*"`)

// runCmd runs servecmp in process and replaces the given paths in its
// output with stable placeholders.
func runCmd(t *testing.T, args []string, paths map[string]string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(context.Background(), args, &o, &e)
	stdout, stderr = o.String(), e.String()
	for p, name := range paths {
		stdout = strings.ReplaceAll(stdout, p, name)
		stderr = strings.ReplaceAll(stderr, p, name)
	}
	// The digest changes with every edit of the default rules.
	stdout = digestRE.ReplaceAllString(stdout, `"rules_digest": "DIGEST"`)
	return code, stdout, stderr
}

// goldenDir is testdata/ of this package, fixed before tests change
// directory.
var goldenDir, _ = filepath.Abs("testdata")

func TestAnalyzeGolden(t *testing.T) {
	dir := t.TempDir()
	servingExport(t, dir, "serving.sqlite", 100, "0", "")
	t.Chdir(dir) // relative paths keep the golden files free of temporary directories
	p, paths := "serving.sqlite", map[string]string(nil)
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"analyze_text", []string{"analyze", p}},
		{"analyze_json", []string{"analyze", "--format", "json", p}},
		{"analyze_csv", []string{"analyze", "--format", "csv", "--window", "2.5ms:4ms", p}},
		{"analyze_markdown", []string{"analyze", "--format", "md", p}}, // through the encoder registry
	} {
		t.Run(tc.golden, func(t *testing.T) {
			code, out, errOut := runCmd(t, tc.args, paths)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			// The one warning is the hint for the deliberately unknown kernel.
			golden.Run(t, filepath.Join(goldenDir, tc.golden), out, errOut)
		})
	}
}

func TestAnalyzeJSONFields(t *testing.T) {
	p := servingExport(t, t.TempDir(), "r3.sqlite", 100, "3", "graph")
	code, out, errOut := runCmd(t, []string{"analyze", "--format", "json", "--work", "requests=4,output_tokens=40", "mine=" + p}, nil)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"ranks", "bottleneck_rank", "warnings"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("no %s", k)
		}
	}
	rank := doc["ranks"].([]any)[0].(map[string]any)
	for _, k := range []string{"rank", "source", "device", "pid", "gpu", "host", "tool_version", "window_start_ns", "window_end_ns",
		"kernels", "kernel_sum_ns", "kernel_busy_ns", "device_work_sum_ns", "device_work_busy_ns", "regions", "coverage",
		"unmapped_top", "shapes", "iterations", "work", "multi_region_overlap_ns"} {
		if _, ok := rank[k]; !ok {
			t.Errorf("rank lacks %s", k)
		}
	}
	if rank["rank"] != "mine" || doc["bottleneck_rank"] != "mine" {
		t.Errorf("label %v, bottleneck %v", rank["rank"], doc["bottleneck_rank"])
	}
	if w := rank["work"].(map[string]any); w["requests"].(float64) != 4 || w["from"] != "flag" {
		t.Errorf("work %v", w)
	}
	if !strings.Contains(errOut, "servecmp: warning: ") || !strings.Contains(errOut, "--cuda-graph-trace=node") {
		t.Errorf("stderr lacks the graph warning: %q", errOut)
	}
}

func TestAnalyzeSaveMerge(t *testing.T) {
	dir := t.TempDir()
	servingExport(t, dir, "rank0.sqlite", 100, "0", "")
	servingExport(t, dir, "rank1.sqlite", 200, "1", "")
	t.Chdir(dir)
	p0, p1, s0, s1 := "rank0.sqlite", "rank1.sqlite", "node0.json", "node1.json"
	var paths map[string]string
	for _, c := range [][]string{{"analyze", "--save", s0, p0}, {"analyze", "--save", s1, "--format", "csv", p1}} {
		if code, _, e := runCmd(t, c, paths); code != 0 {
			t.Fatalf("%v: exit %d: %s", c, code, e)
		}
	}
	f, err := os.Open(s0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if r, err := classify.ReadSummary(f); err != nil || len(r.Ranks) != 1 || r.Ranks[0].Rank != "0" || r.RulesDigest == "" {
		t.Fatalf("saved summary: %v %+v", err, r)
	}
	code, out, e := runCmd(t, []string{"merge", s1, s0}, paths)
	if code != 0 {
		t.Fatalf("merge: exit %d: %s", code, e)
	}
	golden.Run(t, filepath.Join(goldenDir, "merge_text"), out, e)
	// Merging the same summary twice repeats its rank label.
	if code, _, e := runCmd(t, []string{"merge", s0, s0}, paths); code != 1 || !strings.Contains(e, `duplicate rank label "0"`) {
		t.Errorf("duplicate: exit %d: %s", code, e)
	}
	// Different rules are refused.
	rf := filepath.Join(dir, "extra.yaml")
	os.WriteFile(rf, []byte("rules:\n  - id: mystery\n    region: ffn\n    pattern: '^mystery_'\n"), 0o644)
	s2 := filepath.Join(dir, "node2.json")
	if code, _, e := runCmd(t, []string{"analyze", "--rules-add", rf, "--save", s2, "x=" + p1}, paths); code != 0 {
		t.Fatalf("analyze --rules-add: exit %d: %s", code, e)
	}
	if code, _, e := runCmd(t, []string{"merge", s0, s2}, paths); code != 1 || !strings.Contains(e, "different rules") {
		t.Errorf("digest: exit %d: %s", code, e)
	}
	if code, _, e := runCmd(t, []string{"merge", p0}, paths); code != 1 || !strings.Contains(e, "rank0.sqlite") {
		t.Errorf("merge of an export: exit %d: %s", code, e)
	}
}

func TestAnalyzeErrors(t *testing.T) {
	p := servingExport(t, t.TempDir(), "r.sqlite", 100, "0", "")
	bad := filepath.Join(t.TempDir(), "bad.sqlite")
	os.WriteFile(bad, []byte("SQLite format 3\x00 but then garbage"), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"bad window", []string{"analyze", "--window", "5:2", p}, 2, "--window"},
		{"window syntax", []string{"analyze", "--window", "2", p}, 2, "START:END"},
		{"window unit", []string{"analyze", "--window", "1h:2parsecs", p}, 2, "--window"},
		{"both windows", []string{"analyze", "--window", "1:2", "--window-nvtx", "x", p}, 2, "exclude"},
		{"bad regex", []string{"analyze", "--window-nvtx", "(", p}, 2, "--window-nvtx"},
		{"bad iteration regex", []string{"analyze", "--iteration-nvtx", "[", p}, 2, "--iteration-nvtx"},
		{"bad work", []string{"analyze", "--work", "requests=many", p}, 2, "--work"},
		{"bad format", []string{"analyze", "--format", "xml", p}, 2, "--format"},
		{"no args", []string{"analyze"}, 2, ""},
		{"missing file", []string{"analyze", "/nonexistent/x.sqlite"}, 1, "/nonexistent/x.sqlite"},
		{"corrupt file", []string{"analyze", bad}, 1, "bad.sqlite"},
		{"window outside", []string{"analyze", "--window", "100:200", p}, 1, "window"},
		{"nvtx no match", []string{"analyze", "--window-nvtx", "^nothing$", p}, 1, "--window-nvtx"},
		{"duplicate labels", []string{"analyze", "a=" + p, "a=" + p}, 1, `duplicate rank label "a"`},
		{"merge missing file", []string{"merge", "/nonexistent/s.json"}, 1, "/nonexistent/s.json: no such file"},
		{"merge bad format", []string{"merge", "--format", "yaml", p}, 2, "--format"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, e := runCmd(t, tc.args, nil)
			if code != tc.code || !strings.Contains(e, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d mentioning %q", code, e, tc.code, tc.want)
			}
			if tc.code == 1 && strings.Count(strings.TrimSpace(e), "\n") != 0 {
				t.Errorf("error is not one line: %q", e)
			}
		})
	}
}

func TestAnalyzeFlagsHaveUsage(t *testing.T) {
	e := &env{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	for _, cmd := range []*cobra.Command{newAnalyzeCmd(e), newMergeCmd(e)} {
		usage := cmd.Flags().FlagUsages()
		n := 0
		for _, line := range strings.Split(strings.TrimRight(usage, "\n"), "\n") {
			n++
			// "  --name TYPE   text": a flag line has at least three fields.
			if len(strings.Fields(line)) < 3 {
				t.Errorf("%s: flag without usage text: %q", cmd.Name(), line)
			}
		}
		if n < 3 {
			t.Errorf("%s: only %d flags", cmd.Name(), n)
		}
	}
}

func TestAnalyzeLabelsSeveralRanks(t *testing.T) {
	b := nsystest.New(nsystest.Schema2024)
	for _, pid := range []int64{100, 200} {
		b.Process(pid, "python3")
		b.Kernel(nsystest.K{PID: pid, Stream: 7, Start: 1000, End: 2000 + pid, Name: "flash_fwd_kernel"})
		b.Kernel(nsystest.K{PID: pid, Stream: 7, Start: 3000, End: 3500, Name: "ncclDevKernel_AllReduce_Sum_bf16_RING_LL"})
	}
	b.GPU(0, "NVIDIA H100 80GB HBM3")
	p := b.Write(t)
	code, out, e := runCmd(t, []string{"analyze", "--format", "json", "tp=" + p}, nil)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	var doc struct {
		Ranks []struct {
			Rank      string `json:"rank"`
			LabelFrom string `json:"label_from"`
		} `json:"ranks"`
		Bottleneck  string `json:"bottleneck_rank"`
		AcrossRanks struct {
			NonComm struct{ Min, Max int64 } `json:"non_comm_busy_ns"`
		} `json:"across_ranks"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Ranks) != 2 || doc.Ranks[0].Rank != "tp:100/0" || doc.Ranks[1].Rank != "tp:200/0" || doc.Ranks[0].LabelFrom != "user" {
		t.Errorf("ranks %+v", doc.Ranks)
	}
	// pid 200's attention kernel is 100 ns longer: it is the bottleneck.
	if doc.Bottleneck != "tp:200/0" || doc.AcrossRanks.NonComm.Max-doc.AcrossRanks.NonComm.Min != 100 {
		t.Errorf("bottleneck %s, across %+v", doc.Bottleneck, doc.AcrossRanks)
	}
}

// TestAnalyzeSharedData runs analyze on every real capture in ../shared
// (skipped when absent) and checks exit codes and invariants that hold for
// any input.
func TestAnalyzeSharedData(t *testing.T) {
	var files []string
	for _, pat := range []string{"nsys/*.sqlite", "kineto/*.json.gz"} {
		m, _ := filepath.Glob(filepath.Join(goldenDir, "..", "..", "..", "..", "shared", "testdata", pat))
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Skip("no shared test data")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			code, out, e := runCmd(t, []string{"analyze", "--format", "json", f}, nil)
			if code == 1 {
				if !strings.Contains(e, f) || strings.Count(strings.TrimSpace(e), "\n") != 0 {
					t.Errorf("error not one line naming the file: %q", e)
				}
				return
			}
			if code != 0 {
				t.Fatalf("exit %d: %s", code, e)
			}
			var rep classify.Report
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			for _, r := range rep.Ranks {
				var regionBusy int64
				for _, g := range r.Regions {
					regionBusy += g.BusyNs
					if g.BusyNs > g.SumNs || g.BusyNs > r.DeviceWorkBusyNs {
						t.Errorf("rank %s region %s: busy %d, sum %d, rank busy %d", r.Rank, g.Region, g.BusyNs, g.SumNs, r.DeviceWorkBusyNs)
					}
				}
				if r.DeviceWorkBusyNs > r.DeviceWorkSumNs || r.KernelBusyNs > r.DeviceWorkBusyNs || r.DeviceWorkBusyNs > r.WindowNs ||
					regionBusy-r.DeviceWorkBusyNs < r.MultiRegionOverlapNs || r.NonCommBusyNs+r.CommBusyNs < r.DeviceWorkBusyNs {
					t.Errorf("rank %s: inconsistent figures %+v", r.Rank, r)
				}
				if c := r.Coverage; c.TimeShare < 0 || c.TimeShare > 1 || c.CountShare < 0 || c.CountShare > 1 {
					t.Errorf("rank %s: coverage %+v", r.Rank, c)
				}
			}
		})
	}
}

func TestAnalyzeExplain(t *testing.T) {
	p := servingExport(t, t.TempDir(), "r0.sqlite", 100, "0", "")
	code, out, errOut := runCmd(t, []string{"analyze", "--format", "json", "--explain", p}, nil)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Ranks []struct {
			DeviceWork      int64 `json:"device_work"`
			DeviceWorkSumNs int64 `json:"device_work_sum_ns"`
			Explain         []struct {
				Name, Region, Method, Rule string
				Count                      int64
				SumNs                      int64 `json:"sum_ns"`
			} `json:"explain"`
		} `json:"ranks"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	r := doc.Ranks[0]
	var n, sum int64
	methods := map[string]bool{}
	for _, e := range r.Explain {
		n += e.Count
		sum += e.SumNs
		methods[e.Method] = true
		if e.Name == "mystery_kernel" && (e.Region != "other" || e.Method != "unmapped") {
			t.Errorf("mystery_kernel: %+v", e)
		}
		if e.Name == "flash_fwd_splitkv_kernel" && (e.Region != "attention" || e.Method != "name" || e.Rule == "") {
			t.Errorf("flash_fwd: %+v", e)
		}
	}
	// The explain rows account for every piece of work in the window, no more.
	if n != r.DeviceWork || sum != r.DeviceWorkSumNs {
		t.Errorf("explain covers %d items / %d ns, summary %d / %d", n, sum, r.DeviceWork, r.DeviceWorkSumNs)
	}
	if !methods["name"] || !methods["unmapped"] {
		t.Errorf("methods %v", methods)
	}
	// Text output carries the explain table.
	_, txt, _ := runCmd(t, []string{"analyze", "--explain", p}, nil)
	if !strings.Contains(txt, "Explain: every name") || !strings.Contains(txt, "mystery_kernel") {
		t.Errorf("text lacks the explain table:\n%s", txt)
	}
}

func TestAnalyzeDirectory(t *testing.T) {
	dir := t.TempDir()
	servingExport(t, dir, "a.sqlite", 100, "0", "")
	servingExport(t, dir, "b.sqlite", 101, "1", "")
	code, out, errOut := runCmd(t, []string{"analyze", "--format", "json", "job=" + dir}, nil)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{`"rank": "job/a.sqlite"`, `"rank": "job/b.sqlite"`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %s", want)
		}
	}
}

// TestAnalyzeLeavesInputUnchanged runs the whole command on an export in a
// read-only directory and checks that the file's bytes and the directory's
// listing are the same afterwards (no journal, WAL or shm file left beside it).
func TestAnalyzeLeavesInputUnchanged(t *testing.T) {
	dir := t.TempDir()
	p := servingExport(t, dir, "ro.sqlite", 100, "0", "")
	if err := os.Chmod(p, 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	state := func() (string, [32]byte) {
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(names, ","), sha256.Sum256(b)
	}
	names0, sum0 := state()
	for _, args := range [][]string{{"analyze", p}, {"analyze", "--explain", "--format", "json", p}} {
		if code, _, errOut := runCmd(t, args, nil); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
	}
	names1, sum1 := state()
	if names0 != names1 || sum0 != sum1 {
		t.Errorf("input changed: listing %q -> %q, sha256 equal %v", names0, names1, sum0 == sum1)
	}
}

// TestAnalyzeRankErrorsOneLine: when every rank of a file fails (no range
// matches --window-nvtx), the error is still one line.
func TestAnalyzeRankErrorsOneLine(t *testing.T) {
	b := nsystest.New(nsystest.Schema2024)
	for _, pid := range []int64{100, 200} {
		b.Process(pid, "python3")
		b.Kernel(nsystest.K{PID: pid, Stream: 7, Start: 1000, End: 2000, Name: "flash_fwd_kernel"})
	}
	p := b.Write(t)
	for _, args := range [][]string{
		{"analyze", "--window-nvtx", "^nothing$", p},
		{"analyze", "--skip-start", "1s", p},
	} {
		code, _, e := runCmd(t, args, nil)
		if code != 1 || strings.Count(strings.TrimSpace(e), "\n") != 0 || !strings.Contains(e, p) {
			t.Errorf("%v: exit %d, stderr %q; want exit 1 and one line naming the file", args, code, e)
		}
	}
}

// TestAnalyzeSaveErrors: a --save path that cannot be written gives one
// line naming that path (not a temporary file), then the usage hint, and
// exit 2: a refused output path is a mistake in the invocation, as for
// every command's output flags.
func TestAnalyzeSaveErrors(t *testing.T) {
	dir := t.TempDir()
	p := servingExport(t, dir, "r.sqlite", 100, "0", "")
	for _, save := range []string{filepath.Join(dir, "no", "such", "s.json"), dir} {
		code, _, e := runCmd(t, []string{"analyze", "--save", save, p}, nil)
		line, hint, _ := strings.Cut(strings.TrimSpace(e), "\n")
		if code != 2 || !strings.Contains(line, "--save "+save+":") || hint != "Run 'servecmp analyze --help' for usage." {
			t.Errorf("--save %s: exit %d, stderr %q; want exit 2 and one line naming it", save, code, e)
		}
	}
}

// TestSaveRefusesInputs: analyze --save and merge --save refuse a path
// that is one of their inputs (directly, through a link, or inside an
// input directory), before any work, and leave the input as it was.
func TestSaveRefusesInputs(t *testing.T) {
	dir := t.TempDir()
	p := servingExport(t, dir, "r.sqlite", 100, "0", "")
	s := filepath.Join(dir, "s.json")
	if code, _, e := runCmd(t, []string{"analyze", "--save", s, p}, nil); code != 0 {
		t.Fatalf("analyze --save: exit %d: %s", code, e)
	}
	link := filepath.Join(t.TempDir(), "link.sqlite")
	if err := os.Symlink(p, link); err != nil {
		t.Fatal(err)
	}
	sum := func(path string) [32]byte {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return sha256.Sum256(b)
	}
	export0, summary0 := sum(p), sum(s)
	for _, args := range [][]string{
		{"analyze", "--save", p, p},
		{"analyze", "--save", p, "x=" + p},
		{"analyze", "--save", link, p},
		{"analyze", "--save", p, "job=" + dir},
		{"merge", "--save", s, s},
		{"merge", "--format", "json", "--save", s, s},
	} {
		code, out, e := runCmd(t, args, nil)
		if code != 2 || out != "" || !strings.Contains(e, "--save") || !strings.Contains(e, "is also an input") {
			t.Errorf("%v: exit %d, stdout %d bytes, stderr %q; want exit 2 refusing the input", args, code, len(out), e)
		}
	}
	if sum(p) != export0 || sum(s) != summary0 {
		t.Error("an input was changed")
	}
	// The check comes before any work: a bad save path is reported even
	// when the input could not be read.
	bad := filepath.Join(dir, "bad.sqlite")
	os.WriteFile(bad, []byte("SQLite format 3\x00 but then garbage"), 0o644)
	if code, _, e := runCmd(t, []string{"analyze", "--save", filepath.Join(dir, "no", "s.json"), bad}, nil); code != 2 || !strings.Contains(e, "--save") {
		t.Errorf("save checked after reading: exit %d, %q", code, e)
	}
}

// TestSaveFileMode: --save writes a complete summary readable by all
// (0644), and merge --save writes one that merges again.
func TestSaveFileMode(t *testing.T) {
	dir := t.TempDir()
	p := servingExport(t, dir, "r.sqlite", 100, "0", "")
	s, m := filepath.Join(dir, "s.json"), filepath.Join(dir, "m.json")
	for _, args := range [][]string{{"analyze", "--save", s, p}, {"merge", "--save", m, s}} {
		if code, _, e := runCmd(t, args, nil); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, e)
		}
	}
	for _, path := range []string{s, m} {
		st, err := os.Stat(path)
		if err != nil || st.Mode().Perm() != 0o644 {
			t.Errorf("%s: %v, mode %v", path, err, st.Mode())
		}
		r, err := classify.ReadSummaryFile(path)
		if err != nil || len(r.Ranks) != 1 || r.Ranks[0].Rank != "0" {
			t.Errorf("%s: %v", path, err)
		}
	}
}
