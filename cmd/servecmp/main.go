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
		// A third signal gets the default action: it ends the process.
		signal.Reset(stopSignals...)
		fmt.Fprintln(os.Stderr, "servecmp: interrupted again: cancelling what is in flight")
	})
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
