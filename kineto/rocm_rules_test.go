package kineto

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/rules"
)

// defaultFile parses one embedded default rule file on its own.
func defaultFile(t *testing.T, name string) *rules.Set {
	t.Helper()
	for _, f := range rules.DefaultFiles() {
		if f.Name == name {
			s, err := rules.Parse(bytes.NewReader(f.Data), f.Path)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
	}
	t.Fatalf("no embedded default rule file %s", name)
	return nil
}

// corpusNames reads the name column of the project's kernel-name corpus.
func corpusNames(t *testing.T) []string {
	t.Helper()
	root := repoRoot(t)
	var path string
	for _, p := range []string{
		filepath.Join(root, "..", "shared", "docs", "kernel-names.tsv"),
		filepath.Join(root, "rules", "testdata", "kernel-names.tsv"),
	} {
		if _, err := os.Stat(p); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		t.Skip("kernel-names.tsv not found")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var names []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for first := true; sc.Scan(); first = false {
		if first {
			continue // header
		}
		if n, _, _ := strings.Cut(sc.Text(), "\t"); n != "" {
			names = append(names, n)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(names) < 100 {
		t.Fatalf("only %d names in %s", len(names), path)
	}
	return names
}

type verdict struct {
	id, region, class string
}

func classifyName(s *rules.Set, name string) verdict {
	i := s.MatchName(name)
	if i < 0 {
		return verdict{id: "(unmapped)", region: rules.Other.String()}
	}
	r := s.Rules[i]
	return verdict{r.ID, r.Region.String(), r.Class.String()}
}

// TestROCmRulesLeaveNVIDIANamesAlone: adding rocm.yaml after nvidia.yaml
// changes the classification of no name of the NVIDIA corpus, and where a
// ROCm rule would match such a name on its own it agrees on the region.
func TestROCmRulesLeaveNVIDIANamesAlone(t *testing.T) {
	nv := defaultFile(t, "nvidia.yaml")
	rocm := defaultFile(t, "rocm.yaml")
	both := rocm.Prepend(nv)
	def := rules.Default()
	for _, n := range corpusNames(t) {
		a, b, d := classifyName(nv, n), classifyName(both, n), classifyName(def, n)
		if a != b || a != d {
			t.Errorf("%q: nvidia.yaml alone %+v, with rocm.yaml %+v, defaults %+v", n, a, b, d)
		}
		if r := classifyName(rocm, n); r.id != "(unmapped)" && r.region != a.region {
			t.Errorf("%q: rocm.yaml rule %s would place it in %s, nvidia.yaml in %s (%s)", n, r.id, r.region, a.region, a.id)
		}
	}
}

// rocmNames are ROCm kernel names seen in real traces: the two MI300X traces
// under testdata/kineto, and public MI300X/MI355X profiles and library
// sources (AITER assembly kernels, vLLM skinny GEMMs, ROCclr blits).
var rocmNames = []struct {
	name          string
	region, class string
}{
	{"Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x32x64_MI16x16x1_SN_LDSB1_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0", "other", "gemm"},
	{"Custom_Cijk_Alik_Bljk_HHS_BH_MT128x128x32", "other", "gemm"},
	{"void wvSplitK_hf_sml_<__hip_bfloat16, 64, 4, 16, 8, 1, 4>(int)", "other", "gemm"},
	{"_Z11wvSplitKrc_I6__halfLi64ELi16ELi4ELi8ELi1ELi16ELi1ELi1ELi1EEviiiiiiPKT_S3_S3_PfPiPS1_i", "other", "gemm"},
	{"_ZN5aiter33f4gemm_bf16_per1x32Fp4_tn_256x256E", "other", "gemm"},
	{"void paged_attention_ll4mi_QKV_mfma16_kernel<0, __hip_bfloat16, __hip_bfloat16, (vllm::Fp8KVCacheDataType)0, 1, 128, 256, false, 4, 1, ck_tile::ComposedAttention<0u, false> >(__hip_bfloat16 const*)", "attention", "attn-core"},
	{"void paged_attention_ll4mi_reduce_kernel<__hip_bfloat16, __hip_bfloat16, 128, 128, 256, 3, false>(__hip_bfloat16*, float const*)", "attention", "attn-core"},
	{"ck_tile::kentry<ck_tile::gfx950_t, 2, ck_tile::FmhaFwdKernel<ck_tile::BlockFmhaPipelineQRKSVS<>>>", "attention", "attn-core"},
	{"_ZN5aiter39mla_dec_stage1_bf16_a16w16_subQ16_mqa16E", "attention", "attn-core"},
	{"_ZN5aiter39mla_a8w8_qh64_qseqlen1_gqaratio64_v3_psE", "attention", "attn-core"},
	{"_ZN5aiter32fmha_fwd_hd192_hd128_bf16_causalE", "attention", "attn-core"},
	{"void rotary_embedding_kernel<c10::BFloat16, true>(long const*, c10::BFloat16*, c10::BFloat16*, c10::BFloat16 const*, int, long, long, long, int, int, int)", "attention", ""},
	{"void (anonymous namespace)::store_kvcache<2048l, 4, false, long>((anonymous namespace)::StoreKVCacheParams)", "attention", ""},
	{"_ZN5aiter24add_rmsnorm_quant_kernelIDF16bDF16bLi256ELi16ELb1ELb0ELb1ELi1EEEvPT0_PT_PfS4_S4_S4_diiiiiiib", "other", "norm"},
	{"_ZN7ck_tile6kentryILi1ENS_12Rmsnorm2dFwdINS_27Rmsnorm2dFwdPipelineOnePassINS_27Rmsnorm2dFwdPipelineProblemIDF16bDF16bfDF16bDF16bDF16bffNS_19Generic2dBlockShapeE", "other", "norm"},
	{"_ZN7sgl_hip10activation18act_and_mul_kernelI14__hip_bfloat16TnPFT_RKS3_EXadL_Z4siluIS2_ES3_S5_EEEEvPS3_PS4_i", "ffn", "act"},
	{"mfma_moe1_silu_mul_afp8_wfp4_fp8_t32x128x256_pm1_fp8q_sort_async_gui_xcd4_v32", "ffn", "moe"},
	{"_ZN5aiter50fmoe_bf16_pertokenMXfp4_g1u1_flat_novs_silu_16x128E", "ffn", "moe"},
	{"void aiter::opus_moe_sorting_entry<aiter::MoeSortingKernel<aiter::MoeSortingProblemEx<int>>>", "ffn", "moe"},
	{"ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)", "communication", "comm"},
	{"void aiter::cross_device_reduce_1stage<__hip_bfloat16, 8>(aiter::RankData*, aiter::RankSignals, aiter::Signal*, __hip_bfloat16*, int)", "communication", "comm"},
	{"_ZN5aiter37dynamic_per_group_scaled_quant_kernelIDF16bDB8_Li32ELi128ELb0ELi64ELb0EEEvPT0_P", "other", "quant"},
	{"Memcpy DtoD (Device -> Device)", "other", "copy"},
	{"Memcpy DtoH (Device -> Host)", "other", "copy"},
	{"Memset (Device)", "other", "workspace"},
	{"MEMORY_COPY_HOST_TO_DEVICE", "other", "copy"},
	{"__amd_rocclr_copyBuffer", "other", "copy"},
	{"__amd_rocclr_fillBufferAligned", "other", "workspace"},
	{"void rocprim::ROCPRIM_400200_NS::detail::trampoline_kernel<rocprim::ROCPRIM_400200_NS::detail::wrapped_scan_config<rocprim::ROCPRIM_400200_NS::default_config, long>>", "other", "elementwise"},
}

func TestROCmNamesWithDefaultRules(t *testing.T) {
	def := rules.Default()
	for _, tc := range rocmNames {
		v := classifyName(def, tc.name)
		if v.region != tc.region || v.class != tc.class {
			t.Errorf("%q: got %s/%s (rule %s), want %s/%s", tc.name, v.region, v.class, v.id, tc.region, tc.class)
		}
	}
}

// TestROCmRulesAlone: rocm.yaml places the ROCm-library names of the table
// by itself, in the same region and class as the shipped defaults.
func TestROCmRulesAlone(t *testing.T) {
	rocm := defaultFile(t, "rocm.yaml")
	for _, tc := range rocmNames {
		v := classifyName(rocm, tc.name)
		if v.id == "(unmapped)" {
			// portable kernels (rotary_embedding, store_kvcache) are nvidia.yaml's
			continue
		}
		if v.region != tc.region || v.class != tc.class {
			t.Errorf("%q: rocm.yaml alone gives %s/%s (rule %s), want %s/%s", tc.name, v.region, v.class, v.id, tc.region, tc.class)
		}
	}
}
