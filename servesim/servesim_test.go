package servesim

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

func newTest(t *testing.T, cfg Config) (*Server, string) {
	t.Helper()
	s := New(cfg)
	ts := httptest.NewServer(s)
	t.Cleanup(func() {
		s.Close()
		ts.Close()
	})
	return s, ts.URL
}

// event is one parsed SSE data event.
type event struct {
	at   time.Time
	raw  string
	done bool
	obj  struct {
		Choices []struct {
			Text  string `json:"text"`
			Delta struct {
				Role    *string `json:"role"`
				Content string  `json:"content"`
			} `json:"delta"`
			FinishReason *string `json:"finish_reason"`
			TokenIDs     []int   `json:"token_ids"`
			Logprobs     any     `json:"logprobs"`
		} `json:"choices"`
		Usage *struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
}

type streamResult struct {
	status  int
	events  []event
	start   time.Time
	readErr error
}

func (r *streamResult) tokens() (ids []int, text string, finish string) {
	for _, e := range r.events {
		for _, c := range e.obj.Choices {
			ids = append(ids, c.TokenIDs...)
			text += c.Text + c.Delta.Content
			if c.FinishReason != nil {
				finish = *c.FinishReason
			}
		}
	}
	return
}

func (r *streamResult) usage() (int, int, bool) {
	for _, e := range r.events {
		if e.obj.Usage != nil && len(e.obj.Choices) == 0 {
			return e.obj.Usage.PromptTokens, e.obj.Usage.CompletionTokens, true
		}
	}
	return 0, 0, false
}

// firstTokenAt is the arrival of the first event with token text.
func (r *streamResult) firstTokenAt() time.Duration {
	for _, e := range r.events {
		for _, c := range e.obj.Choices {
			if c.Text != "" || c.Delta.Content != "" {
				return e.at.Sub(r.start)
			}
		}
	}
	return -1
}

// testClient keeps enough idle connections for the concurrent tests, so
// that warmed-up requests do not pay for connection setup.
var testClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

func post(t *testing.T, ctx context.Context, url string, body any) *streamResult {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	res := &streamResult{start: time.Now()}
	resp, err := testClient.Do(req)
	if err != nil {
		res.readErr = err
		return res
	}
	defer resp.Body.Close()
	res.status = resp.StatusCode
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		e := event{at: time.Now(), raw: data}
		if data == "[DONE]" {
			e.done = true
		} else if err := json.Unmarshal([]byte(data), &e.obj); err != nil {
			t.Errorf("bad event %q: %v", data, err)
		}
		res.events = append(res.events, e)
	}
	res.readErr = sc.Err()
	return res
}

func completion(prompt any, maxTokens int, extra map[string]any) map[string]any {
	m := map[string]any{"model": "sim-model", "prompt": prompt, "max_tokens": maxTokens, "stream": true,
		"ignore_eos": true, "return_token_ids": true, "stream_options": map[string]any{"include_usage": true}}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

func TestStreamCompletion(t *testing.T) {
	_, url := newTest(t, Config{})
	r := post(t, context.Background(), url+"/v1/completions", completion([]int{5, 6, 7, 8}, 20, nil))
	if r.status != 200 || r.readErr != nil {
		t.Fatalf("status %d err %v", r.status, r.readErr)
	}
	ids, text, finish := r.tokens()
	if len(ids) != 20 || finish != "length" {
		t.Fatalf("%d ids, finish %q", len(ids), finish)
	}
	if n := len(strings.Fields(text)); n != 20 {
		t.Errorf("text has %d words, want 20", n)
	}
	p, c, ok := r.usage()
	if !ok || p != 4 || c != 20 {
		t.Errorf("usage %d/%d (found %v)", p, c, ok)
	}
	if last := r.events[len(r.events)-1]; !last.done {
		t.Errorf("stream did not end with [DONE]: %q", last.raw)
	}
	// The same request without streaming gives the same tokens and text.
	body := completion([]int{5, 6, 7, 8}, 20, map[string]any{"stream": false})
	delete(body, "stream_options")
	b, _ := json.Marshal(body)
	resp, err := http.Post(url+"/v1/completions", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var whole struct {
		Choices []struct {
			Text         string `json:"text"`
			TokenIDs     []int  `json:"token_ids"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage struct {
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&whole); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(whole.Choices[0].TokenIDs) != fmt.Sprint(ids) || whole.Choices[0].Text != text ||
		whole.Choices[0].FinishReason != "length" || whole.Usage.CompletionTokens != 20 {
		t.Errorf("non-streaming differs: %+v", whole)
	}
}

func TestChatStream(t *testing.T) {
	_, url := newTest(t, Config{})
	body := map[string]any{"messages": []map[string]any{{"role": "user", "content": "hello there"}},
		"max_completion_tokens": 5, "stream": true, "ignore_eos": true, "logprobs": true, "top_logprobs": 2}
	r := post(t, context.Background(), url+"/v1/chat/completions", body)
	if r.status != 200 || len(r.events) < 2 {
		t.Fatalf("status %d, %d events", r.status, len(r.events))
	}
	first := r.events[0].obj.Choices[0]
	if first.Delta.Role == nil || *first.Delta.Role != "assistant" || first.Delta.Content != "" {
		t.Errorf("first chunk is not role-only: %s", r.events[0].raw)
	}
	_, text, finish := r.tokens()
	if len(strings.Fields(text)) != 5 || finish != "length" {
		t.Errorf("text %q finish %q", text, finish)
	}
	if r.events[1].obj.Choices[0].Logprobs == nil {
		t.Errorf("no logprobs: %s", r.events[1].raw)
	}
	if _, _, ok := r.usage(); ok {
		t.Error("usage chunk without stream_options.include_usage")
	}
}

func TestDeterminism(t *testing.T) {
	run := func(seed int64, prompt any) []int {
		_, url := newTest(t, Config{Seed: seed})
		ids, _, _ := post(t, context.Background(), url+"/v1/completions", completion(prompt, 30, nil)).tokens()
		return ids
	}
	a, b := run(1, []int{9, 9, 9}), run(1, []int{9, 9, 9})
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatal("same seed and prompt gave different tokens")
	}
	if fmt.Sprint(a) == fmt.Sprint(run(2, []int{9, 9, 9})) {
		t.Error("different seeds gave the same tokens")
	}
	if fmt.Sprint(a) == fmt.Sprint(run(1, []int{9, 9, 8})) {
		t.Error("different prompts gave the same tokens")
	}
	// Text prompts tokenise per word.
	_, url := newTest(t, Config{})
	r := post(t, context.Background(), url+"/v1/completions", completion("one two  three", 2, nil))
	if p, _, _ := r.usage(); p != 3 {
		t.Errorf("text prompt counted %d tokens, want 3", p)
	}
}

func TestEOSAndMinTokens(t *testing.T) {
	_, url := newTest(t, Config{EOSProb: 0.2})
	ctx := context.Background()
	short := 0
	for i := range 10 {
		r := post(t, ctx, url+"/v1/completions", completion([]int{i + 3}, 50, map[string]any{"ignore_eos": false}))
		ids, _, finish := r.tokens()
		if finish == "stop" && len(ids) < 50 {
			short++
		}
		r = post(t, ctx, url+"/v1/completions", completion([]int{i + 3}, 50, map[string]any{"ignore_eos": false, "min_tokens": 50}))
		if ids, _, finish := r.tokens(); len(ids) != 50 || finish != "length" {
			t.Errorf("min_tokens=50: %d tokens, finish %q", len(ids), finish)
		}
		r = post(t, ctx, url+"/v1/completions", completion([]int{i + 3}, 50, nil))
		if ids, _, _ := r.tokens(); len(ids) != 50 {
			t.Errorf("ignore_eos: %d tokens", len(ids))
		}
	}
	if short < 8 {
		t.Errorf("only %d of 10 requests stopped early at EOS probability 0.2", short)
	}
}

func TestBatchingQueues(t *testing.T) {
	// Four 4-token requests; each step takes about 25 ms. With one running
	// sequence the last request waits for three others (about 300 ms);
	// with four running all get their first token in the first step.
	// Connections are opened beforehand so only queueing differs.
	ttfts := func(maxRunning int) []time.Duration {
		_, url := newTest(t, Config{MaxRunning: maxRunning, DecodeBase: 25 * time.Millisecond})
		fire := func(n int) []time.Duration {
			var wg sync.WaitGroup
			out := make([]time.Duration, 4)
			for i := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					out[i] = post(t, context.Background(), url+"/v1/completions", completion([]int{i + 10}, n, nil)).firstTokenAt()
				}()
			}
			wg.Wait()
			return out
		}
		fire(1) // warm-up: open four connections
		return fire(4)
	}
	spread := func(ds []time.Duration) (lo, hi time.Duration) {
		lo, hi = ds[0], ds[0]
		for _, d := range ds {
			lo, hi = min(lo, d), max(hi, d)
		}
		return lo, hi
	}
	_, serial := spread(ttfts(1))
	if serial < 250*time.Millisecond {
		t.Errorf("MaxRunning=1: slowest TTFT %v, want >= 250ms (queueing)", serial)
	}
	// Timing on a loaded machine is noisy, so compare the two runs rather
	// than test absolute figures.
	if lo, hi := spread(ttfts(4)); lo < 0 || hi > serial/2 {
		t.Errorf("MaxRunning=4: TTFT %v..%v, want well under the serial %v", lo, hi, serial)
	}
}

func TestDecodeTiming(t *testing.T) {
	// 10 tokens at 20 ms per step: about 200 ms end to end.
	_, url := newTest(t, Config{DecodeBase: 15 * time.Millisecond, DecodePerSeq: 5 * time.Millisecond})
	start := time.Now()
	post(t, context.Background(), url+"/v1/completions", completion([]int{4}, 10, nil))
	if d := time.Since(start); d < 190*time.Millisecond || d > 1500*time.Millisecond {
		t.Errorf("10 tokens took %v, want about 200ms", d)
	}
}

func TestFaults(t *testing.T) {
	ctx := context.Background()
	t.Run("error", func(t *testing.T) {
		_, url := newTest(t, Config{ErrorRate: 1})
		b, _ := json.Marshal(completion([]int{4}, 5, nil))
		resp, err := http.Post(url+"/v1/completions", "application/json", bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var e struct {
			Object  string `json:"object"`
			Message string `json:"message"`
			Code    int    `json:"code"`
		}
		json.NewDecoder(resp.Body).Decode(&e)
		if resp.StatusCode != 500 || e.Object != "error" || e.Message == "" || e.Code != 500 {
			t.Errorf("status %d body %+v", resp.StatusCode, e)
		}
	})
	t.Run("mid-stream", func(t *testing.T) {
		_, url := newTest(t, Config{MidStreamErrorRate: 1})
		r := post(t, ctx, url+"/v1/completions", completion([]int{4}, 50, nil))
		_, _, finish := r.tokens()
		var sawErr bool
		for _, e := range r.events {
			sawErr = sawErr || e.obj.Error != nil
		}
		if r.status != 200 || !sawErr || finish != "" || !r.events[len(r.events)-1].done {
			t.Errorf("status %d, error event %v, finish %q", r.status, sawErr, finish)
		}
	})
	t.Run("reset", func(t *testing.T) {
		_, url := newTest(t, Config{ResetRate: 1})
		r := post(t, ctx, url+"/v1/completions", completion([]int{4}, 50, nil))
		ids, _, _ := r.tokens()
		if r.readErr == nil || len(ids) >= 50 {
			t.Errorf("read error %v after %d tokens; want a broken stream", r.readErr, len(ids))
		}
		for _, e := range r.events {
			if e.done {
				t.Error("reset stream carried [DONE]")
			}
		}
	})
	t.Run("stall", func(t *testing.T) {
		_, url := newTest(t, Config{StallRate: 1, StallFor: 150 * time.Millisecond})
		r := post(t, ctx, url+"/v1/completions", completion([]int{4}, 50, nil))
		ids, _, _ := r.tokens()
		gap := time.Duration(0)
		for i := 1; i < len(r.events); i++ {
			gap = max(gap, r.events[i].at.Sub(r.events[i-1].at))
		}
		total := r.events[len(r.events)-1].at.Sub(r.start)
		// All 50 tokens are ready at once (no delays), so the stall is the
		// only long wait: the stream takes at least StallFor and one gap
		// carries most of it.
		if len(ids) != 50 || total < 150*time.Millisecond || gap < 75*time.Millisecond {
			t.Errorf("%d tokens, total %v, largest gap %v; want 50, >= 150ms, >= 75ms", len(ids), total, gap)
		}
	})
	t.Run("rates are per request", func(t *testing.T) {
		_, url := newTest(t, Config{ErrorRate: 0.5, Seed: 3})
		fails := 0
		for i := range 40 {
			b, _ := json.Marshal(completion([]int{i + 3, 7}, 2, nil))
			resp, err := http.Post(url+"/v1/completions", "application/json", bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == 500 {
				fails++
			}
		}
		if fails < 10 || fails > 30 {
			t.Errorf("%d of 40 failed at error rate 0.5", fails)
		}
	})
}

func TestStrictAndValidation(t *testing.T) {
	_, strict := newTest(t, Config{Strict: true})
	_, lax := newTest(t, Config{MaxModelLen: 100})
	cases := []struct {
		url  string
		path string
		body string
		want int
	}{
		{strict, "/v1/completions", `{"prompt":[4],"max_tokens":2,"vllm_xargs":{}}`, 400},
		{lax, "/v1/completions", `{"prompt":[4],"max_tokens":2,"vllm_xargs":{}}`, 200},
		{strict, "/v1/completions", `{"prompt":[4],"max_tokens":2}`, 200},
		{lax, "/v1/completions", `{"prompt":[4],"max_tokens":0}`, 400},
		{lax, "/v1/completions", `{"prompt":[4],"max_tokens":200}`, 400},
		{lax, "/v1/completions", `{"prompt":[[4],[5]],"max_tokens":2}`, 400},
		{lax, "/v1/completions", `{"max_tokens":2}`, 400},
		{lax, "/v1/completions", `{"model":"other","prompt":[4],"max_tokens":2}`, 404},
		{lax, "/v1/completions", `{not json`, 400},
		{lax, "/v1/chat/completions", `{"messages":[],"max_tokens":2}`, 400},
		{lax, "/v1/chat/completions", `{"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],"max_tokens":2}`, 200},
	}
	for _, c := range cases {
		resp, err := http.Post(c.url+c.path, "application/json", strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%s %s: status %d, want %d (%s)", c.path, c.body, resp.StatusCode, c.want, b)
		}
	}
}

func get(t *testing.T, url string) []byte {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d", url, resp.StatusCode)
	}
	return b
}

func scrape(t *testing.T, url string) map[string]float64 {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(get(t, url+"/metrics")))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for name, f := range fams {
		m := f.GetMetric()[0]
		switch {
		case m.Gauge != nil:
			out[name] = m.Gauge.GetValue()
		case m.Counter != nil:
			out[name] = m.Counter.GetValue()
		}
	}
	return out
}

func TestInfoEndpointsAndMetrics(t *testing.T) {
	_, url := newTest(t, Config{ModelName: "m/x", EngineName: "vllm", Version: "9.9"})
	var models struct {
		Data []struct {
			ID      string `json:"id"`
			OwnedBy string `json:"owned_by"`
		} `json:"data"`
	}
	json.Unmarshal(get(t, url+"/v1/models"), &models)
	if len(models.Data) != 1 || models.Data[0].ID != "m/x" || models.Data[0].OwnedBy != "vllm" {
		t.Errorf("models %+v", models)
	}
	if !strings.Contains(string(get(t, url+"/version")), `"9.9"`) {
		t.Error("version")
	}
	prompt := make([]int, 64)
	for i := range prompt {
		prompt[i] = 100 + i
	}
	ctx := context.Background()
	post(t, ctx, url+"/v1/completions", completion(prompt, 4, map[string]any{"model": "m/x"}))
	post(t, ctx, url+"/v1/completions", completion(prompt, 4, map[string]any{"model": "m/x"}))
	m := scrape(t, url)
	want := map[string]float64{
		"vllm:prompt_tokens_total": 128, "vllm:generation_tokens_total": 8, "vllm:prefix_cache_queries_total": 128,
		"vllm:prefix_cache_hits_total": 48, // 64 cached, minus the last block recomputed
		"vllm:num_requests_running":    0, "vllm:num_requests_waiting": 0, "vllm:kv_cache_usage_perc": 0, "vllm:num_preemptions_total": 0,
	}
	for k, v := range want {
		if got, ok := m[k]; !ok || got != v {
			t.Errorf("%s = %v (present %v), want %v", k, got, ok, v)
		}
	}
	resp, err := http.Post(url+"/reset_prefix_cache", "", nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("reset: %v %v", err, resp)
	}
	resp.Body.Close()
	post(t, ctx, url+"/v1/completions", completion(prompt, 4, map[string]any{"model": "m/x"}))
	if m := scrape(t, url); m["vllm:prefix_cache_hits_total"] != 48 {
		t.Errorf("hits after reset = %v, want still 48", m["vllm:prefix_cache_hits_total"])
	}

	_, sg := newTest(t, Config{EngineName: "sglang", OldMetricNames: true})
	m = scrape(t, sg)
	for _, k := range []string{"sglang:num_running_reqs", "sglang:num_queue_reqs", "sglang:token_usage", "sglang:prompt_tokens_total"} {
		if _, ok := m[k]; !ok {
			t.Errorf("sglang dialect lacks %s", k)
		}
	}
	_, old := newTest(t, Config{OldMetricNames: true})
	if _, ok := scrape(t, old)["vllm:gpu_cache_usage_perc"]; !ok {
		t.Error("old names lack vllm:gpu_cache_usage_perc")
	}
}

func TestPreemption(t *testing.T) {
	// 8 requests of 10 + 40 tokens in a 200-token cache: the batch
	// outgrows the cache and sequences are preempted, yet every request
	// completes with its full length.
	s, url := newTest(t, Config{KVCacheTokens: 200, MaxRunning: 8, DecodeBase: 2 * time.Millisecond})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			prompt := make([]int, 10)
			for j := range prompt {
				prompt[j] = 1000*i + j
			}
			r := post(t, context.Background(), url+"/v1/completions", completion(prompt, 40, nil))
			if ids, _, f := r.tokens(); len(ids) != 40 || f != "length" {
				t.Errorf("request %d: %d tokens, finish %q", i, len(ids), f)
			}
		}()
	}
	wg.Wait()
	if s.st.preemptions.Load() == 0 {
		t.Error("no preemptions")
	}
	// The gauge is published after the step that finished the last
	// request, which may be just after its client saw the last token.
	for deadline := time.Now().Add(2 * time.Second); s.st.kvUsed.Load() != 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if s.st.kvUsed.Load() != 0 {
		t.Errorf("KV cache holds %d tokens after all requests finished", s.st.kvUsed.Load())
	}
}

func TestTokensPerChunk(t *testing.T) {
	_, url := newTest(t, Config{TokensPerChunk: 4})
	r := post(t, context.Background(), url+"/v1/completions", completion([]int{4}, 10, nil))
	var sizes []int
	for _, e := range r.events {
		for _, c := range e.obj.Choices {
			sizes = append(sizes, len(c.TokenIDs))
		}
	}
	if fmt.Sprint(sizes) != "[4 4 2]" {
		t.Errorf("chunk sizes %v, want [4 4 2]", sizes)
	}
}

func TestDisconnectFreesSlot(t *testing.T) {
	s, url := newTest(t, Config{MaxRunning: 1, DecodeBase: time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(30 * time.Millisecond)
		cancel()
	}()
	post(t, ctx, url+"/v1/completions", completion([]int{4}, 100000, nil))
	start := time.Now()
	r := post(t, context.Background(), url+"/v1/completions", completion([]int{5}, 3, nil))
	if ids, _, _ := r.tokens(); len(ids) != 3 || time.Since(start) > 2*time.Second {
		t.Errorf("after a disconnect: %d tokens in %v", len(ids), time.Since(start))
	}
	if s.st.requestsAborted.Load() != 1 {
		t.Errorf("aborted = %d, want 1", s.st.requestsAborted.Load())
	}
}

func TestCloseEndsStreams(t *testing.T) {
	s := New(Config{DecodeBase: time.Millisecond})
	ts := httptest.NewServer(s)
	defer ts.Close()
	done := make(chan *streamResult)
	go func() {
		done <- post(t, context.Background(), ts.URL+"/v1/completions", completion([]int{4}, 100000, nil))
	}()
	// Close only once the stream is running, so that Close ends a stream
	// in flight rather than one not yet admitted.
	deadline := time.Now().Add(5 * time.Second)
	for s.st.generationTokens.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no token generated 5 s after the request")
		}
		time.Sleep(time.Millisecond)
	}
	s.Close()
	select {
	case r := <-done:
		if len(r.events) == 0 || !r.events[len(r.events)-1].done {
			t.Error("closed stream did not end with [DONE]")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("stream still open 5 s after Close")
	}
	s.Close() // idempotent
}

func TestManyStreamsZeroDelay(t *testing.T) {
	_, url := newTest(t, Config{})
	var wg sync.WaitGroup
	start := time.Now()
	const streams, tokens = 100, 50
	var mu sync.Mutex
	total := 0
	for i := range streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids, _, _ := post(t, context.Background(), url+"/v1/completions", completion([]int{i + 3}, tokens, nil)).tokens()
			mu.Lock()
			total += len(ids)
			mu.Unlock()
		}()
	}
	wg.Wait()
	if total != streams*tokens {
		t.Errorf("got %d tokens, want %d", total, streams*tokens)
	}
	t.Logf("%d streams x %d tokens in %v", streams, tokens, time.Since(start))
}

// BenchmarkStreams drives 256 concurrent zero-delay streams of 256 tokens
// and reports chunks per second (server and a minimal client together).
func BenchmarkStreams(b *testing.B) {
	s := New(Config{})
	ts := httptest.NewServer(s)
	defer func() { s.Close(); ts.Close() }()
	tr := &http.Transport{MaxIdleConnsPerHost: 512}
	c := &http.Client{Transport: tr}
	body, _ := json.Marshal(completion([]int{4, 5, 6}, 256, nil))
	b.ResetTimer()
	start := time.Now()
	chunks := 0
	for range b.N {
		var wg sync.WaitGroup
		var mu sync.Mutex
		for range 256 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				resp, err := c.Post(ts.URL+"/v1/completions", "application/json", bytes.NewReader(body))
				if err != nil {
					b.Error(err)
					return
				}
				defer resp.Body.Close()
				sc := bufio.NewScanner(resp.Body)
				n := 0
				for sc.Scan() {
					if len(sc.Bytes()) > 0 {
						n++
					}
				}
				mu.Lock()
				chunks += n
				mu.Unlock()
			}()
		}
		wg.Wait()
	}
	b.ReportMetric(float64(chunks)/time.Since(start).Seconds(), "chunks/s")
}
