package workload

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzTrace reads data as a trace of format: it never panics, an error
// is one line naming the file, and a trace it accepts (when small enough
// to write quickly) gives a workload that parses back with the trace's
// count, lengths in bounds, offsets in order and a share in [0, 1].
func fuzzTrace(t *testing.T, format string, data []byte) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := ReadTrace(context.Background(), path, TraceSpec{Format: format, BlockSize: 4, Vocab: 64})
	if err != nil {
		if strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), path) {
			t.Fatalf("error %q: not one line naming the file", err)
		}
		return
	}
	st := tr.Stats
	if st.Kept < 1 || st.Kept > st.Read || !(st.ImpliedShare >= 0 && st.ImpliedShare <= 1) {
		t.Fatalf("stats %+v", st)
	}
	if st.PromptTokens > 1<<16 {
		return
	}
	var buf bytes.Buffer
	if _, err := tr.WriteTo(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	w, err := Parse("w", buf.Bytes())
	if err != nil {
		t.Fatalf("the workload does not parse: %v", err)
	}
	if len(w.Requests) != st.Kept || w.Header.Trace.ImpliedPrefixReuseShare != st.ImpliedShare {
		t.Fatalf("%d requests, header %+v", len(w.Requests), w.Header.Trace)
	}
	prev := 0.0
	for _, r := range w.Requests {
		if *r.ArrivalOffsetS < prev || r.InputLen != len(r.PromptTokens) {
			t.Fatalf("request %+v after %v", r, prev)
		}
		prev = *r.ArrivalOffsetS
	}
}

func FuzzMooncakeTrace(f *testing.F) {
	f.Add([]byte(mc("0", "10", "3", "[1, 2, 3]") + "\n" + mc("5.5", "9", "1", "[1, 2, 4]") + "\n" + mc("9", "3", "2", "[1]")))
	f.Add([]byte(mc("0", "8", "3", "[1, 2]") + "\n" + mc("1", "8", "3", "[2, 1]")))
	f.Add([]byte(`{"timestamp": 1e3, "input_length": 4.0, "output_length": "2", "hash_ids": [-1], "x": null}`))
	f.Add([]byte("\x1f\x8b\x08\x00"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzTrace(t, TraceMooncake, data) })
}

func FuzzAzureTrace(f *testing.F) {
	f.Add([]byte("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,44\n2023-11-16 18:15:50.9951690,396,109\n"))
	f.Add([]byte("GeneratedTokens,x,TIMESTAMP,ContextTokens\n3,\"a,b\",2024-05-10T00:00:00.5+02:00,7\n"))
	f.Add([]byte("TIMESTAMP,ContextTokens,GeneratedTokens\r\n2023-11-16 18:15:46,1,1\r\n\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzTrace(t, TraceAzure, data) })
}
