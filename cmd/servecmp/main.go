// Command servecmp compares LLM serving systems: unprofiled end-to-end
// benchmarks first, then per-rank GPU time by region from profiles.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/servecmp/servecmp/internal/interrupt"
	"github.com/servecmp/servecmp/internal/proctree"
)

func main() {
	stopSignals := []os.Signal{os.Interrupt, syscall.SIGTERM}
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, stopSignals...)
	ctx, stop := interrupt.Watch(context.Background(), sigs, func(n int) {
		if n == 1 {
			fmt.Fprintln(os.Stderr, "servecmp: interrupted: stopping (interrupt again to cancel what is in flight at once)")
			return
		}
		fmt.Fprintln(os.Stderr, "servecmp: interrupted again: cancelling what is in flight (a third interrupt ends servecmp at once)")
		go func() {
			// The third ends the process, and every engine it launched
			// with it: nothing servecmp started outlives it.
			<-sigs
			proctree.KillAll()
			fmt.Fprintln(os.Stderr, "servecmp: interrupted a third time: ended, with the engines it launched")
			os.Exit(1)
		}()
	})
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
