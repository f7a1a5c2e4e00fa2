//go:build unix

package workload

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/servecmp/servecmp/internal/testkit/tracegen"
)

// BenchmarkTrace12k is the goal: a 12,000-request trace of the
// Mooncake conversation trace's shape (an hour, ~11,000 input tokens a
// request) turned into a token-id workload file by the command's own path
// (read, check, make, write atomically with fsync) in under 10 s with
// bounded memory (make bench). It reports the seconds, the file's size,
// the process's peak resident memory (the generator's included) and the
// implied prefix reuse share.
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
		tr, err := ReadTrace(context.Background(), in, TraceSpec{Format: TraceMooncake, FixedLength: true})
		if err != nil {
			b.Fatal(err)
		}
		if err := tr.Emit(context.Background(), out, io.Discard, io.Discard, func(...string) {}); err != nil {
			b.Fatal(err)
		}
		el := time.Since(t0)
		w, err := os.Stat(out)
		if err != nil {
			b.Fatal(err)
		}
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		b.ReportMetric(el.Seconds(), "s")
		b.ReportMetric(float64(w.Size())/1e6, "MB_out")
		b.ReportMetric(float64(ru.Maxrss)/1024, "peak_rss_MB")
		b.ReportMetric(tr.Stats.ImpliedShare, "implied_share")
		b.ReportMetric(float64(tr.Stats.PromptTokens)/float64(tr.Stats.Kept), "mean_input")
		b.ReportMetric(float64(tr.Stats.Kept), "requests")
	}
}
