package client

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/servecmp/servecmp/benchmark/result"
)

// TestClientBoundsServerCounts sends answers whose token counts a
// hostile or broken server could send and checks that each request is
// flagged (ClassImplausible) instead of its numbers entering a summary.
func TestClientBoundsServerCounts(t *testing.T) {
	ids := func(n int) string { return strings.TrimSuffix(strings.Repeat("1,", n), ",") }
	for _, tc := range []struct {
		name, body string
		class      string
	}{
		{"chunk claiming 10^8 tokens", `data: {"choices":[{"text":"a"}],"usage":{"prompt_tokens":2,"completion_tokens":100000000}}` + "\n\n" + "data: [DONE]\n\n", result.ClassImplausible},
		{"negative usage", `data: {"choices":[{"text":"a","finish_reason":"stop"}],"usage":{"prompt_tokens":-5,"completion_tokens":1}}` + "\n\ndata: [DONE]\n\n", result.ClassImplausible},
		{"2^62 usage", `data: {"choices":[{"text":"a","finish_reason":"stop"}]}` + "\n\n" + `data: {"choices":[],"usage":{"prompt_tokens":4611686018427387904,"completion_tokens":1}}` + "\n\ndata: [DONE]\n\n", result.ClassImplausible},
		{"final usage beyond the cap", `data: {"choices":[{"text":"a","finish_reason":"stop"}]}` + "\n\n" + `data: {"choices":[],"usage":{"prompt_tokens":2,"completion_tokens":5000}}` + "\n\ndata: [DONE]\n\n", result.ClassImplausible},
		{"token ids beyond the cap", `data: {"choices":[{"text":"a","token_ids":[` + ids(40) + `]}]}` + "\n\ndata: [DONE]\n\n", result.ClassImplausible},
		{"within the cap", `data: {"choices":[{"text":"a","token_ids":[` + ids(3) + `],"finish_reason":"length"}],"usage":{"prompt_tokens":2,"completion_tokens":3}}` + "\n\ndata: [DONE]\n\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := raw(t, func(w http.ResponseWriter, r *http.Request) { sse(w, tc.body) })
			rec := doOne(t, url, completionReq(3), "vllm", 0) // cap: 2*3+16 = 22 tokens
			if rec.ErrorClass != tc.class || rec.OK != (tc.class == "") {
				t.Fatalf("class %q ok %v (%s), want %q", rec.ErrorClass, rec.OK, rec.Error, tc.class)
			}
			sum := result.NewSummary([]result.Record{rec}, 0, true)
			if sum.OutputTokens < 0 || sum.OutputTokens > 22 || sum.InputTokens < 0 || sum.OutputThroughput < 0 {
				t.Fatalf("summary took the counts in: %+v", sum)
			}
		})
	}
}

func TestTokenCap(t *testing.T) {
	for _, tc := range []struct{ max, want int }{{0, result.HardMaxTokens}, {-1, result.HardMaxTokens}, {1, 18}, {100, 216}, {result.HardMaxTokens + 1, result.HardMaxTokens}} {
		if got := tokenCap(tc.max); got != tc.want {
			t.Errorf("tokenCap(%d) = %d, want %d", tc.max, got, tc.want)
		}
	}
}

// TestAnswerCaptureBounded is the case: a server that streams an
// answer without end, a few huge chunks within the token cap, cannot
// make the client hold its text: the request fails as implausible once
// the text passes what the request's tokens could hold, and the reading
// stops there.
func TestAnswerCaptureBounded(t *testing.T) {
	var sent atomic.Int64
	chunk := "data: {\"choices\":[{\"text\":\"" + strings.Repeat("x", 64<<10) + "\"}]}\n\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for r.Context().Err() == nil && sent.Add(1) < 1<<14 { // at most 1 GiB
			if _, err := io.WriteString(w, chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	c := New(Options{BaseURL: srv.URL, Conns: 1, RequestTimeout: 30 * time.Second})
	defer c.Close()
	req := completionReq(8)
	p, err := Prepare(&req, "m", "vllm", func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	p.Capture = true
	var rec result.Record
	_, answer := c.Do(context.Background(), NewClock(), &p, &rec, nil)
	if rec.OK || rec.ErrorClass != result.ClassImplausible || !strings.Contains(rec.Error, "answer's text runs over") || answer != "" {
		t.Fatalf("record ok %v class %q error %q, answer %d bytes", rec.OK, rec.ErrorClass, rec.Error, len(answer))
	}
	if n := sent.Load(); n > 64 {
		t.Errorf("the client read %d chunks of 64 KiB before stopping", n)
	}
}
