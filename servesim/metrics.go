package servesim

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
)

// metric is one line group of the /metrics page.
type metric struct {
	name, help, typ string
	value           float64
}

var labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

// metrics returns the engine's gauges and counters under the names of
// the configured engine dialect.
func (s *Server) metrics() []metric {
	st := &s.st
	kv := float64(st.kvUsed.Load()) / float64(s.cfg.KVCacheTokens)
	if s.cfg.EngineName == "sglang" {
		hitRate := 0.0
		if q := st.prefixQueries.Load(); q > 0 {
			hitRate = float64(st.prefixHits.Load()) / float64(q)
		}
		return []metric{
			{"sglang:num_running_reqs", "The number of running requests.", "gauge", float64(st.running.Load())},
			{"sglang:num_queue_reqs", "The number of requests in the waiting queue.", "gauge", float64(st.waiting.Load())},
			{"sglang:token_usage", "The token usage.", "gauge", kv},
			{"sglang:cache_hit_rate", "The prefix cache hit rate.", "gauge", hitRate},
			{"sglang:num_retracted_requests_total", "Number of retracted requests.", "counter", float64(st.preemptions.Load())},
			{"sglang:prompt_tokens_total", "Number of prefill tokens processed.", "counter", float64(st.promptTokens.Load())},
			{"sglang:generation_tokens_total", "Number of generation tokens processed.", "counter", float64(st.generationTokens.Load())},
			{"sglang:cached_tokens_total", "Number of cached prompt tokens.", "counter", float64(st.prefixHits.Load())},
		}
	}
	kvName := "vllm:kv_cache_usage_perc"
	if s.cfg.OldMetricNames {
		kvName = "vllm:gpu_cache_usage_perc"
	}
	return []metric{
		{"vllm:num_requests_running", "Number of requests in model execution batches.", "gauge", float64(st.running.Load())},
		{"vllm:num_requests_waiting", "Number of requests waiting to be processed.", "gauge", float64(st.waiting.Load())},
		{kvName, "KV-cache usage. 1 means 100 percent usage.", "gauge", kv},
		{"vllm:num_preemptions_total", "Cumulative number of preemptions.", "counter", float64(st.preemptions.Load())},
		{"vllm:prompt_tokens_total", "Number of prefill tokens processed.", "counter", float64(st.promptTokens.Load())},
		{"vllm:generation_tokens_total", "Number of generation tokens processed.", "counter", float64(st.generationTokens.Load())},
		{"vllm:prefix_cache_queries_total", "Prefix-cache queries, in tokens.", "counter", float64(st.prefixQueries.Load())},
		{"vllm:prefix_cache_hits_total", "Prefix-cache hits, in tokens.", "counter", float64(st.prefixHits.Load())},
		{"vllm:request_success_total", "Count of successfully processed requests.", "counter", float64(st.requestsFinished.Load())},
	}
}

func (s *Server) handleMetrics(w http.ResponseWriter, _ *http.Request) {
	labels := `{engine="0",model_name="` + labelEscaper.Replace(s.cfg.ModelName) + `"}`
	var b bytes.Buffer
	for _, m := range s.metrics() {
		b.WriteString("# HELP " + m.name + " " + m.help + "\n")
		b.WriteString("# TYPE " + m.name + " " + m.typ + "\n")
		b.WriteString(m.name + labels + " ")
		b.WriteString(strconv.FormatFloat(m.value, 'g', -1, 64))
		b.WriteByte('\n')
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	w.Write(b.Bytes())
}
