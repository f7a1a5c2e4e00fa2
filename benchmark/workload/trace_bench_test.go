package workload

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/servecmp/servecmp/benchmark/workload/tracegen"
)

// BenchmarkTrace12k is the goal: a 12,000-request trace of the
// Mooncake conversation trace's shape (an hour, ~12k input tokens a
// request) turned into a token-id workload file in under 10 s with
// bounded memory (make bench). It reports the seconds, the file's size,
// the peak resident memory and the implied prefix reuse share.
func BenchmarkTrace12k(b *testing.B) {
	dir := b.TempDir()
	in := filepath.Join(dir, "conversation_trace.jsonl")
	f, err := os.Create(in)
	if err != nil {
		b.Fatal(err)
	}
	if err := tracegen.WriteMooncake(f, tracegen.Conversation(12000, 1)); err != nil {
		b.Fatal(err)
	}
	f.Close()
	out := filepath.Join(dir, "wl.jsonl")
	runtime.GC()
	for b.Loop() {
		t0 := time.Now()
		tr, err := ReadTrace(context.Background(), in, TraceSpec{Format: TraceMooncake})
		if err != nil {
			b.Fatal(err)
		}
		o, err := os.Create(out)
		if err != nil {
			b.Fatal(err)
		}
		bw := bufio.NewWriterSize(o, 1<<20)
		if _, err := tr.WriteTo(context.Background(), bw); err != nil {
			b.Fatal(err)
		}
		bw.Flush()
		o.Close()
		st, _ := os.Stat(out)
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		b.ReportMetric(time.Since(t0).Seconds(), "s")
		b.ReportMetric(float64(st.Size())/1e6, "MB_out")
		b.ReportMetric(float64(ru.Maxrss)/1024, "peak_rss_MB")
		b.ReportMetric(tr.Stats.ImpliedShare, "implied_share")
		b.ReportMetric(float64(tr.Stats.PromptTokens)/float64(tr.Stats.Kept), "mean_input")
	}
}
