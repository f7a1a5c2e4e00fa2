package rules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSelect(t *testing.T) {
	def, err := Select("", "")
	if err != nil || def.Digest != Default().Digest {
		t.Fatalf("defaults: %v", err)
	}
	dir := t.TempDir()
	add := filepath.Join(dir, "add.yaml")
	if err := os.WriteFile(add, []byte("rules:\n  - id: mine\n    region: ffn\n    pattern: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Select("", add)
	if err != nil || len(s.Rules) != len(def.Rules)+1 || s.Rules[0].ID != "mine" || s.Digest == def.Digest {
		t.Fatalf("with add: %v", err)
	}
	only, err := Select(add, "")
	if err != nil || len(only.Rules) != 1 {
		t.Fatalf("file instead of defaults: %v", err)
	}
	for _, args := range [][2]string{{filepath.Join(dir, "none.yaml"), ""}, {"", filepath.Join(dir, "none.yaml")}} {
		if _, err := Select(args[0], args[1]); err == nil || !strings.Contains(err.Error(), "none.yaml") {
			t.Errorf("Select(%q, %q): %v", args[0], args[1], err)
		}
	}
}

func TestLookup(t *testing.T) {
	s := Default()
	if r, id := s.Lookup("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", false); r != Communication || id == "-" {
		t.Errorf("nccl: %v %s", r, id)
	}
	if r, id := s.Lookup("my_unknown_kernel", false); r != Other || id != "-" {
		t.Errorf("unknown: %v %s", r, id)
	}
	// With nvtx the nvtx rules decide.
	text := "{'Module': 'model.layers.0.self_attn.qkv_proj'}"
	i := s.MatchNVTX(text)
	if r, id := s.Lookup(text, true); i < 0 || r != s.Rules[i].Region || id != s.Rules[i].ID || s.Rules[i].NVTX == nil {
		t.Errorf("nvtx: %v %s (rule %d)", r, id, i)
	}
}

func TestDefaultText(t *testing.T) {
	all, err := DefaultText("")
	if err != nil {
		t.Fatal(err)
	}
	set, err := Parse(strings.NewReader(string(all)), "all.yaml")
	if err != nil || len(set.Rules) != len(Default().Rules) {
		t.Fatalf("all defaults as one file: %v", err)
	}
	for _, f := range DefaultFiles() {
		one, err := DefaultText(f.Name)
		if err != nil || string(one) != string(f.Data) {
			t.Errorf("%s: %v", f.Name, err)
		}
	}
	if _, err := DefaultText("nope"); err == nil || !strings.Contains(err.Error(), "nvidia") {
		t.Errorf("unknown name: %v", err)
	}
}
