package check

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/check/checkreport"
	"github.com/servecmp/servecmp/internal/testkit/llamaserver"
)

// TestLlamaCppOneVsFourSlots checks a one-slot llama.cpp server against a
// four-slot one: in auto mode both are recognised as llama.cpp and every
// request is compared, and matches, on token ids.
func TestLlamaCppOneVsFourSlots(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	a := llamaserver.Start(t, 1, "--cache-ram", "0", "--no-cache-prompt")
	b := llamaserver.Start(t, 4, "--cache-ram", "0", "--no-cache-prompt")
	in, _ := workload.ParseLength("8:32")
	out, _ := workload.ParseLength("24")
	reqs, err := workload.Random(workload.RandomSpec{Num: 8, InputLen: in, OutputLen: out, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	reqs = append(reqs, workload.Request{ID: "text", Prompt: "Once upon a time", MaxTokens: 16, FixedLength: true},
		workload.Request{ID: "chat", Messages: []workload.Message{{Role: "user", Content: "Say hello"}}, MaxTokens: 12})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rep, err := Run(ctx, Target{URL: a.URL, Model: llamaserver.Model}, Target{URL: b.URL, Model: llamaserver.Model},
		&workload.Workload{Path: "w.jsonl", Requests: reqs}, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	s := rep.Summary
	if !s.Passed || s.Evidence != checkreport.TokenIDs || s.EvidenceCounts[checkreport.TokenIDs] != len(reqs) {
		for _, r := range rep.Requests {
			t.Logf("%s: %v A %+v B %+v", r.ID, r.Problems, r.A, r.B)
		}
		t.Fatalf("summary %+v", s)
	}
	if rep.A.Engine != "llamacpp" || rep.B.Engine != "llamacpp" || rep.A.EvidenceSource != "token ids from logprobs.content[].id" {
		t.Errorf("endpoints %+v %+v", rep.A, rep.B)
	}
	for _, r := range rep.Requests {
		if r.ID == "text" && r.A.CompletionTokens != 16 {
			t.Errorf("fixed-length text request gave %d tokens, want 16 (ignore_eos)", r.A.CompletionTokens)
		}
	}
}

func TestParseLlamaCppContentIDs(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		ids        []int
		best       checkreport.Evidence
	}{
		{"ids", `{"choices":[{"text":"aga;&","logprobs":{"content":[{"id":7781,"token":"aga","logprob":-9.4},{"id":25359,"token":";&","logprob":-9.5}]},` +
			`"finish_reason":"length"}],"usage":{"completion_tokens":2,"prompt_tokens":4}}`, []int{7781, 25359}, checkreport.TokenIDs},
		{"an id missing", `{"choices":[{"text":"ab","logprobs":{"content":[{"id":1,"token":"a"},{"token":"b"}]}}]}`, nil, checkreport.Logprobs},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := parseOpenAI([]byte(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(o.TokenIDs) != fmt.Sprint(tc.ids) || o.Best() != tc.best {
				t.Errorf("ids %v best %s, want %v %s", o.TokenIDs, o.Best(), tc.ids, tc.best)
			}
		})
	}
}

func TestResolveAutoLlamaCpp(t *testing.T) {
	var bodies []map[string]any
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			fmt.Fprint(w, `{"data":[{"id":"m","owned_by":"llamacpp"}]}`)
			return
		}
		if r.Method != http.MethodPost {
			http.NotFound(w, r) // detection's other endpoints
			return
		}
		var b map[string]any
		_ = json.NewDecoder(r.Body).Decode(&b)
		bodies = append(bodies, b)
		fmt.Fprint(w, `{"choices":[{"text":"x","logprobs":{"content":[{"id":9,"token":"x"}]},"finish_reason":"length"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`)
	}))
	defer s.Close()
	w := &workload.Workload{Requests: []workload.Request{{ID: "q", PromptTokens: []int{1}, MaxTokens: 1, FixedLength: true}}}
	rep, err := Run(context.Background(), Target{URL: s.URL, Model: "m"}, Target{URL: s.URL, Model: "m"}, w, Options{})
	if err != nil || !rep.Summary.Passed || rep.Summary.Evidence != checkreport.TokenIDs || rep.A.Engine != "llamacpp" {
		t.Fatalf("%+v %+v %v", rep.Summary, rep.A, err)
	}
	b := bodies[0]
	if b["ignore_eos"] != true || b["logprobs"] != 1.0 || b["min_tokens"] != nil || b["return_token_ids"] != nil {
		t.Errorf("llama.cpp body %v", b)
	}
}
