package stats

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestLoopsStopOnCancel: with a huge number of resamples or relabellings,
// a cancelled context ends the bootstrap and the max-T loops at once.
func TestLoopsStopOnCancel(t *testing.T) {
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
	runs := [][]float64{{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}}
	_, err = MaxT(ctx2, runs, runs, false, 1<<30, 1)
	if !errors.Is(err, context.Canceled) || time.Since(t0) > 5*time.Second {
		t.Fatalf("max-T: %v after %v", err, time.Since(t0))
	}
}
