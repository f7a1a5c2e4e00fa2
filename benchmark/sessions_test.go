package benchmark

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/servecmp/servecmp/benchmark/client"
	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/internal/testkit/fakeengine"
)

// sessionWorkload has sessions s0..s{n-1} of turns turns each (answers of
// out tokens) and one single request.
func sessionWorkload(n, turns, out int) *workload.Workload {
	w := &workload.Workload{Path: "sessions.jsonl", SHA256: "abc"}
	for s := range n {
		for k := range turns {
			msgs := []workload.Message{{Role: "user", Content: fmt.Sprintf("s%d question %d", s, k)}}
			if k == 0 {
				msgs = append([]workload.Message{{Role: "system", Content: "be brief"}}, msgs...)
			}
			w.Requests = append(w.Requests, workload.Request{ID: fmt.Sprintf("s%d/t%d", s, k), Messages: msgs,
				MaxTokens: out + k, Session: fmt.Sprintf("s%d", s), Turn: k})
		}
	}
	w.Requests = append(w.Requests, workload.Request{ID: "single", Prompt: "hello", MaxTokens: 2})
	return w
}

// TestSessionsCarryTheConversation: turn k is sent after turn k-1's
// answer, with every earlier message and the server's actual answers.
func TestSessionsCarryTheConversation(t *testing.T) {
	for _, load := range []result.LoadPolicy{
		{Mode: result.ModeConcurrency, Concurrency: 2, Warmup: 2},
		{Mode: result.ModeRate, Rate: 50, Arrival: "poisson", MaxConcurrency: 2},
	} {
		f := &fakeengine.Server{Delay: time.Millisecond}
		s := f.Start(t)
		c := client.New(client.Options{BaseURL: s.URL, Conns: 8})
		t.Cleanup(c.Close)
		wl := sessionWorkload(4, 3, 3)
		res, err := Run(context.Background(), Config{Client: c, Engine: "vllm", Model: "m", Workload: wl, Load: load})
		if err != nil {
			t.Fatal(err)
		}
		if res.Summary.RequestsOK != len(wl.Requests) || res.Summary.RequestsNotSent != 0 {
			t.Fatalf("%s: summary %+v", load.Mode, res.Summary)
		}
		next := map[string]int{}
		for i, id := range f.Seen() {
			if strings.HasSuffix(id, "-warmup") || id == "single" {
				continue
			}
			var sess, k int
			if _, err := fmt.Sscanf(id, "s%d/t%d", &sess, &k); err != nil {
				t.Fatal(id, err)
			}
			if next[id[:2]] != k {
				t.Fatalf("%s: %s sent before turn %d", load.Mode, id, next[id[:2]])
			}
			next[id[:2]] = k + 1
			msgs := f.Bodies()[i]["messages"].([]any)
			if len(msgs) != 2+2*k {
				t.Fatalf("%s: %s carries %d messages, want %d", load.Mode, id, len(msgs), 2+2*k)
			}
			for j := 1; j <= k; j++ {
				a := msgs[2*j].(map[string]any)
				if a["role"] != "assistant" || a["content"] != strings.Repeat("é", 3+j-1) {
					t.Fatalf("%s: %s message %d is %v, want the answer to turn %d", load.Mode, id, 2*j, a, j-1)
				}
			}
			if last := msgs[len(msgs)-1].(map[string]any); last["content"] != fmt.Sprintf("s%d question %d", sess, k) {
				t.Fatalf("%s: %s ends with %v", load.Mode, id, last)
			}
		}
	}
}

func TestSessionUnits(t *testing.T) {
	reqs := sessionWorkload(2, 2, 1).Requests
	prep := make([]client.Prepared, len(reqs))
	for i := range reqs {
		prep[i].Req = &reqs[i]
	}
	got := fmt.Sprint(sessionUnits(prep))
	if got != "[[0 1] [2 3] [4]]" {
		t.Fatalf("units %s", got)
	}
}
