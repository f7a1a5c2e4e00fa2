package servesim

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"
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
