package check

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/check/checkreport"
)

// fakeEngine answers /v1/completions deterministically: output token i of a
// request is 100+i, except from position divergeAt on (when >= 0), where
// it adds 1000. mode picks what the response carries: "ids", "logprobs",
// "text", "reject-extras" (400 on return_token_ids, then logprobs).
func fakeEngine(t *testing.T, mode string, divergeAt int) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		if r.URL.Path != "/v1/completions" {
			http.Error(w, "no route", 404)
			return
		}
		if body["temperature"] != 0.0 {
			http.Error(w, "temperature must be 0", 400)
			return
		}
		if _, ok := body["return_token_ids"]; ok && mode == "reject-extras" {
			http.Error(w, `{"message":"extra fields not permitted"}`, 400)
			return
		}
		n := int(body["max_tokens"].(float64))
		ids := make([]int, n)
		toks := make([]string, n)
		var text strings.Builder
		for i := range ids {
			ids[i] = 100 + i
			if divergeAt >= 0 && i >= divergeAt {
				ids[i] += 1000
			}
			toks[i] = fmt.Sprintf("t%d ", ids[i])
			text.WriteString(toks[i])
		}
		ch := map[string]any{"text": text.String(), "finish_reason": "length"}
		switch mode {
		case "ids":
			ch["token_ids"] = ids
		case "logprobs", "reject-extras":
			ch["logprobs"] = map[string]any{"tokens": toks}
		}
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{ch},
			"usage": map[string]int{"prompt_tokens": len(body["prompt"].([]any)), "completion_tokens": n}})
	}))
}

func wl() *workload.Workload {
	return &workload.Workload{Path: "w.jsonl", SHA256: "x", Requests: []workload.Request{
		{ID: "r1", PromptTokens: []int{1, 2, 3}, MaxTokens: 12},
		{ID: "r2", PromptTokens: []int{4, 5}, MaxTokens: 6},
	}}
}

func TestRun(t *testing.T) {
	tests := []struct {
		name             string
		modeA, modeB     string
		divA, divB       int
		passed           bool
		evidence         checkreport.Evidence
		firstPos         int
		contA0, contB0   string
		engineA, engineB string
	}{
		{"equal ids", "ids", "ids", -1, -1, true, checkreport.TokenIDs, -1, "", "", "vllm", "vllm"},
		{"divergent ids", "ids", "ids", -1, 4, false, checkreport.TokenIDs, 4, "104", "1104", "vllm", "vllm"},
		{"text is the only common evidence", "ids", "logprobs", -1, -1, true, checkreport.Text, -1, "", "", "vllm", "openai"},
		{"divergent text", "text", "text", -1, 2, false, checkreport.Text, 12, "02 t103", "102 t1103", "trtllm", "trtllm"},
		{"auto falls back", "logprobs", "reject-extras", -1, 5, false, checkreport.Logprobs, 5, "t105 ", "t1105 ", "auto", "auto"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := fakeEngine(t, tc.modeA, tc.divA), fakeEngine(t, tc.modeB, tc.divB)
			defer a.Close()
			defer b.Close()
			rep, err := Run(context.Background(), Target{URL: a.URL, Model: "m", Engine: tc.engineA},
				Target{URL: b.URL, Model: "m", Engine: tc.engineB}, wl(), Options{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			s := rep.Summary
			if s.Passed != tc.passed || s.Requests != 2 || s.Evidence != tc.evidence {
				t.Fatalf("summary %+v, want passed=%v evidence=%s", s, tc.passed, tc.evidence)
			}
			r1 := rep.Requests[0]
			if tc.firstPos < 0 {
				if !r1.Match || r1.Divergence != nil {
					t.Errorf("r1 should match: %+v", r1)
				}
				return
			}
			d := r1.Divergence
			if d == nil || d.Position != tc.firstPos {
				t.Fatalf("divergence %+v, want position %d", d, tc.firstPos)
			}
			if !strings.HasPrefix(d.A[0], tc.contA0) || !strings.HasPrefix(d.B[0], tc.contB0) {
				t.Errorf("continuations %q / %q, want prefixes %q / %q", d.A, d.B, tc.contA0, tc.contB0)
			}
			if r1.Match || !r1.OutputCountMatch || !r1.InputMatch {
				t.Errorf("r1: counts should match while the sequence differs: %+v", r1)
			}
		})
	}
}

func TestRunFailure(t *testing.T) {
	a := fakeEngine(t, "ids", -1)
	defer a.Close()
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "overloaded", 503) }))
	defer down.Close()
	rep, err := Run(context.Background(), Target{URL: a.URL, Engine: "vllm"}, Target{URL: down.URL, Engine: "vllm"}, wl(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Summary.Passed || rep.Summary.Failed != 2 || rep.Requests[0].Evidence != checkreport.None {
		t.Errorf("summary %+v", rep.Summary)
	}
	if !strings.Contains(rep.Requests[0].Problems[0], "HTTP 503") {
		t.Errorf("problems %v", rep.Requests[0].Problems)
	}
}

func TestParseSGLang(t *testing.T) {
	o, err := parseSGLang([]byte(`{"text":"hi","meta_info":{"prompt_tokens":3,"completion_tokens":2,"output_token_logprobs":[[-0.1,17,null],[-0.2,42,null]],"finish_reason":{"type":"length"}}}`))
	if err != nil || o.Best() != checkreport.TokenIDs || o.TokenIDs[1] != 42 || o.FinishReason != "length" || o.PromptTokens != 3 {
		t.Errorf("%+v %v", o, err)
	}
}

func TestParseVLLMTokenIDStrings(t *testing.T) {
	o, err := parseOpenAI([]byte(`{"choices":[{"text":"ab","logprobs":{"tokens":["token_id:5","token_id:9"]}}]}`))
	if err != nil || o.Best() != checkreport.TokenIDs || o.TokenIDs[1] != 9 || o.CompletionTokens != 2 {
		t.Errorf("%+v %v", o, err)
	}
}

func FuzzParseOpenAI(f *testing.F) {
	f.Add([]byte(`{"choices":[{"text":"a","token_ids":[1]}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`))
	f.Add([]byte(`{"choices":[{"message":{"content":"x"},"logprobs":{"content":[{"token":"x"}]}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := parseOpenAI(data)
		if err == nil && !o.OK {
			t.Error("nil error but not OK")
		}
		parseSGLang(data)
	})
}
