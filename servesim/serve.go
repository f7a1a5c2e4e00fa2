package servesim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/servecmp/servecmp/internal/atomicfile"
)

// Serve validates cfg, listens on addr (port 0 picks a free port) and
// serves a simulator until ctx ends, then ends the streams in flight and
// shuts the server down, waiting at most 5 s. Once listening it calls
// ready with the server's URL (http://HOST:PORT) and the simulator's
// effective configuration; an error from ready stops it before serving.
func Serve(ctx context.Context, cfg Config, addr string, ready func(url string, cfg Config) error) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	sim := New(cfg)
	defer sim.Close()
	if err := ready("http://"+ln.Addr().String(), sim.Config()); err != nil {
		ln.Close()
		return err
	}
	srv := &http.Server{Handler: sim, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sim.Close() // ends streams in flight so Shutdown need not wait for them
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// Announce returns a ready function for Serve that prints "serve-sim
// listening on URL (model M, engine E, max-running N)" to w and, when
// portFile is not "", writes the URL and a newline to it atomically, so
// that a script polling for the file never reads it half-written.
func Announce(w io.Writer, portFile string) func(url string, cfg Config) error {
	return func(url string, c Config) error {
		fmt.Fprintf(w, "serve-sim listening on %s (model %s, engine %s, max-running %d)\n", url, c.ModelName, c.EngineName, c.MaxRunning)
		if portFile == "" {
			return nil
		}
		return atomicfile.Write(portFile, []byte(url+"\n"))
	}
}
