package kineto

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/servecmp/servecmp/event"
)

// BenchmarkRead reads the trace named by $KINETO_BENCH_FILE (skipped when
// unset), or the local MI300X sample, from memory.
func BenchmarkRead(b *testing.B) {
	path := os.Getenv("KINETO_BENCH_FILE")
	if path == "" {
		path = realTraces(b)[0].path
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(context.Background(), bytes.NewReader(data), path, event.All); err != nil {
			b.Fatal(err)
		}
	}
}
