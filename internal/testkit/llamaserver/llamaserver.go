// Package llamaserver starts llama.cpp's llama-server from the shared
// engines folder (../shared/engines/llama.cpp from the repository root)
// on loopback for integration tests, and stops it by its process id.
//
// Invariants: a server is bound to 127.0.0.1 on a port that was free a
// moment before; Start waits at most StartTimeout for GET /health to say
// ok; the process is stopped with SIGTERM, then SIGKILL after
// StopTimeout, when the test ends. Tests skip cleanly when the binary or
// the model is absent.
package llamaserver

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Bounds of a server's start and stop.
const (
	StartTimeout = 30 * time.Second
	StopTimeout  = 10 * time.Second
)

// Model is the shared engine's model file name.
const Model = "tiny-llama-2L128.gguf"

// Dir returns the shared llama.cpp folder, found from the working
// directory upwards (the repository root holds go.mod; the folder is
// ../shared/engines/llama.cpp from there), or "" when it holds no
// llama-server and model.
func Dir() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			dir := filepath.Join(d, "..", "shared", "engines", "llama.cpp")
			for _, f := range []string{"llama-server", Model} {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					return ""
				}
			}
			return dir
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// Server is one running llama-server.
type Server struct {
	URL string
	PID int
	cmd *exec.Cmd
	log string
}

// Start runs llama-server with slots parallel slots, a 4096-token
// context, one thread and --metrics, plus extra arguments (e.g.
// "--cache-ram", "0", "--no-cache-prompt"), and waits until it is
// healthy. It skips the test when the engine is absent and stops the
// server when the test ends.
func Start(t testing.TB, slots int, extra ...string) *Server {
	t.Helper()
	dir := Dir()
	if dir == "" {
		t.Skip("llama.cpp engine not present (../shared/engines/llama.cpp)")
	}
	var last error
	for range 3 { // a port taken between the probe and the bind: try another
		s, err := start(t, dir, slots, extra)
		if err == nil {
			return s
		}
		last = err
	}
	t.Fatalf("llama-server: %v", last)
	return nil
}

func start(t testing.TB, dir string, slots int, extra []string) (*Server, error) {
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	args := append([]string{"-m", filepath.Join(dir, Model), "--host", "127.0.0.1", "--port", strconv.Itoa(port),
		"-np", strconv.Itoa(slots), "-c", "4096", "-t", "1", "--metrics"}, extra...)
	logf, err := os.CreateTemp(t.TempDir(), "llama-server-*.log")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(filepath.Join(dir, "llama-server"), args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, err
	}
	s := &Server{URL: fmt.Sprintf("http://127.0.0.1:%d", port), PID: cmd.Process.Pid, cmd: cmd, log: logf.Name()}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait(); logf.Close() }()
	t.Cleanup(func() { s.stop(exited) })
	if err := s.waitHealthy(exited); err != nil {
		return nil, fmt.Errorf("%v (log %s: %s)", err, s.log, LogTail(s.log))
	}
	return s, nil
}

// stop sends SIGTERM to the server's process, then SIGKILL after
// StopTimeout.
func (s *Server) stop(exited chan error) {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(StopTimeout):
		_ = s.cmd.Process.Kill() // SIGKILL
		<-exited
	}
}

func (s *Server) waitHealthy(exited chan error) error {
	err := WaitOK(s.URL+"/health", StartTimeout, exited, func(b []byte) bool { return strings.Contains(string(b), `"ok"`) })
	if err != nil {
		return fmt.Errorf("not healthy: %v", err)
	}
	return nil
}

// WaitOK polls url every 100 ms until it answers 200 with a body ok
// accepts, the process reports on exited (the report is put back), or
// timeout passes. Test kits of other engines share it.
func WaitOK(url string, timeout time.Duration, exited chan error, ok func(body []byte) bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && ok(b) {
				return nil
			}
		}
		select {
		case err := <-exited:
			exited <- err
			return fmt.Errorf("exited before it answered: %v", err)
		case <-ctx.Done():
			return fmt.Errorf("no answer at %s after %s", url, timeout)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// FreePort is a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// LogTail is the last 600 bytes of the log at path, trimmed.
func LogTail(path string) string {
	b, _ := os.ReadFile(path)
	if len(b) > 600 {
		b = b[len(b)-600:]
	}
	return strings.TrimSpace(string(b))
}
