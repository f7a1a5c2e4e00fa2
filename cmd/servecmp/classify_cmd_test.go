package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/rules"
)

func runRulesCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func writeFile(t *testing.T, name, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestClassifyArgs(t *testing.T) {
	code, out, errs := runRulesCmd(t, "classify",
		"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
		"nvjet_tst_64x8_64x16_4x1_v_bz_TNT",
		"[CUDA memset]",
		"my_own_kernel")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := "communication\tcomm.nccl\tncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)\n" +
		"other\tgemm\tnvjet_tst_64x8_64x16_4x1_v_bz_TNT\n" +
		"other\tmemset\t[CUDA memset]\n" +
		"other\t-\tmy_own_kernel\n"
	if out != want {
		t.Errorf("output:\n%s\nwant:\n%s", out, want)
	}
}

func TestClassifyStdin(t *testing.T) {
	var out, errb bytes.Buffer
	root := newRootCmd(&env{stdout: &out, stderr: &errb})
	root.SetArgs([]string{"classify"})
	root.SetIn(strings.NewReader("flash_fwd_kernel\r\n\nfused_moe_kernel\nvoid vllm::act_and_mul_kernel<c10::BFloat16>"))
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	want := "attention\tattn.flash\tflash_fwd_kernel\nffn\tffn.moe\tfused_moe_kernel\nffn\tffn.act\tvoid vllm::act_and_mul_kernel<c10::BFloat16>\n"
	if out.String() != want {
		t.Errorf("output:\n%q\nwant:\n%q", out.String(), want)
	}
}

func TestClassifyNVTX(t *testing.T) {
	code, out, _ := runRulesCmd(t, "classify", "--nvtx",
		"{'Module': 'model.layers.0.self_attn.qkv_proj'}",
		"nn.Module: FusedMoE_3",
		"execute_context_1(888_788544)_generation_0(0)")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	want := "attention\tnvtx.qkv-proj\t{'Module': 'model.layers.0.self_attn.qkv_proj'}\n" +
		"ffn\tnvtx.moe\tnn.Module: FusedMoE_3\n" +
		"other\t-\texecute_context_1(888_788544)_generation_0(0)\n"
	if out != want {
		t.Errorf("output:\n%s\nwant:\n%s", out, want)
	}
}

func TestClassifyRulesFlags(t *testing.T) {
	add := writeFile(t, "add.yaml", "rules:\n  - id: mine\n    region: ffn\n    pattern: '^nvjet_tst_64x8_'\n")
	only := writeFile(t, "only.yaml", "rules:\n  - id: only\n    region: io\n    pattern: 'kernel'\n")
	code, out, _ := runRulesCmd(t, "classify", "--rules-add", add, "nvjet_tst_64x8_64x16_4x1_v_bz_TNT", "nvjet_tst_128x8")
	if code != 0 || out != "ffn\tmine\tnvjet_tst_64x8_64x16_4x1_v_bz_TNT\nother\tgemm\tnvjet_tst_128x8\n" {
		t.Errorf("--rules-add: exit %d, output %q", code, out)
	}
	code, out, _ = runRulesCmd(t, "classify", "--rules", only, "flash_fwd_kernel", "nvjet_tst_128x8")
	if code != 0 || out != "io\tonly\tflash_fwd_kernel\nother\t-\tnvjet_tst_128x8\n" {
		t.Errorf("--rules: exit %d, output %q", code, out)
	}
	code, out, _ = runRulesCmd(t, "classify", "--rules", only, "--rules-add", add, "nvjet_tst_64x8_x", "flash_fwd_kernel")
	if code != 0 || out != "ffn\tmine\tnvjet_tst_64x8_x\nio\tonly\tflash_fwd_kernel\n" {
		t.Errorf("--rules with --rules-add: exit %d, output %q", code, out)
	}
	bad := writeFile(t, "bad.yaml", "rules:\n  - id: x\n    region: nowhere\n    pattern: a\n")
	code, out, errs := runRulesCmd(t, "classify", "--rules-add", bad, "a")
	if code != 1 || out != "" || !strings.Contains(errs, bad+":3: rule \"x\": unknown region \"nowhere\"") {
		t.Errorf("bad rule file: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, _, errs = runRulesCmd(t, "classify", "--rules", filepath.Join(t.TempDir(), "missing.yaml"), "a")
	if code != 1 || !strings.Contains(errs, "missing.yaml") {
		t.Errorf("missing rule file: exit %d, stderr %q", code, errs)
	}
	code, _, _ = runRulesCmd(t, "classify", "--no-such-flag")
	if code != 2 {
		t.Errorf("unknown flag: exit %d, want 2", code)
	}
}

func TestRulesCheck(t *testing.T) {
	good := writeFile(t, "good.yaml", "# servecmp rules v1\nrules:\n  - id: a\n    region: ffn\n    pattern: x\n  - id: b\n    region: io\n    nvtx: lm_head\n")
	bad := writeFile(t, "bad.yaml", "rules:\n  - id: a\n    region: ffn\n    pattern: '(x'\n  - id: a\n    region: io\n    nvtx: y\n    pattern: z\n")
	code, out, errs := runRulesCmd(t, "rules", "check", good)
	if code != 0 || out != good+": 2 rules OK (1 name, 1 nvtx)\n" || errs != "" {
		t.Errorf("good file: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, errs = runRulesCmd(t, "rules", "check", good, bad)
	if code != 1 {
		t.Errorf("bad file: exit %d, want 1", code)
	}
	if out != good+": 2 rules OK (1 name, 1 nvtx)\n" {
		t.Errorf("stdout %q", out)
	}
	wantErr := bad + ":4: rule \"a\": invalid pattern: error parsing regexp: missing closing ): `(x`\n" +
		bad + ":5: duplicate id \"a\" (first at line 2)\n" +
		bad + ":7: rule \"a\": has both pattern and nvtx; give one\n" +
		"servecmp: rules check: 3 error(s) in 1 of 2 file(s)\n"
	if errs != wantErr {
		t.Errorf("stderr:\n%s\nwant:\n%s", errs, wantErr)
	}
	if code, _, _ := runRulesCmd(t, "rules", "check"); code != 2 {
		t.Errorf("no files: exit %d, want 2", code)
	}
}

// TestRulesShow: the printed files are the embedded ones, and each one
// printed alone is a valid rule file.
func TestRulesShow(t *testing.T) {
	code, all, _ := runRulesCmd(t, "rules", "show")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	// The whole output is one rule file holding the default rules in order.
	set, err := rules.Parse(strings.NewReader(all), "all.yaml")
	if err != nil {
		t.Fatalf("rules show output is not a valid rule file: %v", err)
	}
	var got, want []string
	for _, r := range set.Rules {
		got = append(got, r.ID)
	}
	for _, r := range rules.Default().Rules {
		want = append(want, r.ID)
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("rules show: rule ids %v, want the defaults' %v", got, want)
	}
	for _, f := range rules.DefaultFiles() {
		if !strings.Contains(all, "# ==> "+f.Path+" <==\n") {
			t.Errorf("rules show lacks %s", f.Path)
		}
		name := strings.TrimSuffix(f.Name, ".yaml")
		code, one, _ := runRulesCmd(t, "rules", "show", name)
		if code != 0 || one != string(f.Data) {
			t.Errorf("rules show %s: exit %d", name, code)
		}
		p := writeFile(t, f.Name, one)
		if code, out, errs := runRulesCmd(t, "rules", "check", p); code != 0 || !strings.Contains(out, "rules OK") {
			t.Errorf("rules show %s is not a valid rule file: %s", name, errs)
		}
	}
	if code, _, _ := runRulesCmd(t, "rules", "show", "nope"); code != 2 {
		t.Errorf("unknown file: exit %d, want 2", code)
	}
	if code, _, _ := runRulesCmd(t, "rules"); code != 2 {
		t.Errorf("no subcommand: exit %d, want 2", code)
	}
}
