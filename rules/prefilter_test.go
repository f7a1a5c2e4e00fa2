package rules

import (
	"regexp"
	"strings"
	"testing"
)

// plainMatch is MatchName/MatchNVTX without the prefilter.
func plainMatch(s *Set, text string, nvtx bool) int {
	for i := range s.Rules {
		re := s.Rules[i].Name
		if nvtx {
			re = s.Rules[i].NVTX
		}
		if re != nil && re.MatchString(text) {
			return i
		}
	}
	return -1
}

// TestPrefilterAgrees checks the prefiltered matcher against the plain one
// on the corpus and on variants of it (case changes, cut names, names glued
// together), for the default rules.
func TestPrefilterAgrees(t *testing.T) {
	s := Default()
	inputs := corpusNames(t)
	for i, n := range corpusNames(t) {
		if i%4 == 0 { // a sample keeps the plain-regexp side of the test fast
			inputs = append(inputs, strings.ToUpper(n), n[:len(n)/2], "x"+n+"y", "K\u017f"+n)
		}
	}
	inputs = append(inputs, "", "a", "MoE", "mOe", "GEMM", "ſ", "\xff\xfe", "model.layers.0.self_attn.qkv_proj",
		"nn.Module: Qwen2Attention_0", "vllm/model_executor/layers/fused_moe/layer.py(1760): forward_cuda")
	for _, in := range inputs {
		if got, want := s.MatchName(in), plainMatch(s, in, false); got != want {
			t.Errorf("MatchName(%.80q) = %d, plain regexp gives %d", in, got, want)
		}
		if got, want := s.MatchNVTX(in), plainMatch(s, in, true); got != want {
			t.Errorf("MatchNVTX(%.80q) = %d, plain regexp gives %d", in, got, want)
		}
	}
}

// TestPrefilterEditedRule: a rule replaced after the set was built is
// matched by its own pattern, not by a stale prefilter.
func TestPrefilterEditedRule(t *testing.T) {
	s := Default()
	i := s.MatchName("ncclDevKernel_SendRecv")
	if i < 0 {
		t.Fatal("nccl kernel not matched")
	}
	s.Rules[i].Name = regexp.MustCompile("^SendRecv$")
	if got := s.MatchName("SendRecv"); got != i {
		t.Errorf("edited rule: got %d, want %d", got, i)
	}
	hand := &Set{Rules: []Rule{{ID: "x", Region: FFN, Name: regexp.MustCompile("foo")}}}
	if hand.MatchName("afoob") != 0 || hand.MatchName("bar") != -1 {
		t.Errorf("hand-built set does not match")
	}
}

func TestRequiredLiterals(t *testing.T) {
	tests := []struct {
		expr       string
		want       string // literals joined by |, folded ones prefixed with ~
		sufficient bool
	}{
		{`abc|def`, "abc|def", true},
		{`(?i:Moe|expert)`, "~moe|~expert", true},
		{`^abc$`, "abc", false},
		{`x[12]yz`, "x1yz|x2yz", true},
		{`sm[0-9]+_xmma`, "_xmma", false},
		{`(^|[^A-Za-z])kernel_mha([^A-Za-z]|$)`, "kernel_mha", false},
		{`bmm_.*E2m1`, "bmm_|E2m1", false},
		{`a.b`, "", false}, // literals too short
		{`.*`, "", false},  // nothing required
		{`foo|.*`, "", false},
		{`(?i:ab)cd`, "~abcd", false}, // mixed case modes: sound, not sufficient
		{`colou?r`, "colour|color", true},
	}
	for _, tt := range tests {
		ls, suff := requiredLiterals(tt.expr)
		var parts []string
		for _, l := range ls {
			if l.fold {
				parts = append(parts, "~"+l.s)
			} else {
				parts = append(parts, l.s)
			}
		}
		got := strings.Join(parts, "|")
		if tt.expr == `bmm_.*E2m1` {
			// either side is a valid choice; both are length 4
			if got != "bmm_" && got != "E2m1" {
				t.Errorf("%s: got %q", tt.expr, got)
			}
		} else if got != tt.want {
			t.Errorf("%s: literals %q, want %q", tt.expr, got, tt.want)
		}
		if suff != tt.sufficient {
			t.Errorf("%s: sufficient = %v, want %v", tt.expr, suff, tt.sufficient)
		}
	}
}

// FuzzPrefilter checks that, for any pattern and input, the prefiltered
// match equals the plain regexp match.
func FuzzPrefilter(f *testing.F) {
	f.Add(`(?i:moe|expert)|GemmType\)[1256]`, "xx(deep_gemm::GemmType)2")
	f.Add(`(^|[^A-Za-z])m?rope([^A-Za-z]|$)|_rope|rope_|[a-z]Rope[A-Z]`, "fusedQKNormRopeKernel")
	f.Add(`\b(gate|router)\b`, "mlp.gate'")
	f.Add(`(?i:k)`, "\u212a")
	f.Add(`ab|cd`, "xxcdyy")
	f.Fuzz(func(t *testing.T, expr, in string) {
		re, err := regexp.Compile(expr)
		if err != nil {
			return
		}
		s := newSet([]Rule{{ID: "a", Region: FFN, Name: re}, {ID: "b", Region: IO, NVTX: re}})
		want := re.MatchString(in)
		if got := s.MatchName(in) == 0; got != want {
			t.Fatalf("MatchName(%q) with %q: %v, regexp says %v", in, expr, got, want)
		}
		if got := s.MatchNVTX(in) == 1; got != want {
			t.Fatalf("MatchNVTX(%q) with %q: %v, regexp says %v", in, expr, got, want)
		}
	})
}
