package servesim

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/servecmp/servecmp/internal/atomicfile"
)

// simLayers is the number of transformer layers a simulated step runs.
const simLayers = 4

// simKernel is one kernel of a layer and its share of the layer's time.
type simKernel struct {
	name   string
	weight int64
}

// Kernel names as the imitated engines' traces show them (vLLM on H100
// with FlashAttention 3; SGLang with FlashInfer), taken from the
// kernel-name list of the project's reference docs (truncated where the
// tools that recorded them truncated), one set per layer for
// the prefill part of a step and one for the decode part.
var simKernels = map[string][2][]simKernel{
	"vllm": {
		{ // prefill
			{"std::enable_if<T2>(int)0&&vllm::_typeConvert<T1>::exists, void>::type vllm::fused_add_rms_norm_kern", 4},
			{"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas", 30},
			{"void vllm::rotary_embedding_kernel<c10::BFloat16, true>(long const*, c10::BFloat16*, c10::BFloat16*, c10::BFloat16 const*, int, long, long, long, int, int, int)", 3},
			{"void vllm::reshape_and_cache_flash_kernel<__nv_bfloat16, __nv_bfloat16, (vllm::Fp8KVCacheDataType)0", 3},
			{"void cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<flash::CollectiveMa", 25},
			{"void vllm::act_and_mul_kernel<c10::BFloat16, &vllm::silu_kernel<c10::BFloat16>, (bool)1>(T1 *, cons", 5},
			{"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64_warpgroupsize1x1x1_execute_segment_k_off_", 30},
		},
		{ // decode
			{"std::enable_if<T2>(int)0&&vllm::_typeConvert<T1>::exists, void>::type vllm::fused_add_rms_norm_kern", 4},
			{"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64_warpgroupsize1x1x1_execute_segment_k_off_", 30},
			{"void vllm::rotary_embedding_kernel<c10::BFloat16, true>(long const*, c10::BFloat16*, c10::BFloat16*, c10::BFloat16 const*, int, long, long, long, int, int, int)", 3},
			{"void vllm::reshape_and_cache_flash_kernel<__nv_bfloat16, __nv_bfloat16, (vllm::Fp8KVCacheDataType)0", 3},
			{"vllm::paged_attention_v2_kernel", 20},
			{"vllm::paged_attention_v2_reduce_kernel", 2},
			{"void vllm::act_and_mul_kernel<c10::BFloat16, &vllm::silu_kernel<c10::BFloat16>, (bool)1>(T1 *, cons", 5},
			{"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64_warpgroupsize1x1x1_execute_segment_k_off_", 33},
		},
	},
	"sglang": {
		{ // prefill
			{"FusedAddRMSNormKernel", 4},
			{"nvjet_tst_64x24_64x16_4x1_v_bz_splitK_TNT", 30},
			{"BatchQKApplyRotaryPosIdsCosSinCacheKernel", 3},
			{"SinglePrefillWithKVCacheKernel", 28},
			{"nvjet_tst_64x8_64x16_4x1_v_bz_splitK_TNT", 35},
		},
		{ // decode
			{"FusedAddRMSNormKernel", 4},
			{"nvjet_tst_64x8_64x16_4x1_v_bz_splitK_TNT", 30},
			{"BatchQKApplyRotaryPosIdsCosSinCacheKernel", 3},
			{"void flashinfer::BatchDecodeWithPagedKVCacheKernel<(bool)1, (flashinfer::PosEncodingMode)0, (unsign", 20},
			{"MergeStateInPlaceKernel", 2},
			{"nvjet_tst_64x8_64x16_2x1_v_bz_splitK_TNT", 35},
		},
	},
}

// writeTrace writes steps as a gzipped Chrome-JSON PyTorch-profiler trace
// named name in dir. Each step's prefill and decode
// time is spread over simLayers layers of the engine's kernel set in
// proportion to the kernels' weights, back to back on one stream, so the
// kernels' union is the steps' summed cost-model time. The top-level
// "serve_sim" object holds that truth: window_output_tokens (the tokens
// the recorded steps emitted) and busy_ns (the union of the device work).
func writeTrace(dir, name, engine string, steps []simStep) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// atomically: a watcher of dir never sees half a trace
	return atomicfile.WriteFunc(filepath.Join(dir, name), func(w io.Writer) error {
		zw := gzip.NewWriter(w)
		bw := bufio.NewWriterSize(zw, 1<<16)
		if err := encodeTrace(bw, engine, steps); err != nil {
			return err
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		return zw.Close()
	})
}

// encodeTrace writes the trace document.
func encodeTrace(w io.Writer, engine string, steps []simStep) error {
	set, ok := simKernels[engine]
	if !ok {
		set = simKernels["vllm"]
	}
	var tokens, busy int64
	for _, s := range steps {
		tokens += s.Tokens
		busy += s.Prefill + s.Decode
	}
	fmt.Fprintf(w, `{"schemaVersion":1,"deviceProperties":[{"id":0,"name":"serve-sim GPU"}],`+
		`"serve_sim":{"engine":%q,"steps":%d,"window_output_tokens":%d,"busy_ns":%d},"traceEvents":[`,
		engine, len(steps), tokens, busy)
	ev := eventWriter{w: w, first: true}
	for _, s := range steps {
		t := s.Start
		for part, d := range [2]int64{s.Prefill, s.Decode} {
			t = ev.spread(t, d, set[part])
		}
	}
	_, err := io.WriteString(w, "]}\n")
	return err
}

// eventWriter writes kernel events.
type eventWriter struct {
	w     io.Writer
	first bool
	corr  int64
}

// spread writes d ns of work starting at t as simLayers × kernels events,
// each kernel's share by weight (integer boundaries, so the shares add
// up to d exactly), and returns the end.
func (e *eventWriter) spread(t, d int64, kernels []simKernel) int64 {
	if d <= 0 {
		return t
	}
	var per int64
	for _, k := range kernels {
		per += k.weight
	}
	total, cum := per*simLayers, int64(0)
	prev := int64(0)
	for range simLayers {
		for _, k := range kernels {
			cum += k.weight
			b := d * cum / total
			if b > prev {
				e.kernel(k.name, t+prev, b-prev)
			}
			prev = b
		}
	}
	return t + d
}

// kernel writes one complete kernel event; ts and dur are µs with ns
// decimals, as Kineto writes them.
func (e *eventWriter) kernel(name string, start, dur int64) {
	e.corr++
	sep := ","
	if e.first {
		sep, e.first = "", false
	}
	var nb strings.Builder
	enc := json.NewEncoder(&nb)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(name) // a string: cannot fail
	fmt.Fprintf(e.w, `%s{"ph":"X","cat":"kernel","name":%s,"pid":0,"tid":7,"ts":%d.%03d,"dur":%d.%03d,"args":{"device":0,"stream":7,"correlation":%d}}`,
		sep, strings.TrimSpace(nb.String()), start/1000, start%1000, dur/1000, dur%1000, e.corr)
}
