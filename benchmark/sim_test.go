package benchmark

import (
	"context"
	"math"
	"net/http/httptest"
	"testing"

	"github.com/servecmp/servecmp/benchmark/client"
	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/internal/testkit/fakeengine"
	"github.com/servecmp/servecmp/servesim"
)

// TestRunAgainstServeSim runs the whole path against the simulated engine
// with multi-token chunks and injected faults.
func TestRunAgainstServeSim(t *testing.T) {
	sim := servesim.New(servesim.Config{EOSProb: -1, TokensPerChunk: 4, ErrorRate: 0.1, MidStreamErrorRate: 0.1, ResetRate: 0.1, Seed: 5})
	s := httptest.NewServer(sim)
	defer func() { s.Close(); sim.Close() }()
	c := client.New(client.Options{BaseURL: s.URL, Conns: 8})
	defer c.Close()
	w := fakeengine.Workload(60, 10, true)
	for i := range w.Requests {
		w.Requests[i].PromptTokens = []int{1, 2, 3, i + 4}
		w.Requests[i].InputLen = 4
	}
	var recs []result.Record
	res, err := Run(context.Background(), Config{Client: c, Engine: "vllm", Model: "sim-model", Workload: w,
		Load:     result.LoadPolicy{Mode: result.ModeConcurrency, Concurrency: 8},
		OnRecord: func(r *result.Record) error { recs = append(recs, *r); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	s2 := res.Summary
	if s2.RequestsOK+s2.RequestsFailed != 60 || s2.RequestsFailed == 0 || s2.RequestsOK == 0 {
		t.Fatalf("%+v", s2)
	}
	for class := range s2.FailedByClass {
		switch class {
		case "http_500", result.ClassServerError, result.ClassConnection:
		default:
			t.Errorf("unexpected failure class %s", class)
		}
	}
	for _, r := range recs {
		if r.OK && (r.CompletionTokens != 10 || r.LengthMismatch || len(r.ChunkTokens) != 3 || r.ChunkTokens[0] != 4 || r.ChunkTokens[2] != 2) {
			t.Fatalf("record %+v", r)
		}
	}
	// Per-token ITL: n−1 entries per request, mean equal to TPOT's.
	if s2.ITLPerToken.Count != 9*s2.RequestsOK || math.Abs(s2.ITLPerToken.Mean-s2.TPOT.Mean) > 1e-9 || s2.ChunkTokenMismatches != 0 {
		t.Fatalf("itl per token %+v tpot %+v", s2.ITLPerToken, s2.TPOT)
	}
}
