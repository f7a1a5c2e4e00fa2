package rules

import "testing"

// TestDefaultContext pins the region of range texts: python frames, module
// frames and annotations copied from the real Kineto traces in
// ../shared/testdata/kineto (vLLM gpt-oss on B200, HF Qwen1.5 on H100,
// SGLang and vLLM decode), and layer-wise NVTX markers in the form vLLM and
// SGLang push them.
func TestDefaultContext(t *testing.T) {
	s := Default()
	const none = Region(255)
	tests := []struct {
		text string
		want Region
	}{
		// layer-wise NVTX markers (vLLM --enable-layerwise-nvtx-tracing, SGLang --enable-layerwise-nvtx-marker)
		{"{'Module': 'model.layers.0.self_attn.qkv_proj', 'TrainableParams': {'weight': [5120, 4096]}, 'Inputs': [[32, 4096]]}", Attention},
		{"{'Module': 'model.model.layers.3.self_attn.o_proj', 'Inputs': [[32, 4096]]}", Attention},
		{"{'Module': 'model.layers.0.self_attn.attn', 'Inputs': [[32, 32, 128]]}", Attention},
		{"{'Module': 'model.layers.0.self_attn.rotary_emb', 'Inputs': [[32]]}", Attention},
		{"{'Module': 'model.layers.0.self_attn', 'Inputs': [[32]], 'positions': [[32]]}", Attention},
		{"{'Module': 'model.layers.0.input_layernorm', 'Inputs': [[32, 4096]]}", Attention},
		{"{'Module': 'model.layers.0.self_attn.q_norm'}", Attention},
		{"{'Module': 'model.layers.0.post_attention_layernorm', 'Inputs': [[32, 4096], [32, 4096]]}", FFN},
		{"{'Module': 'model.layers.0.mlp.gate_up_proj', 'TrainableParams': {'weight': [28672, 4096]}}", FFN},
		{"{'Module': 'model.layers.0.mlp.down_proj'}", FFN},
		{"{'Module': 'model.layers.0.mlp.act_fn'}", FFN},
		{"{'Module': 'model.layers.0.mlp.gate', 'TrainableParams': {'weight': [128, 4096]}}", FFN},
		{"{'Module': 'model.layers.0.mlp.experts', 'TrainableParams': {'w13_weight': [128, 1536, 4096], 'w2_weight': [128, 4096, 768]}}", FFN},
		{"{'Module': 'model.layers.0.mlp.shared_expert'}", FFN},
		{"{'Module': 'model.layers.0.mlp'}", FFN},
		{"{'Module': 'model.embed_tokens', 'Inputs': [[32]]}", IO},
		{"{'Module': 'model.norm', 'Inputs': [[32, 4096], [32, 4096]]}", IO},
		{"{'Module': 'lm_head'}", IO},
		{"{'Module': 'logits_processor', 'Inputs': [[32, 4096]]}", IO},
		{"model.layers.5.self_attn.qkv_proj(input)", Attention},
		{"{'Module': 'model.layers.0', 'Inputs': [[32, 4096]], 'positions': [[32]]}", none},
		{"{'Module': 'model', 'input_ids': [[32]], 'positions': [[32]], 'inputs_embeds': [[32, 4096]]}", none},
		// torch.profiler module and python frames (vLLM gpt-oss, B200, eager)
		{"nn.Module: QKVParallelLinear_0", Attention},
		{"nn.Module: OAIAttention_3", Attention},
		{"nn.Module: YaRNScalingRotaryEmbedding_12", Attention},
		{"nn.Module: MLPBlock_0", FFN},
		{"nn.Module: FusedMoE_35", FFN},
		{"nn.Module: LogitsProcessor_0", IO},
		{"nn.Module: VocabParallelEmbedding_0", IO},
		{"nn.Module: RowParallelLinear_0", none}, // o_proj or down_proj: the enclosing block decides
		{"nn.Module: RMSNorm_4", none},
		{"nn.Module: TransformerBlock_0", none},
		{"nn.Module: QuantFP8_0", none},
		{"vllm/attention/layer.py(852): unified_attention_with_output", Attention},
		{"vllm/v1/attention/backends/flashinfer.py(1064): forward", Attention},
		{"flashinfer/prefill.py(3330): trtllm_batch_context_with_kv_cache", Attention},
		{"vllm/model_executor/layers/rotary_embedding/base.py(170): forward_cuda", Attention},
		{"vllm/model_executor/layers/fused_moe/layer.py(2074): moe_forward", FFN},
		{"flashinfer/fused_moe/core.py(2106): trtllm_fp4_block_scale_moe", FFN},
		{"vllm/model_executor/layers/fused_moe/layer.py(1687): maybe_all_reduce_tensor_model_parallel", Communication},
		{"vllm/distributed/communication_op.py(12): tensor_model_parallel_all_reduce", Communication},
		{"vllm/distributed/device_communicators/symm_mem.py(127): all_reduce", Communication},
		{"vllm/model_executor/layers/logits_processor.py(85): _get_logits", IO},
		{"vllm/model_executor/layers/vocab_parallel_embedding.py(156): get_masked_input_and_mask", IO},
		{"vllm/model_executor/models/gpt_oss.py(724): compute_logits", IO},
		{"vllm/model_executor/layers/layernorm.py(35): fused_add_rms_norm", none},
		{"vllm/model_executor/layers/linear.py(557): forward", none},
		{"vllm/model_executor/models/gpt_oss.py(130): forward", none},
		{"vllm/v1/attention/backends/flashinfer.py(664): build", Other},
		{"vllm/v1/attention/backends/utils.py(879): split_decodes_and_prefills", Other},
		// annotations and custom ops
		{"vllm::unified_attention_with_output", Attention},
		{"_C_cache_ops::reshape_and_cache_flash", Attention},
		{"vllm::moe_forward", FFN},
		{"vllm::all_reduce", Communication},
		{"symm_mem::multimem_all_reduce_", Communication},
		{"nccl:_all_gather_base", Communication},
		{"aten::embedding", IO},
		{"execute_context_1(888_788544)_generation_0(0)", none},
		{"execute_32_context_0(sq0sk0sqsq0sqsk0)_generation_32(sq32sk32785sqsq32sqsk32785)", none},
		{"step[DECODE bs=32]", none},
		{"ProfilerStep#6", none},
		{"## Call CompiledFxGraph fud64jsrxcxliekg7lptyw24yz5k3oa65b73wjfbhz6j2fg6ouu7 ##", none},
		// HF eager (H100)
		{"nn.Module: Qwen2Attention_3", Attention},
		{"nn.Module: Qwen2MLP_3", FFN},
		{"nn.Module: SiLU_3", FFN},
		{"nn.Module: Embedding_0", IO},
		{"nn.Module: Qwen2RMSNorm_7", none},
		{"nn.Module: Linear_4", none},
		{"transformers/models/qwen2/modeling_qwen2.py(68): apply_rotary_pos_emb", Attention},
		{"transformers/integrations/sdpa_attention.py(18): sdpa_attention_forward", Attention},
		{"transformers/cache_utils.py(398): update", Attention},
		{"transformers/models/qwen2/modeling_qwen2.py(218): forward", none},
		// SGLang (absolute paths)
		{"/sgl-workspace/sglang/python/sglang/srt/layers/sampler.py(83): forward", IO},
		{"nn.Module: Sampler_0", IO},
		{"/sgl-workspace/sglang/python/sglang/srt/layers/attention/aiter_backend.py(1654): init_forward_metadata_replay_cuda_graph", Other},
		{"/sgl-workspace/sglang/python/sglang/srt/model_executor/cuda_graph_runner.py(1333): replay", none},
		{"/sgl-workspace/sglang/python/sglang/srt/eplb/expert_distribution.py(88): with_forward_pass", none},
	}
	for _, tt := range tests {
		i := s.MatchNVTX(tt.text)
		got, id := none, "-"
		if i >= 0 {
			got, id = s.Rules[i].Region, s.Rules[i].ID
		}
		if got != tt.want {
			w := "none"
			if tt.want != none {
				w = tt.want.String()
			}
			t.Errorf("%.90s: got %v (rule %s), want %s", tt.text, got, id, w)
		}
		if s.MatchName(tt.text) >= 0 && i >= 0 && s.Rules[s.MatchName(tt.text)].NVTX != nil {
			t.Errorf("MatchName returned an nvtx rule")
		}
	}
}
