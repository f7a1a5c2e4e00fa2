// Package ollamaserver starts Ollama's server from the shared engines
// folder (../shared/engines/ollama from the repository root) on loopback
// for integration tests, creates the tiny models its README describes,
// and stops it by its process group; and it offers a stand-in (StandIn)
// that answers as Ollama does, for unit tests without the engine.
//
// Invariants: a server listens on 127.0.0.1 on a port that was free a
// moment before; its HOME and OLLAMA_MODELS are a test's temporary
// directory, never the user's, and no OLLAMA_* setting of the caller's
// environment reaches it; Start waits at most StartTimeout for GET
// /api/version and CreateTimeout for each model; when the test ends the
// server's process group (the server and the runner it starts) gets
// SIGTERM, then SIGKILL after StopTimeout. Tests skip cleanly when the
// binary, its Modelfiles or the model file are absent.
package ollamaserver

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/servecmp/servecmp/internal/testkit/llamaserver"
)

// Bounds of a server's start, model creation and stop.
const (
	StartTimeout  = 30 * time.Second
	CreateTimeout = 60 * time.Second
	StopTimeout   = 10 * time.Second
)

// The models the shared folder's Modelfiles make.
const (
	// Templated is the tiny model with Ollama's default chat template,
	// which Ollama also wraps around /v1/completions prompts.
	Templated = "tiny"
	// Raw has the template "{{ .Prompt }}": a completions prompt reaches
	// the model as llama.cpp's server passes it.
	Raw = "tiny-raw"
)

// GGUF is the model file both Modelfiles name, in the llama.cpp folder
// beside Ollama's.
const GGUF = "tiny-llama-2L128.gguf"

// Dir returns the shared Ollama folder, found from the working directory
// upwards (the repository root holds go.mod; the folder is
// ../shared/engines/ollama from there), or "" when it lacks the binary,
// a Modelfile or the model file they name.
func Dir() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			dir := filepath.Join(d, "..", "shared", "engines", "ollama")
			for _, f := range []string{filepath.Join("bin", "ollama"), "Modelfile." + Templated, "Modelfile." + Raw,
				filepath.Join("..", "llama.cpp", GGUF)} {
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

// ModelPath is the absolute path of the model file, for Modelfiles a test
// writes itself (FROM it); "" when the folder is absent.
func ModelPath() string {
	dir := Dir()
	if dir == "" {
		return ""
	}
	p, err := filepath.Abs(filepath.Join(dir, "..", "llama.cpp", GGUF))
	if err != nil {
		return ""
	}
	return p
}

// Options shape a server.
type Options struct {
	// Parallel is OLLAMA_NUM_PARALLEL, the requests one model serves at
	// once; 0 means 4.
	Parallel int
	// Models are the shared Modelfiles' models to create (Templated,
	// Raw); nil means both.
	Models []string
	// Modelfiles are further models to create: name -> Modelfile text
	// (FROM ModelPath(), e.g. with PARAMETER repeat_penalty 1).
	Modelfiles map[string]string
}

// Server is one running Ollama server.
type Server struct {
	URL  string
	PID  int
	Home string // its HOME; OLLAMA_MODELS is Home/models
	dir  string
	host string
	cmd  *exec.Cmd
	log  string
}

// Start runs `ollama serve` with opt, waits until it answers, creates the
// models, and stops it when the test ends. It skips the test when the
// engine is absent.
func Start(t testing.TB, opt Options) *Server {
	t.Helper()
	dir := Dir()
	if dir == "" {
		t.Skip("Ollama engine not present (../shared/engines/ollama with ../llama.cpp/" + GGUF + ")")
	}
	var s *Server
	var last error
	for range 3 { // a port taken between the probe and the bind: try another
		if s, last = start(t, dir, opt); last == nil {
			break
		}
	}
	if last != nil {
		t.Fatalf("ollama serve: %v", last)
	}
	models := opt.Models
	if models == nil {
		models = []string{Templated, Raw}
	}
	for _, m := range models {
		if err := s.create(m, filepath.Join(dir, "Modelfile."+m)); err != nil {
			t.Fatalf("ollama create %s: %v", m, err)
		}
	}
	for name, text := range opt.Modelfiles {
		f := filepath.Join(s.Home, "Modelfile."+name)
		if err := os.WriteFile(f, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := s.create(name, f); err != nil {
			t.Fatalf("ollama create %s: %v", name, err)
		}
	}
	return s
}

// env is the server's and the CLI's environment: the caller's, less
// HOME and every OLLAMA_* setting, plus the kit's.
func (s *Server) env(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OLLAMA_") && !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	return append(env, append([]string{"HOME=" + s.Home, "OLLAMA_HOST=" + s.host}, extra...)...)
}

func start(t testing.TB, dir string, opt Options) (*Server, error) {
	port, err := llamaserver.FreePort()
	if err != nil {
		return nil, err
	}
	home := t.TempDir()
	logf, err := os.Create(filepath.Join(home, "ollama.log"))
	if err != nil {
		return nil, err
	}
	parallel := opt.Parallel
	if parallel <= 0 {
		parallel = 4
	}
	s := &Server{URL: fmt.Sprintf("http://127.0.0.1:%d", port), Home: home, dir: dir,
		host: "127.0.0.1:" + strconv.Itoa(port), log: logf.Name()}
	cmd := exec.Command(filepath.Join(dir, "bin", "ollama"), "serve")
	cmd.Env = s.env("OLLAMA_MODELS="+filepath.Join(home, "models"), "OLLAMA_NUM_PARALLEL="+strconv.Itoa(parallel),
		"OLLAMA_KEEP_ALIVE=60m")
	cmd.Stdout, cmd.Stderr = logf, logf
	ownGroup(cmd)
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, err
	}
	s.cmd, s.PID = cmd, cmd.Process.Pid
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait(); logf.Close() }()
	t.Cleanup(func() { s.stop(exited) })
	if err := s.waitReady(exited); err != nil {
		return nil, fmt.Errorf("%v (log %s: %s)", err, s.log, llamaserver.LogTail(s.log))
	}
	return s, nil
}

// create runs `ollama create name -f modelfile` against the server, in
// the shared folder (a Modelfile's relative FROM is resolved from there).
func (s *Server) create(name, modelfile string) error {
	ctx, cancel := context.WithTimeout(context.Background(), CreateTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(s.dir, "bin", "ollama"), "create", name, "-f", modelfile)
	cmd.Dir, cmd.Env = s.dir, s.env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		o := strings.TrimSpace(string(out))
		if len(o) > 400 {
			o = o[len(o)-400:]
		}
		return fmt.Errorf("%v: %s", err, o)
	}
	return nil
}

// stop sends SIGTERM to the server's process group, then SIGKILL after
// StopTimeout.
func (s *Server) stop(exited chan error) {
	terminate(s.cmd)
	select {
	case <-exited:
	case <-time.After(StopTimeout):
		kill(s.cmd)
		<-exited
	}
	kill(s.cmd) // a runner left behind in the group
}

func (s *Server) waitReady(exited chan error) error {
	return llamaserver.WaitOK(s.URL+"/api/version", StartTimeout, exited, func([]byte) bool { return true })
}
