package stats

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestBootstrapsStopOnCancel: with a huge number of resamples, a
// cancelled context ends both bootstrap loops at once.
func TestBootstrapsStopOnCancel(t *testing.T) {
	a := [][]float64{{1, 2, 3}, {2, 3, 4}, {1, 5}}
	b := [][]float64{{2, 3, 4}, {3, 4, 5}, {2, 6}}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(5*time.Millisecond, cancel)
	t0 := time.Now()
	_, err := BootstrapClustersContext(ctx, a, b, []Stat{Mean}, 1<<22, 0.05, 1)
	if !errors.Is(err, context.Canceled) || time.Since(t0) > 5*time.Second {
		t.Fatalf("clusters: %v after %v", err, time.Since(t0))
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	time.AfterFunc(5*time.Millisecond, cancel2)
	t0 = time.Now()
	_, err = CompareRequests(a, b, RunOptions{Resamples: 1 << 21, Stats: []Stat{Mean}, Context: ctx2})
	if !errors.Is(err, context.Canceled) || time.Since(t0) > 5*time.Second {
		t.Fatalf("hierarchical: %v after %v", err, time.Since(t0))
	}
}
