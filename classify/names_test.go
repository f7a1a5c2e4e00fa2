package classify

import (
	"fmt"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/event"
	"github.com/servecmp/servecmp/rules"
)

func testSet(t testing.TB) *rules.Set {
	t.Helper()
	s, err := rules.Parse(strings.NewReader(`rules:
  - id: fa
    region: attention
    class: attn-core
    pattern: '^flash_fwd'
  - id: ctx
    region: ffn
    nvtx: 'flash'
  - id: gemm
    region: other
    class: gemm
    pattern: 'gemm|^nvjet_'
  - id: nccl
    region: communication
    class: comm
    pattern: '^nccl'
`), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestNameLabels(t *testing.T) {
	set := testSet(t)
	names := event.NewNames()
	ids := map[string]uint32{}
	for _, n := range []string{"flash_fwd_kernel", "nvjet_tst_64x8", "ncclDevKernel_AllReduce", "mystery", "flash"} {
		ids[n] = names.ID(n)
	}
	got := NameLabels(set, names)
	if len(got) != names.Len() {
		t.Fatalf("got %d labels for %d names", len(got), names.Len())
	}
	want := map[string]Label{
		"":                        {rules.Other, Unmapped, -1},
		"flash_fwd_kernel":        {rules.Attention, ByName, 0},
		"nvjet_tst_64x8":          {rules.Other, ByName, 2}, // ambiguous class keeps its region
		"ncclDevKernel_AllReduce": {rules.Communication, ByName, 3},
		"mystery":                 {rules.Other, Unmapped, -1},
		"flash":                   {rules.Other, Unmapped, -1}, // nvtx rules never match names
	}
	for name, w := range want {
		id := ids[name]
		if got[id] != w {
			t.Errorf("%q: got %+v, want %+v", name, got[id], w)
		}
	}
	if c := set.Rules[got[ids["nvjet_tst_64x8"]].Rule].Class; c != rules.Gemm || !c.Ambiguous() {
		t.Errorf("class of the GEMM rule = %q", c)
	}
}

// TestNameLabelsParallel checks that the split across goroutines labels every
// id exactly as the serial path does.
func TestNameLabelsParallel(t *testing.T) {
	set := rules.Default()
	names := syntheticNames(3000)
	got := NameLabels(set, names)
	for id := range names.Len() {
		if w := nameLabel(set, names.Name(uint32(id))); got[id] != w {
			t.Fatalf("id %d %q: got %+v, want %+v", id, names.Name(uint32(id)), got[id], w)
		}
	}
}

// syntheticNames builds n distinct names shaped like real ones: a mix of
// matched families, long templated CUTLASS/ATen names and unmatched names.
func syntheticNames(n int) *event.Names {
	shapes := []string{
		"void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float> >, std::array<char*, 3ul> >(int, %d)",
		"nvjet_tst_%dx8_64x16_4x1_v_bz_TNT",
		"void cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<flash::CollectiveMainloopFwdSm90<%d, cute::tuple<cute::C<1>, cute::C<1>, cute::C<1> > > > > >",
		"ncclDevKernel_AllReduce_Sum_bf16_RING_LL_%d(ncclDevKernelArgsStorage<4096ul>)",
		"triton_poi_fused_add_mul_%d",
		"custom_project_kernel_without_any_known_word_%d<float, 128>(float const*, float*, int)",
		"void vllm::fused_add_rms_norm_kernel<c10::BFloat16, %d>(c10::BFloat16*, c10::BFloat16*, c10::BFloat16 const*, float, int, int)",
		"[CUDA memcpy Host-to-Device] %d",
		"_ZN7cutlass13device_kernelINS_4gemm6kernel13GemmUniversalINS1_17GroupProblemShapeINS_5tupleIJiiiEEEEE%d",
		"void flashinfer::sampling::TopKTopPSamplingFromProbKernel<1024u, %d>",
	}
	names := event.NewNames()
	for i := 0; names.Len() <= n; i++ {
		names.ID(fmt.Sprintf(shapes[i%len(shapes)], i))
	}
	return names
}

// BenchmarkNameLabels labels 10k distinct names with the default rules.
func BenchmarkNameLabels(b *testing.B) {
	set := rules.Default()
	names := syntheticNames(10000)
	b.ResetTimer()
	for range b.N {
		NameLabels(set, names)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(names.Len()), "ns/name")
}
