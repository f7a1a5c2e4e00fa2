package interrupt

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"
)

func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	case <-time.After(2 * time.Second):
		return false
	}
}

func TestTwoLevels(t *testing.T) {
	sigs := make(chan os.Signal, 2)
	var got []int
	ctx, stop := Watch(context.Background(), sigs, func(n int) { got = append(got, n) })
	defer stop()
	if ctx.Err() != nil || Hard(ctx) == nil {
		t.Fatal("cancelled before any signal, or no second level")
	}
	sigs <- os.Interrupt
	if !closed(ctx.Done()) {
		t.Fatal("the first signal did not cancel the context")
	}
	select {
	case <-Hard(ctx):
		t.Fatal("the first signal closed the second level")
	case <-time.After(50 * time.Millisecond):
	}
	// The second level is seen through derived contexts too.
	child, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	sigs <- syscall.SIGTERM
	if !closed(Hard(child)) {
		t.Fatal("the second signal did not close the second level")
	}
	stop()
	if len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Fatalf("notified %v", got)
	}
}

func TestStopWithoutSignal(t *testing.T) {
	ctx, stop := Watch(context.Background(), make(chan os.Signal), nil)
	stop()
	stop() // idempotent
	if ctx.Err() == nil {
		t.Fatal("stop did not release the context")
	}
	if Hard(context.Background()) != nil {
		t.Fatal("a plain context has a second level")
	}
}
