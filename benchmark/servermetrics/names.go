package servermetrics

import (
	"strings"

	"github.com/servecmp/servecmp/benchmark/result"
)

// How one metric is combined over its label sets (engine ranks, models,
// cache sources...).
type combine int

const (
	sumLabels combine = iota // counts and counters: add the label sets
	maxLabels                // fractions: the fullest label set (rank) wins
)

// source is one engine's name for a canonical metric.
type source struct {
	name  string  // family name as exposed, e.g. "vllm:kv_cache_usage_perc"
	scale float64 // multiply the exposed value by this (0 means 1)
}

// Spec is one canonical metric and the engine names that feed it, in
// priority order: the first family present in a scrape is used.
type spec struct {
	Name    string
	Kind    result.MetricKind
	Unit    string
	combine combine
	sources []source
}

const mib = 1 << 20

// specs lists every canonical metric the scraper records. Counter names
// are listed with their "_total" sample name, which is the family name the
// Python and Go clients write in the text format; the name without the
// suffix is tried as well (see lookup).
var specs = []spec{
	{Name: "kv_cache_usage", Kind: result.Gauge, Unit: "fraction", combine: maxLabels, sources: []source{
		{name: "vllm:kv_cache_usage_perc"},
		{name: "vllm:gpu_cache_usage_perc"},
		{name: "sglang:token_usage"},
		{name: "trtllm_kv_cache_utilization"},   // TensorRT-LLM /prometheus/metrics
		{name: "llamacpp:kv_cache_usage_ratio"}, // llama.cpp builds that export it
	}},
	{Name: "requests_running", Kind: result.Gauge, Unit: "requests", combine: sumLabels, sources: []source{
		{name: "vllm:num_requests_running"},
		{name: "sglang:num_running_reqs"},
		{name: "tgi_batch_current_size"},
		{name: "llamacpp:requests_processing"},
	}},
	{Name: "requests_waiting", Kind: result.Gauge, Unit: "requests", combine: sumLabels, sources: []source{
		{name: "vllm:num_requests_waiting"},
		{name: "sglang:num_queue_reqs"},
		{name: "tgi_queue_size"},
		{name: "llamacpp:requests_deferred"}, // waiting for a free slot
	}},
	{Name: "preemptions", Kind: result.Counter, Unit: "preemptions", combine: sumLabels, sources: []source{
		{name: "vllm:num_preemptions_total"},
		{name: "sglang:num_retracted_requests_total"},
		{name: "sglang:num_retracted_reqs_total"},
	}},
	{Name: "prefix_cache_hits", Kind: result.Counter, Unit: "tokens", combine: sumLabels, sources: []source{
		{name: "vllm:prefix_cache_hits_total"},
		{name: "vllm:gpu_prefix_cache_hits_total"},
		{name: "sglang:cached_tokens_total"},
	}},
	{Name: "prefix_cache_queries", Kind: result.Counter, Unit: "tokens", combine: sumLabels, sources: []source{
		{name: "vllm:prefix_cache_queries_total"},
		{name: "vllm:gpu_prefix_cache_queries_total"},
	}},
	{Name: "prefix_cache_hit_rate", Kind: result.Gauge, Unit: "fraction", combine: maxLabels, sources: []source{
		{name: "sglang:cache_hit_rate"},
	}},
	{Name: "prompt_tokens", Kind: result.Counter, Unit: "tokens", combine: sumLabels, sources: []source{
		{name: "vllm:prompt_tokens_total"},
		{name: "sglang:prompt_tokens_total"},
		{name: "tgi_request_input_length"}, // histogram: its _sum
		// llama.cpp counts the prompt tokens it processed: tokens served
		// from its prompt cache are not in it.
		{name: "llamacpp:prompt_tokens_total"},
	}},
	{Name: "generation_tokens", Kind: result.Counter, Unit: "tokens", combine: sumLabels, sources: []source{
		{name: "vllm:generation_tokens_total"},
		{name: "sglang:generation_tokens_total"},
		{name: "tgi_request_generated_tokens"}, // histogram: its _sum
		{name: "llamacpp:tokens_predicted_total"},
	}},
	{Name: "decode_calls", Kind: result.Counter, Unit: "calls", combine: sumLabels, sources: []source{
		{name: "llamacpp:n_decode_total"}, // llama_decode() calls: batches run
	}},
	{Name: "gpu_memory_used", Kind: result.Gauge, Unit: "bytes", combine: sumLabels, sources: []source{
		{name: "DCGM_FI_DEV_FB_USED", scale: mib}, // dcgm-exporter, MiB per GPU
	}},
}

// engineOf names the engine a family belongs to, from its prefix.
func engineOf(family string) string {
	switch {
	case strings.HasPrefix(family, "vllm:"):
		return "vllm"
	case strings.HasPrefix(family, "sglang:"):
		return "sglang"
	case strings.HasPrefix(family, "tgi_"):
		return "tgi"
	case strings.HasPrefix(family, "trtllm"):
		return "trtllm"
	case strings.HasPrefix(family, "llamacpp:"):
		return "llamacpp"
	case strings.HasPrefix(family, "DCGM_"):
		return "dcgm"
	}
	return ""
}
