//go:build unix

package experiment

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as the engine: with helperEnv set it runs one
// of the modes below instead of the tests.
const helperEnv = "SERVECMP_EXPERIMENT_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		helper(mode)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// helper modes:
//
//	serve ADDR [ignore-term] [child PIDFILE | setsid-child PIDFILE]: answer
//	    GET /v1/models on ADDR (loopback); exit 0 on SIGTERM unless
//	    ignore-term; with child, first start a process of the same group
//	    that ignores SIGTERM and write its pid to PIDFILE; setsid-child
//	    starts it in a session of its own.
//	exit: write to stderr and exit 3 at once.
//	sleep: never serve.
//	stubborn PIDFILE: ignore SIGTERM, write the pid, sleep.
func helper(mode string) {
	args := os.Args[1:]
	switch mode {
	case "exit":
		fmt.Fprintln(os.Stderr, "loading model m")
		fmt.Fprintln(os.Stderr, "fatal: model m not found")
		os.Exit(3)
	case "sleep":
		time.Sleep(time.Minute)
	case "stubborn":
		signal.Ignore(syscall.SIGTERM)
		_ = os.WriteFile(args[0], []byte(strconv.Itoa(os.Getpid())), 0o644)
		time.Sleep(time.Minute)
	case "serve":
		serve(args)
	}
}

func serve(args []string) {
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	ignore := false
	for i := 1; i < len(args); i++ {
		switch args[i] {
		case "ignore-term":
			ignore = true
		case "child", "setsid-child":
			i++
			c := exec.Command(os.Args[0], args[i])
			c.Env = append(os.Environ(), helperEnv+"=stubborn")
			if args[i-1] == "setsid-child" {
				// leaves the group and the session, as a daemon does
				c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
			}
			_ = c.Start()
		}
	}
	ln, err := net.Listen("tcp", args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(4)
	}
	fmt.Println("serving on", args[0])
	go func() {
		_ = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/v1/models" {
				w.WriteHeader(http.StatusNotFound)
			}
		}))
	}()
	deadline := time.After(time.Minute)
	for {
		select {
		case <-term:
			if !ignore {
				return
			}
		case <-deadline:
			return
		}
	}
}

// freeAddr returns a loopback address with a port free right now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// launchSpec runs this test binary in mode with args.
func launchSpec(t *testing.T, readyURL string, mode string, args ...string) Launch {
	t.Helper()
	t.Setenv(helperEnv, mode)
	return Launch{Command: append([]string{os.Args[0]}, args...), ReadyURL: readyURL,
		ReadyTimeout: 10 * time.Second, Grace: 5 * time.Second}
}

func opts(t *testing.T) LaunchOptions {
	return LaunchOptions{Name: "b", LogDir: t.TempDir(), Poll: 20 * time.Millisecond}
}

// alive reports whether pid is a live process (a zombie is not).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return !os.IsNotExist(err) || !dirExists("/proc/self")
	}
	// The state follows the command name in parentheses.
	s := string(b)
	return !strings.HasPrefix(strings.TrimSpace(s[strings.LastIndexByte(s, ')')+1:]), "Z")
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// waitPid reads a pid file written by a helper.
func waitPid(t *testing.T, path string) int {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 {
			pid, err := strconv.Atoi(string(b))
			if err != nil {
				t.Fatal(err)
			}
			return pid
		}
	}
	t.Fatalf("no pid in %s", path)
	return 0
}

// gone waits until none of pids is alive.
func gone(t *testing.T, pids ...int) {
	t.Helper()
	var left []int
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		left = left[:0]
		for _, p := range pids {
			if alive(p) {
				left = append(left, p)
			}
		}
		if len(left) == 0 {
			return
		}
	}
	for _, p := range left {
		_ = syscall.Kill(p, syscall.SIGKILL) // leave nothing behind
	}
	t.Errorf("processes %v still alive", left)
}

func TestLaunchReadyAndStop(t *testing.T) {
	addr := freeAddr(t)
	o := opts(t)
	p, err := StartReady(context.Background(), launchSpec(t, "http://"+addr+"/v1/models", "serve", addr), o)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get("http://" + addr + "/v1/models")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("engine not serving: %v", err)
	}
	resp.Body.Close()
	start := time.Now()
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Stop took %s for an engine that exits on SIGTERM", d)
	}
	if alive(p.Pid()) {
		t.Error("engine still alive after Stop")
	}
	if err := p.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(o.LogDir, "engine-b.stdout"))
	if err != nil || !strings.Contains(string(b), "serving on "+addr) || !strings.HasPrefix(string(b), "=== servecmp: launch at ") {
		t.Errorf("stdout log %q, %v", b, err)
	}
}

// TestLaunchSelf runs the "servecmp ..." form as this binary.
func TestLaunchSelf(t *testing.T) {
	addr := freeAddr(t)
	l := launchSpec(t, "http://"+addr+"/v1/models", "serve", addr)
	l.Command[0] = "servecmp"
	o := opts(t)
	o.Self = os.Args[0]
	p, err := StartReady(context.Background(), l, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	gone(t, p.Pid())
}

func TestLaunchExitsAtOnce(t *testing.T) {
	o := opts(t)
	// Logs are appended: an earlier launch's stderr must not be quoted.
	if err := os.WriteFile(filepath.Join(o.LogDir, "engine-b.stderr"), []byte("old failure\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := StartReady(context.Background(), launchSpec(t, "http://"+freeAddr(t)+"/v1/models", "exit"), o)
	want := "engine b: exited before it was ready (exit status 3); stderr: loading model m | fatal: model m not found"
	if err == nil || err.Error() != want {
		t.Errorf("error %v\nwant  %s", err, want)
	}
}

func TestLaunchReadinessTimeout(t *testing.T) {
	l := launchSpec(t, "http://"+freeAddr(t)+"/v1/models", "sleep")
	l.ReadyTimeout = 300 * time.Millisecond
	start := time.Now()
	p, err := Start(context.Background(), l, opts(t))
	if err != nil {
		t.Fatal(err)
	}
	err = p.WaitReady(context.Background())
	if err == nil || !strings.HasPrefix(err.Error(), "engine b: not ready after 300ms (last probe: ") {
		t.Errorf("error %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("timed out after %s", d)
	}
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	gone(t, p.Pid())
}

func TestLaunchStopKillsTheGroup(t *testing.T) {
	addr := freeAddr(t)
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	l := launchSpec(t, "http://"+addr+"/v1/models", "serve", addr, "ignore-term", "child", pidFile)
	l.Grace = 300 * time.Millisecond
	p, err := StartReady(context.Background(), l, opts(t))
	if err != nil {
		t.Fatal(err)
	}
	child := waitPid(t, pidFile)
	if !alive(child) {
		t.Fatal("child not running")
	}
	start := time.Now()
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < l.Grace {
		t.Errorf("Stop returned after %s, before the grace period", d)
	}
	gone(t, p.Pid(), child)
}

func TestLaunchContextCancelStops(t *testing.T) {
	addr := freeAddr(t)
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	l := launchSpec(t, "http://"+addr+"/v1/models", "serve", addr, "child", pidFile)
	l.Grace = 300 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p, err := StartReady(ctx, l, opts(t))
	if err != nil {
		t.Fatal(err)
	}
	child := waitPid(t, pidFile)
	cancel()
	select {
	case <-p.Exited():
	case <-time.After(5 * time.Second):
		t.Fatal("engine still running 5s after the context ended")
	}
	gone(t, p.Pid(), child)
}

func TestLaunchNotFound(t *testing.T) {
	_, err := Start(context.Background(), Launch{Command: []string{"/nonexistent/engine"}}, opts(t))
	if err == nil || !strings.HasPrefix(err.Error(), "engine b: launch /nonexistent/engine: ") {
		t.Errorf("error %v", err)
	}
}

// TestLaunchStopKillsSetsidDescendants is the case: an engine
// that starts a child in a session of its own (setsid), which ignores
// SIGTERM, leaves no process once stopped.
func TestLaunchStopKillsSetsidDescendants(t *testing.T) {
	addr := freeAddr(t)
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	l := launchSpec(t, "http://"+addr+"/v1/models", "serve", addr, "setsid-child", pidFile)
	l.Grace = 300 * time.Millisecond
	p, err := StartReady(context.Background(), l, opts(t))
	if err != nil {
		t.Fatal(err)
	}
	child := waitPid(t, pidFile)
	if pgid, _ := syscall.Getpgid(child); pgid == p.Pid() || !alive(child) {
		t.Fatalf("child %d: group %d, alive %v; want it running outside the engine's group %d", child, pgid, alive(child), p.Pid())
	}
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	gone(t, p.Pid(), child)
}

// TestScrubLog: what an engine prints reaches its log with secrets
// masked, a line split across writes included.
func TestScrubLog(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "engine-a.stderr"))
	if err != nil {
		t.Fatal(err)
	}
	l := &scrubLog{f: f, key: "k-0123456789"}
	for _, part := range []string{"args: {'api_key': 'sk-abcdefgh", "ijklmnopqrstuv'}\nusing key k-01", "23456789 now\n", "tail without newline k-0123456789"} {
		l.Write([]byte(part))
	}
	l.Close()
	b, _ := os.ReadFile(f.Name())
	if strings.Contains(string(b), "abcdefgh") || strings.Contains(string(b), "k-0123456789") || !strings.Contains(string(b), "tail without newline") {
		t.Fatalf("log %q", b)
	}
}
