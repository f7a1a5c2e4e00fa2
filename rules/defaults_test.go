package rules

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDefaultFiles parses every embedded file on its own, so that a broken
// default is reported with its file and line here and never at run time.
func TestDefaultFiles(t *testing.T) {
	files := DefaultFiles()
	if len(files) < 2 {
		t.Fatalf("only %d embedded default files", len(files))
	}
	for _, f := range files {
		if _, err := Parse(bytes.NewReader(f.Data), f.Path); err != nil {
			t.Errorf("embedded rules do not parse:\n%v", err)
		}
	}
	if _, err := loadDefaults(); err != nil {
		t.Fatalf("default rules: %v", err)
	}
}

// TestDefaultFilesListed makes sure every embedded file is in defaultOrder
// (an unlisted one would silently be ignored).
func TestDefaultFilesListed(t *testing.T) {
	listed := map[string]bool{}
	for _, n := range defaultOrder {
		listed[n] = true
	}
	err := fs.WalkDir(defaultFS, "defaults", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && !listed[d.Name()] {
			t.Errorf("embedded %s is not in defaultOrder", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestDefaultSet(t *testing.T) {
	s := Default()
	ids := map[string]string{}
	for i, r := range s.Rules {
		where := r.File + ":" + itoa(r.Line)
		if first, dup := ids[r.ID]; dup {
			t.Errorf("%s: id %q already used at %s", where, r.ID, first)
		}
		ids[r.ID] = where
		if r.Class >= numClasses {
			t.Errorf("%s: class %v", where, r.Class)
		}
		if (r.Name == nil) == (r.NVTX == nil) {
			t.Errorf("%s: rule %d must have exactly one pattern", where, i)
		}
		if r.Name != nil && strings.HasSuffix(r.File, "context.yaml") {
			t.Errorf("%s: name rule in context.yaml", where)
		}
	}
	n, v := s.Counts()
	if n < 30 || v < 10 {
		t.Errorf("default set has %d name and %d nvtx rules", n, v)
	}
	if len(s.Digest) != 64 {
		t.Errorf("digest %q", s.Digest)
	}
	// Default returns a copy: changing it must not change the next one.
	s.Rules[0].ID = "changed"
	if Default().Rules[0].ID == "changed" {
		t.Errorf("Default shares its rule slice")
	}
	// Every class appears in the defaults, so none is dead.
	used := map[Class]bool{}
	for _, r := range s.Rules {
		used[r.Class] = true
	}
	for c := Gemm; c < numClasses; c++ {
		if !used[c] {
			t.Errorf("class %q is used by no default rule", c)
		}
	}
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	return string(b[i:])
}

type match struct {
	region Region
	rule   string
}

func nameMatch(s *Set, name string) (match, Rule) {
	i := s.MatchName(name)
	if i < 0 {
		return match{Other, "-"}, Rule{}
	}
	return match{s.Rules[i].Region, s.Rules[i].ID}, s.Rules[i]
}

// TestDefaultNames pins names of the classification notes that are not in
// the corpus table, including negative probes.
func TestDefaultNames(t *testing.T) {
	s := Default()
	tests := []struct {
		name   string
		region Region
		class  string // "-" = unmapped
	}{
		{"[CUDA memcpy Host-to-Device]", Other, "copy"},
		{"[CUDA memset]", Other, "workspace"},
		{"Memcpy DtoD (Device -> Device)", Other, "copy"},
		{"ncclDevKernel_Generic_1", Communication, "comm"},
		{"ncclSymkDevKernel_AllGather_LL(ncclSymkDevWorkArgs4K)", Communication, "comm"},
		{"ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", Communication, "comm"},
		{"void (anonymous namespace)::two_shot_all_reduce_kernel_inplace<c10::BFloat16, 16, 2>(c10::BFloat16*)", Communication, "comm"},
		{"void tvm::runtime::allreduce_simple<__half>(mscclpp::SmChannelDeviceHandle *)", Communication, "comm"},
		{"small_gather_kernel", Other, "gather"}, // not communication
		{"property_kernel", Other, "-"},          // not RoPE
		{"flash_fwd_splitkv_kernel", Attention, "attn-core"},
		{"void cutlass::device_kernel<flash::FlashAttnFwdCombine<cute::tuple<cute::C<8>, cute::C<128> >, 5, 256, 1, false, true, cutlass::bfloat16_t, float, cutlass::arch::Sm90> >", Attention, "attn-core"},
		{"_ZN7cutlass13device_kernelINS_4gemm6kernel13GemmUniversalINS1_17GroupProblemShapeINS_5tupleIJiiiEEEEE", FFN, "moe"},
		{"void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, int> > >", Other, "gemm"},
		{"void deep_gemm::sm90_fp8_gemm_1d2d_impl<(cute::UMMA::Major)0, 0u, 4096u, (deep_gemm::GemmType)2, deep_gemm::epilogue::transform::EpilogueIdentity>(int)", FFN, "moe"},
		{"triton_poi_fused_mul_silu_2", FFN, "act"},
		{"silu_and_mul_kernel", FFN, "act"},
		{"swiglu_kernel", FFN, "act"}, // dense activation, not MoE
		{"void vllm::moe::moe_align_block_size_kernel<int>", FFN, "moe"},
		{"void vllm::concat_and_cache_mla_kernel<__nv_bfloat16>", Attention, ""},
		{"void vllm::paged_attention_v2_kernel<unsigned short, 128>", Attention, "attn-core"},
		{"flash_fwd_splitkv_mla_kernel", Attention, "attn-core"},
		{"get_mla_metadata_kernel", Attention, ""},
		{"void flash::prepare_varlen_num_blocks_kernel<1, true>", Attention, ""},
		{"vllm::sampled_topk::sampled_topk_kernel<512>", Attention, ""}, // indexer, not sampling
		{"void vllm::moe::topkGatingSoftmax<8>", FFN, "moe"},            // router, not sampling
		{"void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)", IO, "sample"},
		{"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<c10::BFloat16>, std::array<char*, 1ul> >(int)", Other, "elementwise"},
		{"void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)> >", Other, "copy"},
		{"triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_1", Other, "norm"},
		{"void tensorrt_llm::kernels::invokeGeneralRmsNorm<half>", Other, "norm"},
		{"cublasLt::splitKreduce_kernel", Other, "splitk"},
		{"Cijk_Ailk_Bljk_BBS_BH_MT128x128x64", Other, "gemm"},
		{"sm90_tf32_hc_prenorm_gemm_impl", Other, ""},
		{"mhc_pre_big_fuse_with_norm_tilelang_kernel", Other, ""},
		{"moefinalize_allreduce_fusion_kernel_oneshot_lamport", Communication, "comm"},
		{"void deep_ep::internode_ll::dispatch<true, 3, 10, 7168>(void*)", Communication, "comm"},
		{"embedding_kernel", IO, "embed"},
		{"my_unknown_kernel", Other, "-"},
	}
	for _, tt := range tests {
		m, r := nameMatch(s, tt.name)
		class := r.Class.String()
		if m.rule == "-" {
			class = "-"
		}
		if m.region != tt.region || class != tt.class {
			t.Errorf("%.80s: got %s/%s (rule %s), want %s/%s", tt.name, m.region, class, m.rule, tt.region, tt.class)
		}
	}
}

// family maps an ambiguous class to the corpus table's ambiguous label.
func family(class string) string {
	switch class {
	case "splitk", "workspace":
		return "gemm"
	}
	return class
}

// TestCorpus classifies every row of the reference table with the default
// name rules. A row must either get its region by name, or be caught by a
// rule of an ambiguous class (its region was decided by context in the
// trace it came from, or the table marks it ambiguous). No row may land in
// a wrong region by an unambiguous rule, and none may stay unmapped.
func TestCorpus(t *testing.T) {
	path := filepath.Join("testdata", "kernel-names.tsv")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if shared, err := os.ReadFile(filepath.Join("..", "..", "shared", "docs", "kernel-names.tsv")); err == nil && !bytes.Equal(shared, data) {
		t.Logf("note: ../shared/docs/kernel-names.tsv differs from %s; using the shared copy", path)
		data = shared
	}
	s := Default()
	type tally struct{ rows, byName, ambiguous int }
	per := map[string]*tally{}
	var order []string
	total, ok, amb, famOK := 0, 0, 0, 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		f := strings.Split(sc.Text(), "\t")
		if line == 1 || len(f) < 2 {
			continue
		}
		name, want := f[0], f[1]
		if per[want] == nil {
			per[want] = &tally{}
			order = append(order, want)
		}
		tl := per[want]
		tl.rows++
		total++
		m, r := nameMatch(s, name)
		switch {
		case m.rule == "-":
			t.Errorf("%s:%d: unmapped: %.120s (want %s)", path, line, name, want)
		case !strings.HasPrefix(want, "ambiguous-") && m.region.String() == want:
			tl.byName++
			ok++
		case r.Class.Ambiguous():
			tl.ambiguous++
			amb++
			if fam, isAmb := strings.CutPrefix(want, "ambiguous-"); isAmb {
				if family(r.Class.String()) == fam {
					famOK++
				} else {
					t.Logf("%s:%d: table says %s, rule %s has class %s: %.100s", path, line, want, m.rule, r.Class, name)
				}
			}
		default:
			t.Errorf("%s:%d: %.120s: rule %s puts it in %s, want %s", path, line, name, m.rule, m.region, want)
		}
	}
	if total < 200 {
		t.Fatalf("only %d corpus rows", total)
	}
	for _, k := range order {
		tl := per[k]
		t.Logf("%-16s %3d rows: %3d by name, %3d by an ambiguous-class rule", k, tl.rows, tl.byName, tl.ambiguous)
	}
	t.Logf("total %d rows: %d (%.1f%%) region by name, %d (%.1f%%) ambiguous class (%d of the table's ambiguous rows in the same family)",
		total, ok, 100*float64(ok)/float64(total), amb, 100*float64(amb)/float64(total), famOK)
}
