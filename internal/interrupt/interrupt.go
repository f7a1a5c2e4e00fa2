// Package interrupt turns the process's stop signals (SIGINT, SIGTERM)
// into two levels of stopping. The first signal cancels the context a
// command runs under: a benchmark stops sending and drains, a long loop
// returns what it has. The second closes the channel Hard returns: a
// benchmark cancels its requests in flight and writes the incomplete
// result at once. What a third signal does is the caller's choice (main
// kills every engine it launched, internal/proctree, and exits).
package interrupt

import (
	"context"
	"os"
	"sync"
)

type hardKey struct{}

// Watch returns a context derived from parent that is cancelled when the
// first signal arrives on sigs and that carries the second level: Hard(ctx)
// is closed when the second signal arrives. notify, when non-nil, is
// called with the count (1, 2) as each of the first two signals arrives,
// before the corresponding cancellation. stop ends the watch and releases
// the context; call it when the command is over.
func Watch(parent context.Context, sigs <-chan os.Signal, notify func(n int)) (ctx context.Context, stop func()) {
	hard := make(chan struct{})
	ctx, cancel := context.WithCancel(context.WithValue(parent, hardKey{}, (<-chan struct{})(hard)))
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for n := 1; n <= 2; n++ {
			select {
			case <-sigs:
			case <-done:
				return
			}
			if notify != nil {
				notify(n)
			}
			if n == 1 {
				cancel()
			} else {
				close(hard)
			}
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			close(done)
			wg.Wait()
			cancel()
		})
	}
}

// Hard returns a channel that is closed when a second stop was asked
// for, or nil (which never closes) when ctx was not made by Watch.
func Hard(ctx context.Context) <-chan struct{} {
	h, _ := ctx.Value(hardKey{}).(<-chan struct{})
	return h
}
